package history

import (
	"context"
	"fmt"
	"math"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/render"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/stats"
)

// Priced is a run's records priced against the profile the run was added with.
type Priced struct {
	Run     Run
	Sampled []report.Sampled
	Rows    []report.Row
}

// pricing parses each stored profile once: a thousand runs are priced against a few.
type pricing struct {
	s       *Store
	parsed  map[string]*profiles.Profile
	missing map[string]error
}

func (s *Store) pricing() *pricing {
	return &pricing{s: s, parsed: map[string]*profiles.Profile{}, missing: map[string]error{}}
}

// price prices run r's records against its own profile (none: the rows are unpriced).
func (p *pricing) price(ctx context.Context, r Run, recs []record.Record) (Priced, error) {
	prof, err := p.profile(ctx, r)
	if err != nil {
		return Priced{}, err
	}
	pricer := report.NewPricer(prof, nil, profiles.Effective)
	sampled, rows := report.PriceRun(pricer, recs)
	return Priced{Run: r, Sampled: sampled, Rows: rows}, nil
}

// profile is run r's own profile, parsed once; nil when the run kept none.
func (p *pricing) profile(ctx context.Context, r Run) (*profiles.Profile, error) {
	if !r.profile.Valid {
		return nil, nil
	}
	key := r.profile.String
	if err := p.missing[key]; err != nil {
		return nil, err
	}
	if prof := p.parsed[key]; prof != nil {
		return prof, nil
	}
	text, err := p.s.Profile(ctx, &r)
	var prof *profiles.Profile
	if err == nil {
		prof, err = profiles.Parse(text.Name+".yaml", text.Text)
	}
	if err != nil {
		err = fmt.Errorf("run %d: its profile: %w", r.ID, err)
		p.missing[key] = err
		return nil, err
	}
	p.parsed[key] = prof
	return prof, nil
}

// DiffOptions set when a row's change counts.
type DiffOptions struct {
	// Compare is the two runs' test: report -base's (render.DefaultCompare).
	Compare render.CompareOptions
	// HistoryRuns is how many runs of the device, up to the base run, measure each row's own
	// run-to-run spread; MinHistory the fewest that do (fewer: the runs' drift alone).
	HistoryRuns, MinHistory int
}

// DefaultDiff is what history diff uses.
var DefaultDiff = DiffOptions{Compare: render.DefaultCompare, HistoryRuns: 30, MinHistory: 5}

// The tests that decide a row, as RowDiff.Test names them.
const (
	// TestU is report -base's: the Mann-Whitney U test on the two runs' records, beyond the
	// runs' drift, with records that do not overlap (render.Compare); with enough history,
	// beyond the row's own run-to-run spread too.
	TestU = "U test"
	// TestHistory decides a row with too few records for the U test: its change must exceed
	// its own run-to-run spread over the device's earlier runs and the runs' drift, and the
	// two runs' samples must not overlap.
	TestHistory = "row history"
	// TestDrift is TestHistory without enough history: the runs' drift alone.
	TestDrift = "runs' drift"
	// TestNone: no noise was measured (too few records, rows and runs), so nothing counts.
	TestNone = "none"
)

// RowDiff is one row of two runs compared: the comparison's Delta, its Change and Why as the
// history decided them.
type RowDiff struct {
	*render.Delta
	// Test names what decided the row (TestU, TestHistory, TestDrift; TestNone) for a row
	// in both runs; "" for a row in one run only.
	Test string
	// Lo and Hi bound the time ratio (new / base) by the two runs' sample ranges: the
	// fastest new over the slowest base, and the slowest new over the fastest base.
	Lo, Hi float64
	// Noise is the row's own run-to-run spread: the median size of its log time ratio
	// between consecutive runs of the device, off those runs' typical ratio, scaled to a
	// normal's standard deviation (rowNoises);
	// NaN with fewer than MinHistory runs. Pairs is how many run pairs measured it.
	Noise float64
	Pairs int
}

// Diff is run B compared with run A.
type Diff struct {
	A, B       Run
	Comparison *render.Comparison
	Rows       []RowDiff
	// History is how many runs of the device measured the rows' own spread.
	History int
	Options DiffOptions
}

// Regressions returns the rows that got slower beyond noise.
func (d *Diff) Regressions() []*RowDiff {
	var out []*RowDiff
	for i := range d.Rows {
		if d.Rows[i].Change == render.Slower {
			out = append(out, &d.Rows[i])
		}
	}
	return out
}

// Changed returns the rows that changed: slower, faster, or in one run only.
func (d *Diff) Changed() []*RowDiff {
	var out []*RowDiff
	for i := range d.Rows {
		if d.Rows[i].Change != render.Unchanged {
			out = append(out, &d.Rows[i])
		}
	}
	return out
}

