package bench

import (
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// TestPredictIsTheReportsPrice: a prediction and the report's row of the same counts are
// priced by one core, so every cell agrees, blank or not, on every roof the profiles have or
// lack.
func TestPredictIsTheReportsPrice(t *testing.T) {
	for _, name := range []string{"h200", "a100-sxm-80gb"} {
		prof, err := profiles.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, basis := range []profiles.Basis{profiles.Effective, profiles.Theoretical} {
			for _, roof := range []string{"cube.bf16", "cube.fp32", "vector.fp32"} {
				for _, w := range []struct{ f, b int64 }{{0, 1 << 20}, {1 << 30, 1 << 20}, {1 << 10, 1 << 30}, {5, 0}} {
					p := Planned{Flops: w.f, Bytes: w.b, Roof: roof}
					pr := Predict(p, prof, basis)
					rec := record.Record{Device: prof.Device, Op: "Op", Workload: "w", DType: "x", Roof: roof, Flops: w.f, Bytes: w.b, Seconds: 1}
					row := report.NewPricer(prof, nil, basis).Price(&rec)
					if !sameSOL(pr.SOL, row.SOL) {
						t.Errorf("%s %s %s %v: predict %+v, report %+v", name, basis, roof, w, pr.SOL, row.SOL)
					}
				}
			}
		}
	}
}

func sameSOL(a, b report.SOL) bool {
	eq := func(x, y float64) bool { return x == y || (x != x && y != y) }
	return eq(a.Bandwidth, b.Bandwidth) && eq(a.Peak, b.Peak) && eq(a.Intensity, b.Intensity) && eq(a.Ridge, b.Ridge) &&
		eq(a.MemoryTime, b.MemoryTime) && eq(a.ComputeTime, b.ComputeTime) && eq(a.SOLTime, b.SOLTime) &&
		eq(a.Attainable, b.Attainable) && eq(a.PeakShare, b.PeakShare) && a.Bound == b.Bound && a.Note == b.Note
}
