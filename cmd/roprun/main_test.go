package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/audit"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/record"
)

const manifestDir = "../../manifest"

// The end-to-end CPU bytes audit: SubFwd on a real Llama-3 decode shape (8 × 128256 logits
// minus a per-row [8, 1] max, 8 MiB in float32) runs under valgrind's cache simulator, with
// and without the measured call, and `ropgen audit` compares the difference of last-level
// misses with the formula. The correct formula passes; the same record with its bytes
// doubled fails.
func TestCacheSimAudit(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed: the CPU cache-simulation audit needs it")
	}
	if testing.Short() {
		t.Skip("runs one op call under valgrind (a few seconds of CPU)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build roprun and ropgen")
	}
	// go run -exec cp, as docs/docs_test.go builds the commands for its pages: go run keeps
	// the executables it links in the build cache (go build does not), so the two tests of
	// one make test link each command once.
	bin := t.TempDir()
	for _, cmd := range []string{"roprun", "ropgen"} {
		build := exec.Command(goTool, "run", "-exec", "cp", "./cmd/"+cmd, filepath.Join(bin, cmd))
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go run -exec cp ./cmd/%s: %v\n%s", cmd, err, out)
		}
	}
	dir := filepath.Join(t.TempDir(), "sim")
	sim := exec.Command(filepath.Join(bin, "roprun"), "-manifests", manifestDir, "-cachegrind", dir,
		"-ops", "SubFwd", "-workloads", "llama3-decode-b8-logits-center", "-LL", "65536,8,64")
	if out, err := sim.CombinedOutput(); err != nil {
		t.Fatalf("roprun -cachegrind: %v\n%s", err, out)
	}

	records := filepath.Join(dir, "records.txt")
	out, err := exec.Command(filepath.Join(bin, "ropgen"), "audit", "-records", records, "-cachegrind", dir).CombinedOutput()
	// A PASS; or, on a loaded machine, where what the two runs do besides the call differs
	// more (docs/audit.md, "Noise"), a WARN a little past ε: never a FAIL.
	m := regexp.MustCompile(`total\s+\d+\s+\d+\s+(\d+\.\d+)\s+(PASS|WARN)\n`).FindSubmatch(out)
	if err != nil || m == nil || string(m[2]) == "WARN" && parseRatio(m[1]) > 1.15 {
		t.Fatalf("audit of the correct formula: %v, want a PASS, or a WARN up to 1.15:\n%s", err, out)
	}
	t.Logf("correct formula:\n%s", out)

	recs, fs := record.ReadFiles(records)
	if len(fs) > 0 || len(recs) != 1 {
		t.Fatalf("records: %v %v", recs, fs)
	}
	// The same measurement against a formula scaled by num/den.
	scaled := func(num, den int64) string {
		r := recs[0]
		r.Bytes = r.Bytes * num / den
		var buf bytes.Buffer
		if err := record.NewBenchWriter(&buf).Write(r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "scaled.txt")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(filepath.Join(bin, "ropgen"), "audit", "-records", path, "-cachegrind", dir).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "FAIL") {
			t.Fatalf("audit of a formula scaled by %d/%d: %v, want exit 1 with FAIL:\n%s", num, den, err, out)
		}
		return string(out)
	}
	scaled(2, 1)
	// Two thirds, as a formula that forgets the output would be: more than the inputs, less
	// than every tensor, so only the output's size tells the undercount from a kernel's own
	// traffic. The output is arbitrary-rank; its shape is in the work list roprun wrote
	// beside the index.
	if out := scaled(2, 3); !strings.Contains(out, "(an undercount)") {
		t.Errorf("audit of two thirds of the formula: want an undercount:\n%s", out)
	}
}

// testCatalog loads the checked-in catalog as roprun does.
func testCatalog(t *testing.T) catalog {
	t.Helper()
	ops, cases, err := bench.Load(manifest.Config{}, manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	return catalog{paths: []string{manifestDir}, ops: ops, cases: cases}
}

// One call runs in-process too; a case that is not in the manifest is refused by name.
func TestRunOnce(t *testing.T) {
	cat := testCatalog(t)
	if err := runOnce(cat, "SubFwd", "cpu-small", "float32", 1<<16, false); err != nil {
		t.Fatal(err)
	}
	err := runOnce(cat, "SubFwd", "no-such-row", "float32", 1<<16, true)
	if err == nil || !strings.Contains(err.Error(), `SubFwd has no workload "no-such-row" with dtype "float32"`) {
		t.Errorf("unknown workload: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-manifests", manifestDir, "-op", "SubFwd", "-workload", "cpu-small", "-dtype", "float32", "-evict", "65536"}, &stdout, &stderr); code != 0 {
		t.Errorf("roprun one call: exit %d\n%s", code, stderr.String())
	}
	for args, want := range map[string]string{
		"-op SubFwd":          "give -op, -workload and -dtype",
		"-cachegrind d -LL 1": "-LL:",
		"-h":                  "usage: roprun -op OP",
	} {
		stdout.Reset()
		stderr.Reset()
		code := run(strings.Fields(args), &stdout, &stderr)
		if wantCode := map[bool]int{true: 0, false: 2}[args == "-h"]; code != wantCode || !strings.Contains(stdout.String()+stderr.String(), want) {
			t.Errorf("roprun %s: exit %d, want %d with %q:\n%s%s", args, code, wantCode, want, stdout.String(), stderr.String())
		}
	}
}

// Selection keeps real workloads whose tensors are all 4 bytes wide and whose formula bytes
// fit the range; the records carry the formula of the case.
func TestSelectCases(t *testing.T) {
	var log bytes.Buffer
	cat := testCatalog(t)
	cfg := simConfig{ops: []string{"SubFwd"}, minBytes: 1, maxBytes: 16 << 20,
		ll: audit.SimCache{Size: 262144, Assoc: 8, Line: 64}, d1: audit.SimCache{Size: 32768, Assoc: 8, Line: 64}}
	sel, err := selectCases(cat, cfg, &log)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range sel {
		names = append(names, sc.c.Label+":"+sc.dtype)
		if sc.record.Bytes <= 0 || sc.record.Op != "SubFwd" || sc.record.DType != sc.dtype || sc.record.Workload != sc.c.Label {
			t.Errorf("record %+v", sc.record)
		}
		for _, dt := range sc.c.DTypes {
			if dt != "float32" && dt != "int32" {
				t.Errorf("%s selected with dtype %s", sc.c.Label, dt)
			}
		}
	}
	if !strings.Contains(strings.Join(names, " "), "llama3-decode-b8-logits-center:float32") {
		t.Errorf("selected %v, want the llama3 decode row", names)
	}
	for _, sc := range sel {
		if sc.c.Label == "cpu-large" {
			t.Errorf("cpu-large (%d formula bytes) is above the 16 MiB limit", sc.record.Bytes)
		}
	}

	if _, err := selectCases(cat, simConfig{ops: []string{"NoSuchFwd"}}, &log); err == nil {
		t.Error("an unknown -ops name is accepted")
	}
}

func parseRatio(b []byte) float64 {
	r, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return math.Inf(1)
	}
	return r
}
