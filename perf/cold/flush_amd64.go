package cold

import "unsafe"

// flushOpt: the CPU has CLFLUSHOPT, which drops lines as CLFLUSH does but lets the flushes
// overlap. A cold sample of a cpu-large row flushes 134-201 MB, and CLFLUSH, which
// serializes the flushes, can take longer over that than the timed call itself; with
// CLFLUSHOPT the flush stays a small part of a sample (docs/history.md). The bit is read
// with CPUID here: klauspost/cpuid, the feature detection of ops and perf/calibrate, does
// not report it.
var flushOpt = hasCLFLUSHOPT()

// flushLines flushes every line of [p, p+n) with CLFLUSHOPT where the CPU has it, else with
// CLFLUSH.
func flushLines(p unsafe.Pointer, n uintptr) {
	if flushOpt {
		flushLinesOpt(p, n)
		return
	}
	flushLinesSerial(p, n)
}

//go:noescape
func flushLinesSerial(p unsafe.Pointer, n uintptr)

//go:noescape
func flushLinesOpt(p unsafe.Pointer, n uintptr)

func hasCLFLUSHOPT() bool
