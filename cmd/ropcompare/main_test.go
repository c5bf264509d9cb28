package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/calibrate"
)

// Without numpy and without a C compiler the command skips with a message and exits 0, as
// `make compare` must on a machine with only Go.
// TestHelp: -h prints the usage on stdout and exits 0, as every other command does (issue 23
// item 12: it exited 2 with the flag package's default usage).
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage: ropcompare [-rounds N]") || !strings.Contains(out.String(), "-threads N") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if code := run([]string{"extra"}, &out, &errb); code != 2 {
		t.Errorf("an argument: exit %d, want 2", code)
	}
}

func TestSkipsWithoutPeers(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-python", "/nonexistent/python3", "-cc", "/nonexistent/cc", "-manifests", "../../manifest", "-dir", "../../compare"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "make compare: skipped") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and a skip message", code, out.String(), errb.String())
	}
}

// With the peers present, one short round of one row prints the table with both ratios.
func TestOneRow(t *testing.T) {
	if _, err := exec.LookPath("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3: the numpy column is optional")
	}
	if exec.Command("/usr/bin/python3", "-c", "import numpy").Run() != nil {
		t.Skip("/usr/bin/python3 has no numpy: the numpy column is optional")
	}
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler: the limit column is optional")
	}
	var out, errb bytes.Buffer
	// -coretypes none: numpy's BLAS as the environment has it (tests force no kernel)
	code := run([]string{"-rounds", "1", "-sample", "2ms", "-case", "GEMM 256", "-coretypes", "none", "-manifests", "../../manifest", "-dir", "../../compare"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	var line string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "| GEMM 256³ |") {
			line = l
		}
	}
	if cells := strings.Split(line, "|"); len(cells) != 9 || !strings.Contains(cells[4], "×") || !strings.Contains(cells[7], "×") {
		t.Errorf("row %q: want both ratios; output:\n%s", line, out.String())
	}
}

// A row naming an op the catalog lacks is an error naming the row.
func TestBadRow(t *testing.T) {
	saved := cases
	defer func() { cases = saved }()
	cases = []compareCase{{Name: "nope", Op: "NoSuchFwd", Set: "M=1", DType: "float32", Limit: limitFMA}}
	_, err := buildRows(config{manifests: "../../manifest"})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err = %v, want one naming the row", err)
	}
}

// The table warns of each row whose kernel beat its limit in some round, and of no other.
func TestWarnsAboveLimit(t *testing.T) {
	rows := []*row{
		// 1e9 bytes a call: ours 1, 2 and 1 GB/s against a limit of 1.5 GB/s each round
		{compareCase: compareCase{Name: "over", Limit: limitCopy}, work: 1e9, ours: []float64{1, 0.5, 1}, limit: []float64{1.5e9, 1.5e9, 1.5e9}},
		{compareCase: compareCase{Name: "under", Limit: limitCopy}, work: 1e9, ours: []float64{1, 1, 1}, limit: []float64{1.5e9, 1e9, 2e9}},
	}
	var out bytes.Buffer
	printTable(&out, rows, config{rounds: 3}, nil, nil)
	s := out.String()
	if !strings.Contains(s, "warning: over: ours above its limit in 1 of 3 rounds (up to 1.33×)") {
		t.Errorf("no warning for the row above its limit:\n%s", s)
	}
	if strings.Contains(s, "under:") {
		t.Errorf("a warning for the row at or below its limit:\n%s", s)
	}
	if !strings.Contains(s, "| over | 1.0 GB/s | — | — | copy | 1.5 GB/s | 0.67× [0.67–1.33] |") {
		t.Errorf("row over:\n%s", s)
	}
}

// With a C compiler, the compute roofs are compared with their C loops in the same rounds:
// vector.fp32 (every amd64 host with AVX-512 or AVX2 has its kernel and the FMA loop) gets a
// row with its ratio, and no catalog row is needed for it.
func TestRoofsAgainstC(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler: the limit column is optional")
	}
	var fp32 bool
	for _, rk := range calibrate.RoofKernels() {
		fp32 = fp32 || rk.Key == "vector.fp32"
	}
	if !fp32 {
		t.Skip("no SIMD kernel for vector.fp32 on this architecture")
	}
	var out, errb bytes.Buffer
	code := run([]string{"-rounds", "1", "-case", `^vector\.fp32$`, "-python", "/nonexistent/python3", "-manifests", "../../manifest", "-dir", "../../compare"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	var line string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "| vector.fp32 |") {
			line = l
		}
	}
	if cells := strings.Split(line, "|"); len(cells) != 8 || !strings.Contains(cells[4], "fma32") || !strings.Contains(cells[6], "×") {
		t.Errorf("row %q: want the roof against the fma32 loop with a ratio; output:\n%s", line, out.String())
	}
}

