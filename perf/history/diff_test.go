package history_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/render"
)

// addRuns adds n synthetic runs of rows rows, count records a row, noise noise; slow makes
// rows slower in the last run. It returns the runs, oldest first.
func addRuns(t testing.TB, s *history.Store, seed uint64, n, rows, count int, noise float64, slow map[int]float64) []history.Run {
	t.Helper()
	for i := range n {
		var sl map[int]float64
		if i == n-1 {
			sl = slow
		}
		add(t, s, synth(rand.New(rand.NewPCG(seed, uint64(i))), rows, count, noise, sl), "c"+string(rune('a'+i%26)))
	}
	runs, err := s.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func diffLast(t *testing.T, s *history.Store) *history.Diff {
	t.Helper()
	a, b, ok, err := s.Latest(context.Background())
	if err != nil || !ok {
		t.Fatalf("Latest: %v, %v", ok, err)
	}
	d, err := s.Diff(context.Background(), a, b, history.DefaultDiff)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDiffTellsRegressionFromNoise: runs of one record a row (as make run times them), 3%
// noise between runs and within a row: a run of the same code is no regression, and a row
// made 2x slower is one, decided by the row's own history; with too little history, by the
// runs' drift. For each of several seeds: a noise level no seed may turn into a regression.
func TestDiffTellsRegressionFromNoise(t *testing.T) {
	for seed := range uint64(5) {
		s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
		addRuns(t, s, seed, 8, 60, 1, 0.03, nil)
		if d := diffLast(t, s); len(d.Regressions()) > 0 {
			r := d.Regressions()[0]
			t.Errorf("seed %d: two runs of the same code: %d regressions, first %s %+.1f%% (%s: %s)", seed, len(d.Regressions()), r.Name(), 100*(r.Ratio-1), r.Test, r.Why)
		}
		addRuns(t, s, seed+100, 1, 60, 1, 0.03, map[int]float64{17: 2})
		d := diffLast(t, s)
		regs := d.Regressions()
		if len(regs) != 1 || regs[0].Name() != "AddFwd/w017/float32" {
			t.Errorf("seed %d: a row made 2x slower: regressions %v, want AddFwd/w017/float32 alone", seed, names(regs))
			continue
		}
		if r := regs[0]; r.Test != history.TestHistory || d.History != 8 || !(r.Lo > 1.5 && r.Hi < 2.7) {
			t.Errorf("seed %d: %s decided by %q over %d runs, interval [%.2f, %.2f]; want the row's history over 8 runs, an interval about 2x", seed, r.Name(), r.Test, d.History, r.Lo, r.Hi)
		}
	}
	// Two runs, no history: the runs' drift decides.
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	addRuns(t, s, 7, 1, 60, 1, 0.03, nil)
	addRuns(t, s, 8, 1, 60, 1, 0.03, map[int]float64{3: 2})
	d := diffLast(t, s)
	if regs := d.Regressions(); len(regs) != 1 || regs[0].Name() != "AddFwd/w003/float32" || regs[0].Test != history.TestDrift {
		t.Errorf("two runs: regressions %v, want AddFwd/w003/float32 by the runs' drift", names(regs))
	}
}

// TestDiffRowSpreadOverridesUTest: a row that is noisy from run to run (it swings ±25%
// whatever the code does) gets through report -base's U test, and the runs' drift, which the
// other, quiet rows set; its own history says the swing is its normal.
func TestDiffRowSpreadOverridesUTest(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	for i := range 9 {
		swing := map[int]float64{5: 1.0}
		if i%2 == 1 {
			swing[5] = 1.3
		}
		add(t, s, synth(rand.New(rand.NewPCG(42, uint64(i))), 40, 6, 0.01, swing), "c")
	}
	d := diffLast(t, s)
	var row *history.RowDiff
	for i := range d.Rows {
		if d.Rows[i].Name() == "AddFwd/w005/float32" {
			row = &d.Rows[i]
		}
	}
	if row == nil || row.Test != history.TestU || row.Change != render.Unchanged || row.Pairs < 4 {
		t.Fatalf("the swinging row: %+v; want decided by the U test, unchanged by its own spread", row)
	}
	if row.Delta.P >= 0.05 {
		t.Errorf("p = %.3f: the test does not exercise the row spread (the U test alone keeps it)", row.Delta.P)
	}
	// And 6 records a row, a row 2x slower: the U test decides it.
	add(t, s, synth(rand.New(rand.NewPCG(43, 1)), 40, 6, 0.01, map[int]float64{9: 2}), "c")
	d = diffLast(t, s)
	if regs := d.Regressions(); len(regs) != 1 || regs[0].Name() != "AddFwd/w009/float32" || regs[0].Test != history.TestU {
		t.Errorf("6 records a row, one 2x slower: regressions %v, want AddFwd/w009/float32 by the U test", names(regs))
	}
}

// TestDiffNeedsMeasuredNoise: two runs of three rows, one record each: no noise is measured,
// so not even 2x counts.
func TestDiffNeedsMeasuredNoise(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	addRuns(t, s, 1, 1, 3, 1, 0.01, nil)
	addRuns(t, s, 2, 1, 3, 1, 0.01, map[int]float64{1: 2})
	d := diffLast(t, s)
	if len(d.Regressions()) != 0 {
		t.Errorf("regressions %v with no noise measured", names(d.Regressions()))
	}
	if d.Rows[1].Test != history.TestNone || d.Rows[1].Why == "" {
		t.Errorf("the 2x row: %q, %q; want test none, and why", d.Rows[1].Test, d.Rows[1].Why)
	}
}

func names(rs []*history.RowDiff) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name())
	}
	return out
}

