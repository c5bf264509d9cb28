package calibrate

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestUnitEncodings checks every BYTE-encoded instruction of units_amd64.s against GNU as:
// each such line carries the mnemonic it encodes ("// as: vdpbf16ps zmm0, zmm12, zmm12", Intel
// syntax); the test assembles all of them with binutils, disassembles the object, and
// compares the bytes instruction by instruction. It runs on any host with an x86-64 as and
// objdump (the AMX kernels are checked here even where no CPU can run them).
func TestUnitEncodings(t *testing.T) {
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("no GNU as on PATH (binutils): the encodings are checked where it is installed")
	}
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("no objdump on PATH (binutils)")
	}
	f, err := os.Open("units_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := regexp.MustCompile(`^\s*((?:BYTE \$0x[0-9a-f]{2};?\s*)+)// as: (.+)$`)
	byteRe := regexp.MustCompile(`\$0x([0-9a-f]{2})`)
	type insn struct {
		lineNo   int
		bytes    []byte
		mnemonic string
	}
	var want []insn
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		m := line.FindStringSubmatch(text)
		if m == nil {
			if strings.Contains(text, "BYTE $") {
				t.Errorf("units_amd64.s:%d: a BYTE line without its \"// as:\" mnemonic: %s", n, text)
			}
			continue
		}
		var bs []byte
		for _, b := range byteRe.FindAllStringSubmatch(m[1], -1) {
			v, _ := strconv.ParseUint(b[1], 16, 8)
			bs = append(bs, byte(v))
		}
		want = append(want, insn{n, bs, strings.TrimSpace(m[2])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 40 {
		t.Fatalf("%d encoded instructions in units_amd64.s; the kernels have more", len(want))
	}
	dir := t.TempDir()
	src := ".intel_syntax noprefix\n"
	for _, in := range want {
		src += in.mnemonic + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "u.s"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "--64", "-o", filepath.Join(dir, "u.o"), filepath.Join(dir, "u.s")).CombinedOutput(); err != nil {
		t.Fatalf("as cannot assemble the mnemonics (binutils older than AMX?): %v\n%s", err, out)
	}
	out, err := exec.Command(objdump, "-d", "--insn-width=16", filepath.Join(dir, "u.o")).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	// "   0:\t62 d2 1e 48 52 c4    \tvdpbf16ps ..." : one line per instruction
	dis := regexp.MustCompile(`(?m)^\s+[0-9a-f]+:\t((?:[0-9a-f]{2} )+)\s*\t`)
	var got [][]byte
	for _, m := range dis.FindAllStringSubmatch(string(out), -1) {
		var bs []byte
		for _, h := range strings.Fields(m[1]) {
			v, _ := strconv.ParseUint(h, 16, 8)
			bs = append(bs, byte(v))
		}
		got = append(got, bs)
	}
	if len(got) != len(want) {
		t.Fatalf("as made %d instructions of %d mnemonics:\n%s", len(got), len(want), out)
	}
	for i, in := range want {
		if string(got[i]) != string(in.bytes) {
			t.Errorf("units_amd64.s:%d: %s is % x in GNU as, % x in the file", in.lineNo, in.mnemonic, got[i], in.bytes)
		}
	}
}