// fakeBLAS stands for numpy_worker.py's blas, check and probe requests: OpenBLAS whose own
// choice is the slow Prescott, whose SapphireRapids is not in the build (it runs Cooperlake),
// whose Haswell computes wrong results, and whose SkylakeX is the fastest.
const fakeBLAS = `
import json, os, sys
ct = os.environ.get("OPENBLAS_CORETYPE", "")
core = {"": "Prescott", "SapphireRapids": "Cooperlake"}.get(ct, ct)
secs = {"Prescott": 0.2, "Cooperlake": 0.02, "SkylakeX": 0.01, "Haswell": 0.005}[core]
for line in sys.stdin:
    req = json.loads(line)
    if "blas" in req:
        print(json.dumps({"library": "/x/libopenblas.so", "api": "openblas", "core": core, "version": "0.3.21", "via": "ctypes"}), flush=True)
    elif "check" in req:
        print("error: (0, 64, 64, 64, False): entry (1, 2) is 7, the reference 3" if core == "Haswell" else "ok", flush=True)
    elif "probe" in req:
        print(secs, flush=True)
`

// The numpy peer is the fastest kernel choice that computes right: a faster one with wrong
// results is dropped, a candidate the build maps to a kernel already tried is tried once,
// and the note says which kernel ran, how it was chosen and what each choice did.
func TestBestNumpy(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	script := filepath.Join(t.TempDir(), "fake.py")
	if err := os.WriteFile(script, []byte(fakeBLAS), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func(coretype string) (*numpyWorker, error) {
		cmd := exec.Command(python, script)
		// The peer's own environment (peerEnv), as startNumpy gives it: without the caller's
		// OPENBLAS_* settings, which a host may set (the fake would read them as the default).
		cmd.Env = peerEnv(config{})
		if coretype != "" {
			cmd.Env = append(cmd.Env, "OPENBLAS_CORETYPE="+coretype)
		}
		w, err := startWorker("numpy", cmd)
		if err != nil {
			return nil, err
		}
		return &numpyWorker{worker: w, version: "1.24"}, nil
	}
	var log bytes.Buffer
	w, err := bestNumpy(start, []string{"SapphireRapids", "Cooperlake", "SkylakeX", "Haswell"}, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	for _, want := range []string{
		"OpenBLAS 0.3.21, kernel SkylakeX (OPENBLAS_CORETYPE=SkylakeX",
		"default (ran Prescott) 11 GFLOP/s",
		"SapphireRapids (ran Cooperlake) 107 GFLOP/s",
		"Cooperlake: the same kernel as one tried before",
		"Haswell: failed the check: numpy: (0, 64, 64, 64, False): entry (1, 2) is 7",
	} {
		if !strings.Contains(w.blasNote, want) {
			t.Errorf("note %q lacks %q", w.blasNote, want)
		}
	}
	// Without candidates: its own choice, said so.
	w2, err := bestNumpy(start, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.close()
	if !strings.Contains(w2.blasNote, "kernel Prescott (its own choice") {
		t.Errorf("note %q", w2.blasNote)
	}
}

// Every unit loop of compare/limits.c compiles, those of instructions this CPU lacks too
// (the AMX loop on a host without AMX): compiled for a target that has them all, where the
// compiler knows the flags. Only the host's own loops run (TestRoofsAgainstC).
func TestLimitsCompileEveryUnit(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	flags := []string{"-mavx512f", "-mavx512bf16", "-mavx512fp16", "-mamx-tile", "-mamx-bf16", "-mamx-int8"}
	if exec.Command(cc, append(flags, "-x", "c", "-c", "-o", os.DevNull, "-")...).Run() != nil {
		t.Skipf("%s does not take %v", cc, flags)
	}
	obj := filepath.Join(t.TempDir(), "limits.o")
	if out, err := exec.Command(cc, append([]string{"-O2", "-Wall", "-Werror", "-pthread", "-c", "-o", obj, "../../compare/limits.c"}, flags...)...).CombinedOutput(); err != nil {
		t.Fatalf("limits.c with %v: %v\n%s", flags, err, out)
	}
	out, err := exec.Command("nm", obj).Output()
	if err != nil {
		t.Skip("no nm")
	}
	for _, fn := range []string{"unit_dpbf16", "unit_fmaph", "unit_tdpbf16", "unit_tdpbssd"} {
		if !strings.Contains(string(out), fn) {
			t.Errorf("%s not compiled in with %v", fn, flags)
		}
	}
}
