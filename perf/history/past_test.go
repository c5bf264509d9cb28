package history_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/history/historytest"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// loadedProfile is testProfile as a calibration refused under load writes it.
const loadedProfile = testProfile + `measured:
  at: "2026-01-02T03:04:05Z"
  refused: ["the load average rose during the measurement"]
`

// TestPastOf: a row's past is its judged efficiency over the device's latest runs, each
// priced against its own profile, leaving out the run being priced and the runs whose
// profile was measured under load.
func TestPastOf(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		ctx := context.Background()
		s := open(t, db.DSN, true)
		// One row at the efficiency asked: 80 MiB at 10 GB/s on the test profile.
		run := func(eff float64, device string) []record.Record {
			secs := float64(80<<20) / 10e9 / eff
			return []record.Record{{Device: device, Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32",
				Flops: 1, Bytes: 80 << 20, Seconds: secs, MinSeconds: secs, MaxSeconds: secs, Iters: 15}}
		}
		addAs := func(recs []record.Record, prof string) {
			t.Helper()
			meta := &history.Run{Time: time.Now(), Commit: "c", Host: "test", Version: "test", Command: "test"}
			p := &history.Profile{Name: "test", Source: "test.yaml", Text: []byte(prof)}
			if _, _, err := s.Add(ctx, meta, recs, p); err != nil {
				t.Fatal(err)
			}
		}
		addAs(run(0.6, testDevice), testProfile)
		addAs(run(0.9, testDevice), testProfile)
		addAs(run(0.3, testDevice), loadedProfile)
		addAs(run(0.1, "cpu: Another Device"), testProfile)
		now := run(0.85, testDevice)
		addAs(now, testProfile)
		digest, err := history.Digest(now)
		if err != nil {
			t.Fatal(err)
		}
		key := report.RowKey{Op: "AddFwd", Workload: "w", DType: "float32"}
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		for _, c := range []struct {
			name      string
			skip      string
			n         int
			low, high float64
			runs      int
		}{
			{"the run being priced left out", digest, 10, 0.6, 0.9, 2},
			{"with it", "", 10, 0.6, 0.9, 3},
			{"the latest quiet run only", "", 1, 0.85, 0.85, 1},
			{"the latest but the run being priced", digest, 1, 0.9, 0.9, 1},
		} {
			past, err := s.PastOf(ctx, testDevice, c.skip, c.n)
			if err != nil {
				t.Fatal(err)
			}
			p := past[key]
			if !near(p.Low, c.low) || !near(p.High, c.high) || p.Runs != c.runs {
				t.Errorf("%s: past %+v, want %.2f-%.2f over %d runs", c.name, p, c.low, c.high, c.runs)
			}
		}
		other, err := s.PastOf(ctx, "cpu: No Such Device", "", 10)
		if err != nil || len(other) != 0 {
			t.Errorf("a device the history never saw: %v, %v", other, err)
		}
	})
}

// TestFloor: the judged cases are sized by the median cold-call floor of the device's
// latest quiet runs, not by a busy run's.
func TestFloor(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		ctx := context.Background()
		s := open(t, db.DSN, true)
		if f, n, err := s.Floor(ctx, testDevice, history.FloorRuns); err != nil || n != 0 || f != 0 {
			t.Errorf("an empty history: floor %g over %d runs, %v", f, n, err)
		}
		for i, c := range []struct {
			floor float64
			prof  string
		}{{2e-6, testProfile}, {6e-6, testProfile}, {100e-6, loadedProfile}, {4e-6, testProfile}} {
			recs := []record.Record{
				{Device: testDevice, Op: record.RefFloor, Workload: "CopyFwd:cpu-small", DType: "float32", Roof: "vector.fp32", Bytes: 1024, Seconds: c.floor, Iters: 9},
				{Device: testDevice, Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32", Bytes: 80 << 20, Seconds: 0.01 * float64(i+1), Iters: 15},
			}
			meta := &history.Run{Time: time.Now(), Commit: "c", Host: "test", Version: "test", Command: "test"}
			if _, _, err := s.Add(ctx, meta, recs, &history.Profile{Name: "test", Source: "test.yaml", Text: []byte(c.prof)}); err != nil {
				t.Fatal(err)
			}
		}
		f, n, err := s.Floor(ctx, testDevice, history.FloorRuns)
		if err != nil || n != 3 || math.Abs(f-4e-6) > 1e-12 {
			t.Errorf("floor %g over %d runs, %v; want 4e-06 over the 3 quiet runs", f, n, err)
		}
		if f, n, _ := s.Floor(ctx, testDevice, 1); n != 1 || math.Abs(f-4e-6) > 1e-12 {
			t.Errorf("the latest run alone: floor %g over %d runs", f, n)
		}
	})
}

