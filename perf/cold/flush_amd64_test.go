package cold

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestCLFLUSHOPT: the CPUID check agrees with the flags Linux reports for the CPU, and both
// flush routines keep the data they flush (odd sizes and offsets included).
func TestCLFLUSHOPT(t *testing.T) {
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for l := range strings.Lines(string(info)) {
			if rest, ok := strings.CutPrefix(l, "flags"); ok {
				want := slices.Contains(strings.Fields(rest), "clflushopt")
				if got := hasCLFLUSHOPT(); got != want {
					t.Errorf("hasCLFLUSHOPT() = %v; /proc/cpuinfo says %v", got, want)
				}
				break
			}
		}
	}
	data := make([]byte, 1<<20+17)
	for i := range data {
		data[i] = byte(i)
	}
	for name, flush := range map[string]func(unsafe.Pointer, uintptr){"CLFLUSH": flushLinesSerial, "CLFLUSHOPT": flushLinesOpt} {
		if name == "CLFLUSHOPT" && !hasCLFLUSHOPT() {
			continue
		}
		flush(unsafe.Pointer(&data[5]), uintptr(len(data)-5))
		for i := range data {
			if data[i] != byte(i) {
				t.Fatalf("%s: byte %d changed by the flush", name, i)
			}
		}
	}
}
