package render

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// run returns count records per op, each op's times drawn around base[op] × factor[op] with
// the relative noise given (uniform in ±noise), shuffled by rng.
func run(rng *rand.Rand, ops []string, count int, noise float64, factor map[string]float64) []record.Record {
	var recs []record.Record
	for c := 0; c < count; c++ {
		for i, op := range ops {
			r := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)*(1+float64(i)/10))
			r.Op = op
			f := factor[op]
			if f == 0 {
				f = 1
			}
			r.Seconds *= f * (1 + noise*(2*rng.Float64()-1))
			recs = append(recs, r)
		}
	}
	return recs
}

func compareRuns(t *testing.T, old, new []record.Record) *Comparison {
	t.Helper()
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	o, n := report.Group(old), report.Group(new)
	return Compare(o, n, p.PriceAll(report.Records(o)), p.PriceAll(report.Records(n)), DefaultCompare)
}

func TestCompareSlowedKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ops := []string{"A", "B", "C", "D", "E", "F", "G", "H"}
	old := run(rng, ops, 6, 0.05, nil)
	new := run(rng, ops, 6, 0.05, map[string]float64{"C": 1.5, "F": 0.7})
	c := compareRuns(t, old, new)
	ds := c.Deltas
	if len(ds) != len(ops) {
		t.Fatalf("%d deltas, want %d", len(ds), len(ops))
	}
	for _, d := range ds {
		want := Unchanged
		switch d.New.Op {
		case "C":
			want = Slower
		case "F":
			want = Faster
		}
		if d.Change != want {
			t.Errorf("%s: %s (ratio %.3f p %.4f %s), want %s", d.Name(), d.Change, d.Ratio, d.P, d.Why, want)
		}
		if d.New.Op == "C" && (math.Abs(d.Ratio-1.5) > 0.1 || d.P > 0.01 || math.Abs(d.EffDelta-(1/1.5-1)*d.OldRow.Efficiency) > 0.05) {
			t.Errorf("C: ratio %v p %v efficiency change %v", d.Ratio, d.P, d.EffDelta)
		}
	}
	n := Tally(ds)
	if n[Slower] != 1 || n[Faster] != 1 || n[Unchanged] != 6 {
		t.Errorf("tally %v", n)
	}
	var buf bytes.Buffer
	if err := WriteCompare(&buf, c); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "8 rows: 1 faster, 1 slower, 6 unchanged") || !strings.Contains(out, "C/w/float32") {
		t.Errorf("comparison table:\n%s", out)
	}
}

// TestCompareAA: two runs of the same distribution mark at most 5% of rows, with room to
// spare: the minimum effect absorbs what the U test alone would flag at its 5% rate.
func TestCompareAA(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ops []string
	for i := range 200 {
		ops = append(ops, "Op"+string(rune('A'+i%26))+string(rune('a'+i/26)))
	}
	ds := compareRuns(t, run(rng, ops, 6, 0.15, nil), run(rng, ops, 6, 0.15, nil)).Deltas
	n := Tally(ds)
	if marked := n[Faster] + n[Slower]; marked > len(ops)/20 {
		t.Errorf("A/A: %d of %d rows marked", marked, len(ops))
	}
	// The U test alone flags some: the effect size is what spares them.
	why := 0
	for _, d := range ds {
		if strings.Contains(d.Why, "minimum effect") || strings.Contains(d.Why, "drift") {
			why++
		}
	}
	if why == 0 {
		t.Errorf("no A/A row had p < 0.05: the test would not show the minimum effect at work")
	}
}