// Latest returns the last two runs of the device of the latest run, for diff with no run
// given; ok is false when that device has fewer than two.
func (s *Store) Latest(ctx context.Context) (a, b Run, ok bool, err error) {
	runs, err := s.Runs(ctx)
	if err != nil || len(runs) == 0 {
		return a, b, false, err
	}
	b = runs[len(runs)-1]
	a, ok = Previous(runs, b)
	return a, b, ok, nil
}

// Previous returns the run of r's device before r in runs (oldest first).
func Previous(runs []Run, r Run) (Run, bool) {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].ID < r.ID && runs[i].Device == r.Device {
			return runs[i], true
		}
	}
	return Run{}, false
}

// Diff compares run b with run a: report -base's comparison of their records, each row's
// change then judged against the row's own run-to-run spread over the device's runs up to a
// (render.Compare's U test needs several records a row; a make run has one, and the history
// is what then tells a change from noise).
func (s *Store) Diff(ctx context.Context, a, b Run, opt DiffOptions) (*Diff, error) {
	runs, err := s.Runs(ctx)
	if err != nil {
		return nil, err
	}
	// The device's runs up to a, the last HistoryRuns of them, then b.
	pr := s.pricing()
	var hist []Run
	for _, r := range runs {
		if r.Device == a.Device && r.ID <= a.ID {
			// A run priced against a measurement refused under load (make run on a busy
			// machine) moved every row by the load: its moves are no row's own spread.
			if prof, err := pr.profile(ctx, r); err == nil && prof != nil && prof.Measured.Loaded() {
				continue
			}
			hist = append(hist, r)
		}
	}
	hist = hist[max(0, len(hist)-opt.HistoryRuns):]
	ids := []int64{b.ID}
	for _, r := range hist {
		ids = append(ids, r.ID)
	}
	recs, err := s.Records(ctx, ids...)
	if err != nil {
		return nil, err
	}
	pa, err := pr.price(ctx, a, recs[a.ID])
	if err != nil {
		return nil, err
	}
	pb, err := pr.price(ctx, b, recs[b.ID])
	if err != nil {
		return nil, err
	}
	cmp := render.Compare(pa.Sampled, pb.Sampled, pa.Rows, pb.Rows, opt.Compare)
	d := &Diff{A: a, B: b, Comparison: cmp, Options: opt}
	var noise map[report.RowKey]rowNoise
	if len(hist) >= opt.MinHistory {
		d.History = len(hist)
		groups := make([][]report.Sampled, len(hist))
		for i, r := range hist {
			groups[i] = report.Group(recs[r.ID])
		}
		noise = rowNoises(groups, opt.MinHistory-1)
	}
	d.Rows = make([]RowDiff, len(cmp.Deltas))
	for i := range cmp.Deltas {
		rd := &d.Rows[i]
		rd.Delta, rd.Noise, rd.Lo, rd.Hi = &cmp.Deltas[i], math.NaN(), math.NaN(), math.NaN()
		if rd.Old == nil || rd.New == nil {
			continue
		}
		if n, ok := noise[report.KeyOf(&rd.New.Record)]; ok {
			rd.Noise, rd.Pairs = n.sd, n.pairs
		}
		judge(rd, cmp, opt.Compare)
	}
	return d, nil
}

