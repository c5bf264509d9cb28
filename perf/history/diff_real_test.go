package history_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/record"
)

// makeRun reads the records of testdata/make-runs/run<i>: the quick and the chart rows of a
// real make run (one record a row, each the median of its samples with their fastest and
// slowest), five runs of one commit on a shared 2-core machine. chart says which rows are
// the chart's: the judged kernels, timed with many samples.
func makeRun(t *testing.T, i int) (recs []record.Record, chart map[string]bool) {
	t.Helper()
	return readRun(t, "make-runs", fmt.Sprintf("run%d", i))
}

// readRun reads the records of testdata/dir/run-quick.txt.gz and run-chart.txt.gz, as
// makeRun.
func readRun(t *testing.T, dir, run string) (recs []record.Record, chart map[string]bool) {
	t.Helper()
	chart = map[string]bool{}
	for _, part := range []string{"quick", "chart"} {
		f, err := os.Open(filepath.Join("testdata", dir, fmt.Sprintf("%s-%s.txt.gz", run, part)))
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		rs, fs := record.ReadBench(z, fmt.Sprintf("%s/%s.txt", run, part))
		f.Close()
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		for j := range rs {
			if part == "chart" && !rs[j].IsReference() {
				chart[rs[j].Op+"/"+rs[j].Workload+"/"+rs[j].DType] = true
			}
		}
		recs = append(recs, rs...)
	}
	return recs, chart
}

// slowed returns recs with every sample of the row name (its time, fastest and slowest)
// made factor times slower.
func slowed(recs []record.Record, name string, factor float64) []record.Record {
	out := make([]record.Record, len(recs))
	copy(out, recs)
	for i := range out {
		if r := &out[i]; r.Op+"/"+r.Workload+"/"+r.DType == name {
			r.Seconds, r.MinSeconds, r.MaxSeconds = factor*r.Seconds, factor*r.MinSeconds, factor*r.MaxSeconds
		}
	}
	return out
}

// TestDiffRealMakeRuns: two real make runs of one commit are no regression, whichever two
// consecutive runs they are, with no other run in the history. And in every such pair each
// judged row timed with a same-time DRAM reference (the chart's DRAM-sized rows), made 2x
// slower in the second run, is named, alone, in all but a few of the cases: the runs were
// taken on a shared machine under its other users' load, which moved a few such rows by a
// third between runs of one commit, and a row that ran that much faster by chance and was
// made twice as slow is within that. The rows timed with a compute probe only lie among the
// quick run's rows of their kind, whose drift is wide: two runs cannot name theirs every
// time, and the test reports how often they do; the row's own spread over a longer history
// is what judges them.
func TestDiffRealMakeRuns(t *testing.T) {
	ctx := context.Background()
	var named, cases, probeNamed, probeCases int
	for i := 1; i < 5; i++ {
		a, chart := makeRun(t, i)
		b, _ := makeRun(t, i+1)
		diff := func(b []record.Record) *history.Diff {
			s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
			for _, recs := range [][]record.Record{a, b} {
				if _, _, err := s.Add(ctx, &history.Run{Time: time.Now(), Commit: "c"}, recs, nil); err != nil {
					t.Fatal(err)
				}
			}
			return diffLast(t, s)
		}
		d := diff(b)
		for _, r := range d.Regressions() {
			t.Errorf("runs %d and %d, one commit: %s named %+.1f%% (%s: %s)", i, i+1, r.Name(), 100*(r.Ratio-1), r.Test, r.Why)
		}
		dram := map[string]bool{}
		for j := range b {
			if b[j].RefRate > 0 {
				dram[b[j].Op+"/"+b[j].Workload+"/"+b[j].DType] = true
			}
		}
		for name := range chart {
			d := diff(slowed(b, name, 2))
			regs := d.Regressions()
			for _, r := range regs {
				if r.Name() != name {
					t.Errorf("runs %d and %d, %s made 2x slower in the second: %s named too (%s)", i, i+1, name, r.Name(), r.Why)
				}
			}
			ok := len(regs) > 0 && regs[len(regs)-1].Name() == name || len(regs) > 0 && regs[0].Name() == name
			if !dram[name] {
				probeCases++
				if ok {
					probeNamed++
				}
				continue
			}
			cases++
			if ok {
				named++
				continue
			}
			for _, r := range d.Rows {
				if r.Name() == name {
					t.Logf("runs %d and %d, %s made 2x slower in the second, not named: %s: %s", i, i+1, name, r.Test, r.Why)
				}
			}
		}
	}
	t.Logf("DRAM-referenced judged rows made 2x slower: %d of %d named; compute-probed: %d of %d", named, cases, probeNamed, probeCases)
	if cases == 0 || float64(named) < 0.95*float64(cases) {
		t.Errorf("DRAM-referenced judged rows made 2x slower: %d of %d named, want 95%% or more", named, cases)
	}
}

