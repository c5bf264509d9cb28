package main

import (
	"strings"
	"testing"
)

// TestRooflineCalculatorsOnTheA100 checks the calculators against the lesson's numbers on the
// datasheet ceilings: ridge 153.0, tile 342 at n = 4096, batch 166, 145.6 tokens/s for 7B.
func TestRooflineCalculatorsOnTheA100(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-ridge"}, []string{"cube.fp16    312 TFLOP/s   none         none       153.0", "vector.fp32  19.5 TFLOP/s  none         none       9.6"}},
		{[]string{"-tile", "-fast-kib", "64"}, []string{"largest tile b = 104 (A, B and C tiles: 64896 bytes)", "intensity 50.6 FLOP/byte, memory-bound",
			"b = 342 (intensity 163.8), needing 701784 bytes of fast memory: does not fit", "s × ridge = 306"}},
		{[]string{"-tile", "-fast-kib", "1024"}, []string{"largest tile b = 418", "intensity 195.0 FLOP/byte, compute-bound", "701784 bytes of fast memory: fits"}},
		{[]string{"-batch", "-m", "166,1,128,4096"}, []string{"compute-bound from m = 166",
			"     1       1.00   memory-bound  2.04 TFLOP/s        0.7\n   128     120.47   memory-bound   246 TFLOP/s       78.7\n   166     153.55  compute-bound   312 TFLOP/s      100.0\n"}},
		{[]string{"-batch", "-n", "256", "-k", "256"}, []string{"memory-bound at every m (intensity stays below 128.0)"}},
		{[]string{"-decode", "-params", "7e9"}, []string{"one read takes 6.866 ms; at most 145.6 tokens/s"}},
	} {
		args := append([]string{"roofline", "-profile", "a100-sxm-80gb", "-basis", "theoretical"}, tc.args...)
		code, out, errOut := runCmd(args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// An uncalibrated ceiling has no effective value: the calculator refuses and names the fix
// rather than falling back to the datasheet silently.
func TestRooflineRefusesAnUnmeasuredEffectiveCeiling(t *testing.T) {
	code, out, errOut := runCmd("roofline", "-profile", "a100-sxm-80gb", "-batch")
	if code != 1 || out != "" || !strings.Contains(errOut, "hbm was never measured, so it has no effective ceiling") || !strings.Contains(errOut, "-basis theoretical") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runCmd("roofline", "-profile", "ascend910b1", "-batch", "-roof", "vector.fp32")
	if code != 1 || !strings.Contains(errOut, "profile ascend910b1 has no vector.fp32 ceiling (it has hbm, cube.fp16)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	// The measured H200 bf16 roof resolves: 790e12 / 4.3e12.
	code, out, _ = runCmd("roofline", "-profile", "h200", "-batch", "-roof", "cube.bf16", "-m", "1")
	if code != 0 || !strings.Contains(out, "ridge 183.7 FLOP/byte") {
		t.Errorf("h200 effective: exit %d:\n%s", code, out)
	}
}

func TestRooflineUsage(t *testing.T) {
	for _, args := range [][]string{
		{"roofline"},
		{"roofline", "-profile", "h200", "-tile", "-batch"},
		{"roofline", "-profile", "h200", "-tile"},
		{"roofline", "-profile", "h200", "-elem", "0"},
		{"roofline", "-profile", "h200", "-batch", "-n", "0"},
		{"roofline", "-profile", "h200", "-batch", "-m", "1,x"},
		{"roofline", "-profile", "h200", "-basis", "peak"},
		{"roofline", "-profile", "no-such-profile"},
		{"roofline", "-profile", "h200", "extra"},
	} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// Issue 40 items 17, 18 and 21: -params Inf, 1e308 and 1e-300 printed "+Inf GB" and
	// "+Inf ms" (exit 0); a -fast-kib too large was said to be missing; -m 1e3 was refused
	// where -n 1e3 is taken.
	for args, want := range map[string]string{
		"-decode -params Inf":            `"Inf" is not a number`,
		"-decode -params 1e308":          `"1e308" is out of range`,
		"-decode -params 1e-300":         `"1e-300" is not a whole number`,
		"-decode -params 1e16":           "-params 10000000000000000: want 1 to 1e+15 parameters",
		"-tile -fast-kib 99999999999999": "-fast-kib 99999999999999 is too large: at most 1073741824 KiB (1 TiB)",
	} {
		if code, _, errs := runCmd(append([]string{"roofline", "-profile", "h200"}, strings.Fields(args)...)...); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", args, code, errs, want)
		}
	}
	if code, out, errs := runCmd("roofline", "-profile", "h200", "-basis", "theoretical", "-batch", "-m", "1e3"); code != 0 || !strings.Contains(out, "\n  1000 ") {
		t.Errorf("-m 1e3: exit %d, stderr %q, table:\n%s", code, errs, out)
	}
}
