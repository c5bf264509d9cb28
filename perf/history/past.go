package history

import (
	"context"
	"math"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/stats"
)

// PastRuns is how many of a device's latest runs the report's verdicts read (report
// -history): enough that a row read on the other side of the line in one run of ten is seen
// at the line by most windows (none of 20 runs on that side: 0.9^20, 12% of windows; of
// 10, 35%), few enough that a kernel changed some commits ago stops counting after as many
// runs (until then it reads "at the line", its note giving both figures, and history diff
// names the change at once).
const PastRuns = 20

// FloorRuns is how many of a device's latest quiet runs the cold-call floor is the median of
// (Floor): the floor is the instrument's dispatch cost on the host, which a kernel's change
// does not move, and the median of one run's few cold calls moves by 2x between runs, so
// many runs make it stable enough that an op whose smallest case sits near the selection's
// threshold is judged in every run or in none.
const FloorRuns = 50

// PastOf returns, per row of device, its judged efficiency (report.Row.Judged) and its rate
// over its same-time reference where that ran uncontended (report.Row.RefRatio) over the
// device's latest n runs, each priced against its own profile, as report.Pricer.Past reads
// it. Left out: a run whose digest is skip (the run being priced, where it was added
// already), a run priced against a profile measured under load (its calibration was
// refused, so its figures are lower bounds, not the row's run-to-run spread), and a row
// whose verdict there was none of "at ceiling", "below", "at the line" or "inconclusive"
// (a latency-bound row, an anomaly or a formula error is no reading of the kernel). Only
// runs of ropgen's own kernels count (Run.Impl ""): report.Pricer.Past asks for no other's.
func (s *Store) PastOf(ctx context.Context, device, skip string, n int) (map[report.RowKey]report.Past, error) {
	pr := s.pricing()
	runs, recs, err := s.latestQuiet(ctx, pr, device, skip, n, nil)
	if err != nil {
		return nil, err
	}
	out := map[report.RowKey]report.Past{}
	for _, r := range runs {
		p, err := pr.price(ctx, r, recs[r.ID])
		if err != nil {
			return nil, err
		}
		for i := range p.Rows {
			row := &p.Rows[i]
			switch row.Verdict {
			case report.AtCeiling, report.Below, report.AtLine, report.Inconclusive:
			default:
				continue
			}
			if math.IsNaN(row.Judged) || math.IsInf(row.Judged, 0) {
				continue
			}
			k := report.KeyOf(&p.Sampled[i].Record)
			past, ok := out[k]
			if !ok {
				past = report.Past{Low: row.Judged, High: row.Judged}
			}
			past.Low, past.High = min(past.Low, row.Judged), max(past.High, row.Judged)
			past.Runs++
			if r := row.RefRatio; row.Contention == nil && r > 0 && !math.IsInf(r, 0) {
				if past.RatioRuns == 0 {
					past.RatioLow, past.RatioHigh = r, r
				}
				past.RatioLow, past.RatioHigh = min(past.RatioLow, r), max(past.RatioHigh, r)
				past.RatioRuns++
			}
			out[k] = past
		}
	}
	return out, nil
}

// Floor returns the median cold-call floor (the ref.floor record's time) over device's
// latest n runs priced against quiet profiles, and how many runs had one: ropbench run
// -judge sizes its selection by it (-judge-floor), so that the case judged for an op stays
// the same from run to run where one run's own floor, a few cold calls, would move it.
func (s *Store) Floor(ctx context.Context, device string, n int) (float64, int, error) {
	runs, recs, err := s.latestQuiet(ctx, s.pricing(), device, "", n, func(r *record.Record) bool { return r.Op == record.RefFloor })
	if err != nil {
		return 0, 0, err
	}
	var floors []float64
	for _, r := range runs {
		// A run has one floor; the largest of several is the one its report prices with.
		f := 0.0
		for _, rec := range recs[r.ID] {
			f = max(f, rec.Seconds)
		}
		if f > 0 {
			floors = append(floors, f)
		}
	}
	if len(floors) == 0 {
		return 0, 0, nil
	}
	return stats.Median(floors), len(floors), nil
}

// latestQuiet returns device's latest n quiet runs (quietRuns), newest first, but the one
// whose digest is skip, with the records keep keeps (nil: all).
func (s *Store) latestQuiet(ctx context.Context, pr *pricing, device, skip string, n int, keep func(*record.Record) bool) ([]Run, map[int64][]record.Record, error) {
	runs, err := s.quietRuns(ctx, pr, device, n, func(r *Run, _ *profiles.Profile) bool { return r.Digest != skip })
	if err != nil || len(runs) == 0 {
		return nil, nil, err
	}
	ids := make([]int64, len(runs))
	for i := range runs {
		ids[i] = runs[i].ID
	}
	recs, err := s.records(ctx, ids, keep)
	if err != nil {
		return nil, nil, err
	}
	return runs, recs, nil
}

// quietRuns returns device's latest n runs of ropgen's own kernels (Run.Impl "") priced
// against a profile measured on a quiet machine (not refused under load) that accept takes,
// newest first.
func (s *Store) quietRuns(ctx context.Context, pr *pricing, device string, n int, accept func(*Run, *profiles.Profile) bool) ([]Run, error) {
	all, err := s.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for i := len(all) - 1; i >= 0 && len(runs) < n; i-- {
		r := &all[i]
		if r.Device != device || r.Impl != "" {
			continue
		}
		prof, err := pr.profile(ctx, *r)
		if err != nil {
			return nil, err
		}
		if prof != nil && !prof.Measured.Loaded() && accept(r, prof) {
			runs = append(runs, *r)
		}
	}
	return runs, nil
}

// QuietProfile returns the profile of device's latest run of ropgen's kernels that was priced
// against a profile measured on a quiet machine (not refused under load) on the boot bootID
// (any boot when ""), and the run; nil when there is none. make run prices a run on a busy
// machine against it where its own calibration was refused twice: the host's earlier
// profile, kept by the history where make clean removed out/host.yaml.
func (s *Store) QuietProfile(ctx context.Context, device, bootID string) (*Profile, Run, error) {
	runs, err := s.quietRuns(ctx, s.pricing(), device, 1, func(_ *Run, p *profiles.Profile) bool {
		return bootID == "" || p.Measured.BootID == bootID
	})
	if err != nil || len(runs) == 0 {
		return nil, Run{}, err
	}
	text, err := s.Profile(ctx, &runs[0])
	return text, runs[0], err
}