// TestImplKeptApart: a harness's run (records of another implementation) is stored with its
// implementation, read back with it, kept apart from ropgen's own runs of the same rows in
// the series and the past, and a run of several implementations is refused.
func TestImplKeptApart(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		ctx := context.Background()
		s := open(t, db.DSN, true)
		row := func(impl string, secs float64) record.Record {
			return record.Record{Device: testDevice, Impl: impl, Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32",
				Bytes: 80 << 20, Seconds: secs, MinSeconds: secs, MaxSeconds: secs, Iters: 15}
		}
		own, torch := row("", 0.0105), row("torch", 0.05)
		add(t, s, []record.Record{own}, "c")
		add(t, s, []record.Record{torch}, "c")
		meta := &history.Run{Time: time.Now(), Commit: "c", Host: "test", Version: "test", Command: "test"}
		if _, _, err := s.Add(ctx, meta, []record.Record{own, torch}, profile()); err == nil || !strings.Contains(err.Error(), "2 implementations (ropgen, torch)") {
			t.Errorf("a run of two implementations: %v; want it refused", err)
		}
		runs, err := s.Runs(ctx)
		if err != nil || len(runs) != 2 {
			t.Fatalf("%d runs, %v", len(runs), err)
		}
		if runs[0].Impl != "" || runs[1].Impl != "torch" || runs[1].Track() != testDevice+" (torch)" || runs[0].Track() != testDevice {
			t.Errorf("runs' implementations %q %q, tracks %q %q", runs[0].Impl, runs[1].Impl, runs[0].Track(), runs[1].Track())
		}
		recs, err := s.Records(ctx, runs[1].ID)
		if err != nil || len(recs[runs[1].ID]) != 1 || recs[runs[1].ID][0].Impl != "torch" {
			t.Errorf("the torch run's records read back as %+v, %v", recs, err)
		}
		series, _, err := s.Series(ctx, history.Filter{})
		if err != nil || len(series) != 2 || series[0].Device != testDevice || series[1].Device != testDevice+" (torch)" {
			t.Errorf("series: %d, %v; want the two implementations' rows apart", len(series), err)
		}
		past, err := s.PastOf(ctx, testDevice, "", 10)
		key := report.RowKey{Op: "AddFwd", Workload: "w", DType: "float32"}
		if err != nil || past[key].Runs != 1 {
			t.Errorf("the past of ropgen's row: %+v, %v; want its own run only", past[key], err)
		}
	})
}

// TestDiffTracks: with no run given, a diff compares the latest run with the one before of
// its device and implementation, never a harness's run with ropgen's.
func TestDiffTracks(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		ctx := context.Background()
		s := open(t, db.DSN, true)
		row := func(impl string, secs float64) []record.Record {
			return []record.Record{{Device: testDevice, Impl: impl, Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32",
				Bytes: 80 << 20, Seconds: secs, MinSeconds: secs, MaxSeconds: secs, Iters: 15}}
		}
		own1, _ := add(t, s, row("", 0.0105), "c")
		add(t, s, row("torch", 0.05), "c")
		own2, _ := add(t, s, row("", 0.0106), "c")
		a, b, ok, err := s.Latest(ctx)
		if err != nil || !ok || a.ID != own1 || b.ID != own2 {
			t.Errorf("latest pair %d, %d (%v, %v); want ropgen's runs %d, %d", a.ID, b.ID, ok, err, own1, own2)
		}
		add(t, s, row("torch", 0.06), "c")
		if a, b, ok, _ := s.Latest(ctx); !ok || a.Impl != "torch" || b.Impl != "torch" {
			t.Errorf("latest pair %d (%q), %d (%q); want the two torch runs", a.ID, a.Impl, b.ID, b.Impl)
		}
	})
}

// TestQuietProfile: the host's earlier profile is the latest quiet one of this boot that a run
// of ropgen's kernels was priced against; a refused measurement, another boot's profile or a
// harness's run is none.
func TestQuietProfile(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		ctx := context.Background()
		s := open(t, db.DSN, true)
		addWith := func(prof, impl string, secs float64) int64 {
			t.Helper()
			recs := []record.Record{{Device: testDevice, Impl: impl, Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32",
				Bytes: 80 << 20, Seconds: secs, MinSeconds: secs, MaxSeconds: secs, Iters: 15}}
			meta := &history.Run{Time: time.Now(), Commit: "c", Host: "test", Version: "test", Command: "test"}
			id, _, err := s.Add(ctx, meta, recs, &history.Profile{Name: "test", Source: "test.yaml", Text: []byte(prof)})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		thisBoot := testProfile + "measured:\n  at: \"2026-01-02T03:04:05Z\"\n  boot_id: \"boot-a\"\n"
		if p, _, err := s.QuietProfile(ctx, testDevice, "boot-a"); err != nil || p != nil {
			t.Errorf("an empty history: %v, %v", p, err)
		}
		quiet := addWith(thisBoot, "", 0.01)
		addWith(loadedProfile, "", 0.02)
		addWith(testProfile+"# a harness's\n", "torch", 0.03)
		p, r, err := s.QuietProfile(ctx, testDevice, "boot-a")
		if err != nil || p == nil || r.ID != quiet || string(p.Text) != thisBoot {
			t.Errorf("this boot's: run %d, %v; want run %d's quiet profile", r.ID, err, quiet)
		}
		if p, _, err := s.QuietProfile(ctx, testDevice, "boot-b"); err != nil || p != nil {
			t.Errorf("another boot: %v, %v; want none", p, err)
		}
	})
}