// TestDiffRealMakeRunsWithHistory: with the five real runs of one commit in the history, the
// rows' own run-to-run spread applies; a DRAM-sized row's time moved with the machine's
// bandwidth between those runs by far more than its time over its same-time reference did,
// so its own spread is read on the latter. A sixth run (run 4's records again) is no
// regression, and the same run with a judged DRAM-referenced row made 2x slower names it,
// which the rows' own spread of their time alone hid.
func TestDiffRealMakeRunsWithHistory(t *testing.T) {
	ctx := context.Background()
	var runs [][]record.Record
	for i := 1; i <= 5; i++ {
		recs, _ := makeRun(t, i)
		runs = append(runs, recs)
	}
	again, chart := makeRun(t, 4)
	// The history stores a run once: run 4's records again, each a thousandth slower, are
	// another run with run 4's spreads.
	for j := range again {
		again[j].Seconds *= 1.001
	}
	diff := func(last []record.Record) *history.Diff {
		s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
		for _, recs := range append(slices.Clone(runs), last) {
			if _, _, err := s.Add(ctx, &history.Run{Time: time.Now(), Commit: "c"}, recs, nil); err != nil {
				t.Fatal(err)
			}
		}
		return diffLast(t, s)
	}
	d := diff(again)
	if d.History < history.DefaultDiff.MinHistory {
		t.Fatalf("the diff read %d runs of history, want %d or more", d.History, history.DefaultDiff.MinHistory)
	}
	for _, r := range d.Regressions() {
		t.Errorf("run 4's records after run 5, one commit: %s named %+.1f%% (%s: %s)", r.Name(), 100*(r.Ratio-1), r.Test, r.Why)
	}
	var named, cases, probeNamed, probeCases int
	for name := range chart {
		dram := false
		for j := range again {
			if again[j].RefRate > 0 && again[j].Op+"/"+again[j].Workload+"/"+again[j].DType == name {
				dram = true
			}
		}
		d := diff(slowed(again, name, 2))
		ok := false
		if regs := d.Regressions(); len(regs) == 1 && regs[0].Name() == name {
			ok = true
		}
		if !dram {
			// A compute-probed row: counted, not held to the DRAM rows' rate.
			probeCases++
			if ok {
				probeNamed++
			}
			for _, r := range d.Rows {
				if r.Name() == name && !ok {
					t.Logf("%s (compute-probed) made 2x slower, not named alone: %s: %s", name, r.Test, r.Why)
				}
			}
			continue
		}
		cases++
		if ok {
			named++
			continue
		}
		for _, r := range d.Rows {
			if r.Name() == name {
				t.Logf("%s made 2x slower, not named alone: %s: %s", name, r.Test, r.Why)
			}
		}
	}
	// These runs' bench paired each row with whichever reference pattern ran faster, which
	// changed between runs: a few rows' time over their reference swings far from run to
	// run in them, and their own spread rightly hides a 2x there.
	t.Logf("judged rows made 2x slower after five runs: DRAM-referenced %d of %d named, compute-probed %d of %d", named, cases, probeNamed, probeCases)
	if cases == 0 || float64(named) < 0.9*float64(cases) {
		t.Errorf("DRAM-referenced judged rows made 2x slower after five runs: %d of %d named, want 90%% or more", named, cases)
	}
}

// TestDiffRealQuietRunsAndASlowedKernel: five real make runs of one commit on a quiet host
// (testdata/quiet-runs, load 1.5-1.8), then a real run of a tree whose ReluFwd runs its
// kernel twice (scripts/history-acceptance.sh's slowed run, timed after them). Every
// consecutive pair of the five is no regression, with the history each diff had when its
// run was added: between runs 2 and 3, with two runs of history, SumFwd's time over its
// same-time reference moved by 31%, beyond its peers' drift and with the intervals of its
// medians apart, but the bulk of its new samples lay within its base's (pacedBulk). The
// slowed run names ReluFwd's rows alone, against the last run with 1 to 5 runs of history.
func TestDiffRealQuietRunsAndASlowedKernel(t *testing.T) {
	ctx := context.Background()
	var runs [][]record.Record
	for i := 1; i <= 5; i++ {
		recs, _ := readRun(t, "quiet-runs", fmt.Sprintf("run%d", i))
		runs = append(runs, recs)
	}
	slow, _ := readRun(t, "quiet-runs", "slow")
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	for i, recs := range runs {
		if _, _, err := s.Add(ctx, &history.Run{Time: time.Now(), Commit: "c"}, recs, nil); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue
		}
		for _, r := range diffLast(t, s).Regressions() {
			t.Errorf("runs %d and %d, one commit: %s named %+.1f%% (%s: %s)", i, i+1, r.Name(), 100*(r.Ratio-1), r.Test, r.Why)
		}
	}
	for k := 1; k <= len(runs); k++ {
		s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
		for _, recs := range append(slices.Clone(runs[len(runs)-k:]), slow) {
			if _, _, err := s.Add(ctx, &history.Run{Time: time.Now(), Commit: "c"}, recs, nil); err != nil {
				t.Fatal(err)
			}
		}
		d := diffLast(t, s)
		regs := d.Regressions()
		named := false
		for _, r := range regs {
			switch {
			case r.Name() == "ReluFwd/cpu-large/float32":
				named = true
			case !strings.HasPrefix(r.Name(), "ReluFwd/"):
				t.Errorf("ReluFwd 2x slower after %d run(s): %s named too (%s: %s)", k, r.Name(), r.Test, r.Why)
			}
		}
		if !named {
			for _, r := range d.Rows {
				if r.Name() == "ReluFwd/cpu-large/float32" {
					t.Errorf("ReluFwd 2x slower after %d run(s): its judged row not named: %s: %s", k, r.Test, r.Why)
				}
			}
		}
	}
}
