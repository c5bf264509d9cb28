package bench

import (
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/profiles"
)

// judgeProfile is a CPU profile with a 1 GB/s DRAM roof, a 1 GFLOP/s vector roof and a
// 4 MiB last-level cache: a case's SOL time in seconds is its bytes (or FLOPs) / 1e9.
const judgeProfile = `
device: "cpu: Test"
hbm: {theoretical: 2.0e+9, calibration: 0.5}
vector:
  fp32: {theoretical: 2.0e+9, calibration: 0.5}
caches:
  l3: {theoretical: 1.0e+10, calibration: 0.5, bytes: 4194304}
latency_floor: 1.0e-6
`

// TestJudge: per op the smallest cpu-* case whose SOL time is at least JudgeMargin times the
// floor is kept; smaller cases, larger ones, rows not sized for the CPU and cases the
// planner skipped already are left out with their reason; timed warm, a case that fits the
// last-level cache cannot earn a verdict.
func TestJudge(t *testing.T) {
	prof, err := profiles.Parse("host.yaml", []byte(judgeProfile))
	if err != nil {
		t.Fatal(err)
	}
	mk := func(op, label string, bytes int64) Planned {
		return Planned{Case: Case{Case: manifest.Case{Op: op, Label: label}, DType: "float32"},
			Bytes: bytes, Storage: bytes, Roof: "vector.fp32"}
	}
	const floor = 1e-5 // SOL times at least 1e-4 s: 100 kB or more
	plans := []Planned{
		mk("A", "cpu-small", 1e3),    // under the margin
		mk("A", "cpu-large", 64e6),   // judgeable, larger than the next
		mk("A", "cpu-mid", 200e3),    // judgeable: the smallest, kept
		mk("A", "llama-decode", 2e5), // not a cpu-* row
		mk("B", "cpu-large", 64e6),   // B's only judgeable case
		mk("C", "cpu-small", 10e3),   // C has none
	}
	skipped := mk("D", "cpu-large", 64e6)
	skipped.Skip = SkipNoBuilder
	plans = append(plans, skipped)

	kept := func(ps []Planned) string {
		var names []string
		for _, p := range ps {
			if p.Skip == "" {
				names = append(names, p.Case.Case.Op+"/"+p.Case.Case.Label)
			}
		}
		return strings.Join(names, " ")
	}
	out := Judge(plans, prof, floor, false)
	if got, want := kept(out), "A/cpu-mid B/cpu-large"; got != want {
		t.Errorf("kept %q, want %q", got, want)
	}
	if out[1].Skip != SkipJudgeLarger || out[3].Skip != SkipJudgeNotCPU || !strings.Contains(out[0].Skip, "under 10 x the latency floor") ||
		out[6].Skip != SkipNoBuilder || !IsJudgeSkip(out[0].Skip) || IsJudgeSkip(SkipNoBuilder) {
		t.Errorf("skip reasons: %q", []string{out[0].Skip, out[1].Skip, out[3].Skip, out[6].Skip})
	}
	if plans[1].Skip != "" {
		t.Error("Judge changed its input")
	}
	// Warm, A's 200 kB case fits the 4 MiB cache: its 64 MB one is the smallest that streams.
	if got, want := kept(Judge(plans, prof, floor, true)), "A/cpu-large B/cpu-large"; got != want {
		t.Errorf("warm: kept %q, want %q", got, want)
	}
}
