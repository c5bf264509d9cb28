package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The seam a harness author meets end to end: ropbench-style records (no impl) and a
// harness's (impl torch, its own ref.floor) of the same cases in one report are two rows per
// case, side by side, each implementation on its own floor; a float32 record declaring a
// 16-bit roof is a finding at its line, and the report exits 1.
func TestReportImplementations(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o666)
	ours := writeBenchRecords(t, dir, "ours.txt", labRecord("big", 1_200_000_000, 1.5e-3), labRecord("small", 1200, 0.5e-6))
	theirs := filepath.Join(dir, "torch.jsonl")
	lines := []string{
		`{"device":"Lab Device","impl":"torch","op":"ref.floor","workload":"AddFwd:small","dtype":"float32","roof":"vector.fp32","flops":100,"bytes":1200,"seconds":4e-05,"iters":9}`,
		`{"device":"Lab Device","impl":"torch","op":"AddFwd","workload":"big","dtype":"float32","roof":"vector.fp32","flops":100000000,"bytes":1200000000,"seconds":3e-03,"iters":10}`,
		`{"device":"Lab Device","impl":"torch","op":"AddFwd","workload":"small","dtype":"float32","roof":"vector.fp32","flops":100,"bytes":1200,"seconds":4.5e-05,"iters":10}`,
	}
	os.WriteFile(theirs, []byte(strings.Join(lines, "\n")+"\n"), 0o666)
	code, out, errs := runReportCmd(t, "-profile", prof, ours, theirs)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, re := range []string{
		`(?m)^4 rows: `, // two implementations, never pooled
		`(?m)^latency floor of torch 40\.0µs \(the cold call the run timed \(ref\.floor\)\)`,
		`(?m)^latency floor of ropgen 1\.00µs \(the profile's latency_floor\)`,
		`(?m)^AddFwd +big +float32 +1\.50ms .* 3\.00ms .* 2\.00x \(2\.00-2\.00\)$`,
		`(?m)^torch against ropgen: 2 cases in both; ropgen faster on 2, torch faster on 0`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("report lacks %s:\n%s", re, out)
		}
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(lines[1]+"\n"+strings.Replace(lines[2], "vector.fp32", "vector.fp16", 1)+"\n"), 0o666)
	code, _, errs = runReportCmd(t, "-profile", prof, bad)
	if code != 1 || !strings.Contains(errs, bad+":2: roof vector.fp16 is a 16-bit unit") {
		t.Errorf("exit %d, stderr %q: want a finding at %s:2", code, errs, bad)
	}
}