// TestCompareOverlap: two A/A rows measured on this host (ropbench run -quick -count 6, two
// runs back to back), each marked by the U test, the minimum effect and the drift rule: one
// ran at two speeds in one run (records at 23 µs and 53 µs), one stepped down part way
// through its records. Their records overlap, so neither is a change; a kernel slowed 1.5x,
// whose every record moves, is still slower. The other rows scatter by about 3% between
// the runs, so the drift rule alone would let both A/A rows through.
func TestCompareOverlap(t *testing.T) {
	us := func(name string, vs ...float64) []record.Record {
		var recs []record.Record
		for _, v := range vs {
			r := reporttest.Rec("vector.fp32", 1<<10, 1<<12, v*1e-6)
			r.Op = name
			recs = append(recs, r)
		}
		return recs
	}
	old := slices.Concat(
		us("Bimodal", 26.59, 25.28, 22.94, 22.33, 21.64, 22.54), // GemmFwd/cpu-ragged/bfloat16
		us("Step", 31.71, 30.11, 30.79, 30.25, 29.63, 29.88),    // MaxPool2dFwd/cpu-2x2/float32
		us("Slowed", 16.1, 15.2, 17.3, 16.6, 15.9, 19.4))
	new := slices.Concat(
		us("Bimodal", 59.86, 23.74, 53.48, 53.80, 22.85, 46.00),
		us("Step", 30.26, 27.82, 21.06, 20.19, 20.84, 20.90),
		us("Slowed", 25.9, 24.1, 26.2, 28.8, 24.6, 25.3)) // + 10 µs a call
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 20 {
		op := "Steady" + string(rune('A'+i))
		base := 10 + float64(i)
		for _, recs := range []*[]record.Record{&old, &new} {
			shift := 1 + 0.03*(2*rng.Float64()-1)
			var vs []float64
			for range 6 {
				vs = append(vs, base*shift*(1+0.02*(2*rng.Float64()-1)))
			}
			*recs = append(*recs, us(op, vs...)...)
		}
	}
	c := compareRuns(t, old, new)
	for _, d := range c.Deltas {
		want := Unchanged
		if d.New.Op == "Slowed" {
			want = Slower
		}
		if d.Change != want {
			t.Errorf("%s: %s (ratio %.3f p %.3f, %s), want %s", d.Name(), d.Change, d.Ratio, d.P, d.Why, want)
		}
		if (d.New.Op == "Bimodal" || d.New.Op == "Step") && (d.P >= 0.05 || driftOff(d.Ratio, c.Shift) < math.Log1p(c.Threshold) || !strings.Contains(d.Why, "records overlap")) {
			t.Errorf("%s: p %.3f, ratio %.3f against the drift threshold %.0f%%, why %q: the overlap rule is not what decides this row", d.Name(), d.P, d.Ratio, 100*c.Threshold, d.Why)
		}
	}
	if d := c.Deltas[0]; !strings.Contains(d.Why, "base 21.6µs..26.6µs, new 22.9µs..59.9µs") {
		t.Errorf("Bimodal: why %q should give both runs' ranges", d.Why)
	}
}

func TestCompareEdges(t *testing.T) {
	a := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1e-3)
	slow := a
	slow.Seconds = 2e-3
	gone, added := a, a
	gone.Op, added.Op = "Gone", "New"
	// Two samples a side cannot reach p < 0.05, however far apart.
	c := compareRuns(t, []record.Record{a, a, gone}, []record.Record{slow, slow, added})
	ds := c.Deltas
	if len(ds) != 3 {
		t.Fatalf("%d deltas", len(ds))
	}
	if ds[0].Change != Unchanged || !strings.Contains(ds[0].Why, "-count 6") || ds[0].Ratio != 2 {
		t.Errorf("2+2 samples: %s %q ratio %v", ds[0].Change, ds[0].Why, ds[0].Ratio)
	}
	if ds[1].Change != Added || ds[2].Change != Removed || ds[2].Name() != "Gone/w/float32" {
		t.Errorf("added/removed: %s %s %s", ds[1].Change, ds[2].Change, ds[2].Name())
	}
	if !strings.Contains(c.Summary(), "1 only in the new run, 1 only in the base") {
		t.Errorf("summary %q", c.Summary())
	}
	// A verdict change is one.
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	fast := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)/0.9)
	half := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)/0.5)
	o := report.Group([]record.Record{half})
	n := report.Group([]record.Record{fast})
	d := Compare(o, n, p.PriceAll(report.Records(o)), p.PriceAll(report.Records(n)), DefaultCompare).Deltas
	if !d[0].VerdictChanged() || verdictText(&d[0]) != "below → at ceiling" {
		t.Errorf("verdict change %v %q", d[0].VerdictChanged(), verdictText(&d[0]))
	}
}

// TestCompareDrift: the second run is 30% slower on every row (the machine was busier) and
// one op is slowed 2x on top: that op alone is slower, judged against the typical row.
func TestCompareDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ops []string
	factor := map[string]float64{}
	for i := range 20 {
		op := "Op" + string(rune('A'+i))
		ops = append(ops, op)
		factor[op] = 1.3 * (1 + 0.03*(rng.Float64()-0.5))
	}
	factor["OpE"] = 2 * 1.3
	c := compareRuns(t, run(rng, ops, 6, 0.02, nil), run(rng, ops, 6, 0.02, factor))
	for _, d := range c.Deltas {
		want := Unchanged
		if d.New.Op == "OpE" {
			want = Slower
		}
		if d.Change != want {
			t.Errorf("%s: %s (ratio %.3f, %s), want %s", d.Name(), d.Change, d.Ratio, d.Why, want)
		}
	}
	if math.Abs(c.Shift-0.3) > 0.03 || c.Warning() == "" {
		t.Errorf("shift %v, warning %q: want +30%% and a note", c.Shift, c.Warning())
	}
}