// TestDiffIgnoresLoadedRuns: runs priced against a measurement refused under load (make run
// on a busy machine) are no part of a row's own run-to-run spread. Between quiet runs the load
// moved half the rows 2x: counted, those moves make every row's spread wide enough to hide a
// row made 2x slower; left out, that row is named.
func TestDiffIgnoresLoadedRuns(t *testing.T) {
	loaded := &history.Profile{Name: "host-loaded", Source: "host-loaded.yaml", Text: []byte(testProfile +
		"measured: {at: \"2026-12-07T14:00:00Z\", refused: [\"the DRAM envelope: the median round is 50% below the best\"]}\n")}
	half := map[int]float64{}
	for i := 0; i < 60; i += 2 {
		half[i] = 2
	}
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	for i, busy := range []bool{false, false, true, false, true, false, true, false} {
		rng := rand.New(rand.NewPCG(7, uint64(i)))
		meta := &history.Run{Time: time.Now(), Commit: "c", Host: "test", Version: "test", Command: "test"}
		prof, slow := profile(), map[int]float64(nil)
		if busy {
			prof, slow = loaded, half
		}
		if _, _, err := s.Add(context.Background(), meta, synth(rng, 60, 1, 0.03, slow), prof); err != nil {
			t.Fatal(err)
		}
	}
	addRuns(t, s, 99, 1, 60, 1, 0.03, map[int]float64{17: 2})
	regs := diffLast(t, s).Regressions()
	if len(regs) != 1 || regs[0].Name() != "AddFwd/w017/float32" {
		t.Errorf("a row made 2x slower after busy runs: regressions %v, want AddFwd/w017/float32 alone", names(regs))
	}
}

// pacedRun returns the records of one synthetic make run of 40 rows timed with a same-time
// DRAM reference, one record a row of many samples: the machine's bandwidth that run is
// machine (of 8 GB/s), which moves every row's time and its reference's rate alike; each
// row's time over its reference moves by 3% from run to run (rng); the median's 99% interval
// of time × rate is ±2%, and the samples spread from 15% below the median to 30% above.
// move[i] moves row i's time over its reference, and fastest[i] sets its fastest sample
// (as a fraction of its median) where given.
func pacedRun(rng *rand.Rand, machine float64, move, fastest map[int]float64) []record.Record {
	var recs []record.Record
	for i := range 40 {
		bytes := int64(4<<20) * int64(i+1)
		rate := 8e9 * machine
		t := float64(bytes) / rate * math.Exp(0.03*rng.NormFloat64())
		if f, ok := move[i]; ok {
			t *= f
		}
		lo := 0.85
		if f, ok := fastest[i]; ok {
			lo = f
		}
		recs = append(recs, record.Record{Device: testDevice, Op: "AddFwd", Workload: fmt.Sprintf("w%03d", i), DType: "float32",
			Roof: "vector.fp32", Flops: bytes / 12, Bytes: bytes, Seconds: t, MinSeconds: lo * t, MaxSeconds: 1.3 * t, Iters: 30,
			RefRate: rate, RefRateLow: 0.98 * rate, RefRateHigh: 1.02 * rate})
	}
	return recs
}