// judge decides a row in both runs. With records enough for the U test its verdict stands,
// unless the change is within the row's own run-to-run spread. With fewer (a make run times
// each row once) the change must exceed the larger of the minimum effect, the runs' drift
// and the row's own spread, and the two runs' samples must not overlap.
func judge(rd *RowDiff, cmp *render.Comparison, opt render.CompareOptions) {
	oLo, oHi := sampleRange(rd.Old)
	nLo, nHi := sampleRange(rd.New)
	if oLo > 0 && oHi > 0 {
		rd.Lo, rd.Hi = nLo/oHi, nHi/oLo
	}
	if report.Blank(rd.Ratio) {
		rd.Test = TestNone
		return
	}
	off := math.Abs(math.Log(rd.Ratio))
	if !report.Blank(cmp.Shift) {
		off = math.Abs(math.Log(rd.Ratio) - math.Log1p(cmp.Shift))
	}
	own := math.NaN()
	if !report.Blank(rd.Noise) {
		own = math.Expm1(opt.NoiseZ * rd.Noise)
	}
	if _, _, _, reaches := stats.UTest(rd.Old.Samples, rd.New.Samples, opt.Alpha); reaches {
		rd.Test = TestU
		if rd.Change != render.Unchanged && !report.Blank(own) && off < math.Log1p(own) {
			rd.Why = fmt.Sprintf("p=%.3f but %+.1f%% is within the row's own run-to-run spread (±%.0f%%: %g× its spread over %d run pairs)",
				rd.P, 100*(rd.Ratio-1), 100*own, opt.NoiseZ, rd.Pairs)
			rd.Change = render.Unchanged
		}
		return
	}
	threshold := opt.MinEffect
	rd.Test = TestDrift
	switch {
	case !report.Blank(own):
		rd.Test = TestHistory
		threshold = max(threshold, own)
		if !report.Blank(cmp.Noise) {
			threshold = max(threshold, cmp.Threshold)
		}
	case !report.Blank(cmp.Noise):
		threshold = max(threshold, cmp.Threshold)
	default:
		rd.Test = TestNone
		rd.Change = render.Unchanged
		rd.Why = fmt.Sprintf("%+.1f%%, but no noise is measured: %d+%d records are too few for the U test, too few rows for the runs' drift, and too few runs for the row's own spread",
			100*(rd.Ratio-1), len(rd.Old.Samples), len(rd.New.Samples))
		return
	}
	rd.Change = render.Unchanged
	switch {
	case math.Abs(rd.Ratio-1) < opt.MinEffect:
		rd.Why = fmt.Sprintf("%+.1f%% is below the %.0f%% minimum effect", 100*(rd.Ratio-1), 100*opt.MinEffect)
	case off < math.Log1p(threshold):
		rd.Why = fmt.Sprintf("%+.1f%% is within the noise (±%.0f%% around the typical row's %+.0f%%)", 100*(rd.Ratio-1), 100*threshold, 100*orZero(cmp.Shift))
	case nLo <= oHi && oLo <= nHi:
		rd.Why = fmt.Sprintf("%+.1f%% but the runs' samples overlap (base %s..%s, new %s..%s)", 100*(rd.Ratio-1),
			report.SI(oLo, "s"), report.SI(oHi, "s"), report.SI(nLo, "s"), report.SI(nHi, "s"))
	default:
		rd.Change = render.Faster
		if rd.Ratio > 1 {
			rd.Change = render.Slower
		}
		rd.Why = fmt.Sprintf("beyond ±%.0f%% around the typical row's %+.0f%%", 100*threshold, 100*orZero(cmp.Shift))
	}
}

// sampleRange is a row's fastest and slowest sample: over its records' own spreads (the
// samples each record's median is of), so that one record a run still has a range.
func sampleRange(s *report.Sampled) (lo, hi float64) {
	lo, hi = s.Range()
	if l, h := s.Spread(); l > 0 {
		lo, hi = min(lo, l), max(hi, h)
	}
	return lo, hi
}

func orZero(v float64) float64 {
	if report.Blank(v) {
		return 0
	}
	return v
}

type rowNoise struct {
	sd    float64
	pairs int
}

// rowNoises measures each row's own run-to-run spread over runs (oldest first): per pair of
// consecutive runs, the row's log time ratio off the pair's typical ratio (the median over
// the rows both hold: drift moves every row alike); per row, the median size of those moves
// scaled to a normal's standard deviation (the constant render.Compare scales the runs' drift
// by), when minPairs or more pairs hold it: unmoved by a few wild moves. The moves are taken
// from zero, not from their own median: a row that swings between two speeds from run to run
// moves by the swing every time. It is on the scale of what a diff compares: a ratio between
// two runs.
func rowNoises(runs [][]report.Sampled, minPairs int) map[report.RowKey]rowNoise {
	times := make([]map[report.RowKey]float64, len(runs))
	for i, g := range runs {
		times[i] = map[report.RowKey]float64{}
		for j := range g {
			if !g[j].IsReference() && g[j].Seconds > 0 {
				times[i][report.KeyOf(&g[j].Record)] = g[j].Seconds
			}
		}
	}
	moves := map[report.RowKey][]float64{}
	for i := 1; i < len(times); i++ {
		logs := map[report.RowKey]float64{}
		var all []float64
		for k, t := range times[i] {
			if old, ok := times[i-1][k]; ok {
				l := math.Log(t / old)
				logs[k] = l
				all = append(all, l)
			}
		}
		if len(all) == 0 {
			continue
		}
		shift := stats.Median(all)
		for k, l := range logs {
			moves[k] = append(moves[k], math.Abs(l-shift))
		}
	}
	out := map[report.RowKey]rowNoise{}
	for k, ms := range moves {
		if len(ms) >= minPairs {
			out[k] = rowNoise{sd: stats.MADToSD * stats.Median(ms), pairs: len(ms)}
		}
	}
	return out
}