// TestDiffSwingingRowWithinItsSamples: with two runs of history (too few for the rows' own
// spread), a row whose time over its same-time reference moved by 31% between two runs of
// the same code, ten times its peers' spread, while its new run's samples reach 28% below
// its median (as SumFwd's did between two real make runs) is within its own samples' spread:
// the intervals of the two medians are apart, but the bulk of its new samples is not beyond
// the base's median. A row made 2x slower in the same runs, samples and all, is named.
func TestDiffSwingingRowWithinItsSamples(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	for i, machine := range []float64{1, 0.9} {
		add(t, s, pacedRun(rand.New(rand.NewPCG(3, uint64(i))), machine, nil, nil), "c")
	}
	add(t, s, pacedRun(rand.New(rand.NewPCG(3, 2)), 0.95, map[int]float64{21: 1.31, 9: 2}, map[int]float64{21: 0.72}), "c")
	d := diffLast(t, s)
	if d.History != 0 {
		t.Fatalf("history of %d runs, want too few for the rows' own spread", d.History)
	}
	if regs := d.Regressions(); len(regs) != 1 || regs[0].Name() != "AddFwd/w009/float32" {
		t.Errorf("regressions %v, want AddFwd/w009/float32 alone (the 2x row; the swinging row w021 is within its samples)", names(regs))
	}
	for _, r := range d.Rows {
		if r.Name() == "AddFwd/w021/float32" && (r.Change != render.Unchanged || !strings.Contains(r.Why, "paced by their same-time reference mix")) {
			t.Errorf("the swinging row: %s, %q; want unchanged: its samples paced by the reference mix", r.Change, r.Why)
		}
	}
}

// TestDiffOwnSpreadOffItsPeers: a long row's own run-to-run spread is measured off the move
// of its peers (the rows of its kind nearest its time), not off the move of every row: here
// forty short rows swing ±40% together from run to run while ten long rows hold within 3%,
// and a long row made 2x slower is named; measured off the median of all rows, the swing of
// the short rows would be the long rows' spread, and hide it.
func TestDiffOwnSpreadOffItsPeers(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	run := func(i int, slow float64) []record.Record {
		rng := rand.New(rand.NewPCG(11, uint64(i)))
		swing := 1.0
		if i%2 == 1 {
			swing = 1.4
		}
		var recs []record.Record
		for j := range 50 {
			secs, f := 2e-6*float64(1+j%4), swing
			if j >= 40 {
				secs, f = 2e-3*float64(j-39), math.Exp(0.03*rng.NormFloat64())
				if j == 45 {
					f *= slow
				}
			}
			secs *= f
			recs = append(recs, record.Record{Device: testDevice, Op: "AddFwd", Workload: fmt.Sprintf("w%03d", j), DType: "float32",
				Roof: "vector.fp32", Flops: 1 << 10, Bytes: int64(secs * 8e9), Seconds: secs, MinSeconds: secs * 0.995, MaxSeconds: secs * 1.005, Iters: 10})
		}
		return recs
	}
	for i := range 8 {
		add(t, s, run(i, 1), "c")
	}
	add(t, s, run(8, 2), "c")
	d := diffLast(t, s)
	if regs := d.Regressions(); len(regs) != 1 || regs[0].Name() != "AddFwd/w045/float32" {
		for _, r := range d.Rows {
			if r.Name() == "AddFwd/w045/float32" {
				t.Logf("w045: %s: %s", r.Test, r.Why)
			}
		}
		t.Errorf("a long row made 2x slower among short rows that swing: regressions %v, want AddFwd/w045/float32 alone", names(regs))
	}
}
