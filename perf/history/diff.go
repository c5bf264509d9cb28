package history

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

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
	// TestDrift is TestHistory without enough history: the drift of the row's peers alone.
	TestDrift = "peers' drift"
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
	// Shift and Drift are the runs' drift as the row's peers measure it (peerDrift): the
	// median of their log time ratios, as a relative change, and their standard deviation;
	// NaN when too few rows are in both runs. Peers is how many rows measured it.
	Shift, Drift float64
	Peers        int
	// Same is the ratio of the row's times over its same-time reference's (time × the
	// reference's rate, record.Record.RefRate): the change with the machine's own change
	// while the row ran taken out; NaN unless both runs' records have the reference. SameShift,
	// SameDrift and SamePeers are Shift, Drift and Peers of that ratio, over the rows that
	// have it.
	Same, SameShift, SameDrift float64
	SamePeers                  int
	// SameNoise is Noise of the row's time over its same-time DRAM reference (time × the
	// reference's rate) where both runs have one, with SamePairs its run pairs: the row's own
	// run-to-run spread with the machine's moves taken out. Where it is measured, it, not
	// Noise, bounds the row's own spread: a DRAM-sized row's time moves with the machine's
	// bandwidth by as much as a third between runs, a spread that would hide a kernel made
	// twice as slow, while its time over the reference timed beside it does not.
	SameNoise float64
	SamePairs int
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

// Latest returns the last two runs of the track (Run.Track: the device, and the
// implementation where not ropgen's own) of the latest run, for diff with no run given; ok
// is false when that track has fewer than two.
func (s *Store) Latest(ctx context.Context) (a, b Run, ok bool, err error) {
	runs, err := s.Runs(ctx)
	if err != nil || len(runs) == 0 {
		return a, b, false, err
	}
	b = runs[len(runs)-1]
	a, ok = Previous(runs, b)
	return a, b, ok, nil
}

// Previous returns the run of r's track (its device and implementation) before r in runs
// (oldest first).
func Previous(runs []Run, r Run) (Run, bool) {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].ID < r.ID && runs[i].Track() == r.Track() {
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
		if r.Track() == a.Track() && r.ID <= a.ID {
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
	var noise, sameNoise map[report.RowKey]rowNoise
	if len(hist) >= opt.MinHistory {
		d.History = len(hist)
		groups := make([][]report.Sampled, len(hist))
		for i, r := range hist {
			groups[i] = report.Group(recs[r.ID])
		}
		noise = rowNoises(groups, opt.MinHistory-1, true, func(s *report.Sampled) float64 { return s.Seconds })
		// Paced by the DRAM reference timed beside each row, a value has the machine's move
		// taken out already, row by row: no run-wide shift to take out. Not by the compute
		// probe: one short dispatch a sample, it moves more from run to run than the rows
		// it paces.
		sameNoise = rowNoises(groups, opt.MinHistory-1, false, func(s *report.Sampled) float64 { return s.Seconds * s.RefRate })
	}
	d.Rows = make([]RowDiff, len(cmp.Deltas))
	// Rows of one kind are each other's peers, rows of two kinds never: a row timed with a
	// same-time DRAM reference is DRAM-sized and cold, one with a compute probe only is
	// compute-bound or fits in the caches, and the machine moves the kinds differently.
	// The rows without a reference have their time alone, so their drift is read at its tail.
	peers, samePeers := kindDrift(cmp.Deltas, true, timeRatio), kindDrift(cmp.Deltas, false, sameRatio)
	for i := range cmp.Deltas {
		rd := &d.Rows[i]
		rd.Delta, rd.Noise, rd.Lo, rd.Hi = &cmp.Deltas[i], math.NaN(), math.NaN(), math.NaN()
		rd.Shift, rd.Drift, rd.Same, rd.SameShift, rd.SameDrift = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		rd.SameNoise = math.NaN()
		if rd.Old == nil || rd.New == nil {
			continue
		}
		if p, ok := peers[i]; ok {
			rd.Shift, rd.Drift, rd.Peers = p.shift, p.sd, p.n
		}
		if r, ok := sameRatio(rd.Delta); ok {
			rd.Same = r
			if p, ok := samePeers[i]; ok {
				rd.SameShift, rd.SameDrift, rd.SamePeers = p.shift, p.sd, p.n
			}
		}
		if n, ok := noise[report.KeyOf(&rd.New.Record)]; ok {
			rd.Noise, rd.Pairs = n.sd, n.pairs
		}
		if n, ok := sameNoise[report.KeyOf(&rd.New.Record)]; ok && !report.Blank(rd.Same) {
			rd.SameNoise, rd.SamePairs = n.sd, n.pairs
		}
		judge(rd, opt.Compare)
	}
	return d, nil
}

// kindDrift is peerDrift over the rows of each kind apart: a row timed with a same-time DRAM
// reference, one with a compute probe only, one with neither (refKind); a row's peers are
// of its kind.
func kindDrift(ds []render.Delta, tail bool, ratio func(*render.Delta) (float64, bool)) map[int]drift {
	out := map[int]drift{}
	for _, kind := range []string{"ref", "probe", ""} {
		maps.Copy(out, peerDrift(ds, tail, func(d *render.Delta) (float64, bool) {
			if _, ok := sameRatio(d); ok != (kind != "") || (ok && refKind(d.New) != kind) {
				return 0, false
			}
			return ratio(d)
		}))
	}
	return out
}

// minPeers is the fewest rows a row's peers are, and the fewest rows in both runs for a
// drift to be measured at all; peerSpan is how far, as a factor of time either way, a row's
// peers' base times may lie from its own when there are minPeers or more of them.
const (
	minPeers = 8
	peerSpan = 10
)

type drift struct {
	shift, sd float64
	n         int
}

// timeRatio is a row's new time over its base time.
func timeRatio(d *render.Delta) (float64, bool) {
	if d.Old == nil || d.New == nil || d.Old.Seconds <= 0 || d.New.Seconds <= 0 {
		return 0, false
	}
	return d.New.Seconds / d.Old.Seconds, true
}

// sameRatio is timeRatio with each time multiplied by its same-time reference's rate
// (sameRef).
func sameRatio(d *render.Delta) (float64, bool) {
	r, ok := timeRatio(d)
	if !ok {
		return 0, false
	}
	o, _, _ := sameRef(d.Old)
	n, _, _ := sameRef(d.New)
	if o <= 0 || n <= 0 || refKind(d.Old) != refKind(d.New) {
		return 0, false
	}
	return r * n / o, true
}

// sameRef is a row's same-time reference rate and the bounds of its median pairing (0s when
// it has none): the DRAM reference of a DRAM-sized row, else the compute probe of a cold
// compute-bound one (record.Record.RefRate, ProbeRate).
func sameRef(s *report.Sampled) (rate, lo, hi float64) {
	if s.RefRate > 0 {
		return s.RefRate, s.RefRateLow, s.RefRateHigh
	}
	return s.ProbeRate, s.ProbeRateLow, s.ProbeRateHigh
}

// refKind says which reference sameRef gives: "ref", "probe" or "".
func refKind(s *report.Sampled) string {
	switch {
	case s.RefRate > 0:
		return "ref"
	case s.ProbeRate > 0:
		return "probe"
	}
	return ""
}

// peerDrift measures the runs' drift of the ratio that ratio gives for each row that has it
// (by index into ds) on its peers: the rows with that ratio whose base time is nearest its
// own, in log time. Two runs minutes apart on a shared machine do not move every row
// alike: a row of a few microseconds is dispatch and cache state and moves by half between
// runs whatever its code does, where a row of milliseconds moves by a few percent. A drift
// over all rows is set by the many short rows and hides a long row made twice as slow.
//
// The spread is a robust standard deviation of the peers' log ratios: the median absolute
// deviation's; with tail, the larger of that and the 90th percentile absolute deviation's
// (a normal's is 1.645 standard deviations). Runs on a shared machine move a few rows by
// far more than the median row (another process took a core while they ran): a row judged
// by its time alone would be called a regression on such a move.
func peerDrift(ds []render.Delta, tail bool, ratio func(*render.Delta) (float64, bool)) map[int]drift {
	type pt struct {
		i       int
		at, log float64
	}
	var pts []pt
	for i := range ds {
		if r, ok := ratio(&ds[i]); ok {
			pts = append(pts, pt{i, math.Log(ds[i].Old.Seconds), math.Log(r)})
		}
	}
	out := map[int]drift{}
	if len(pts) < minPeers {
		return out
	}
	slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.at, b.at) })
	span := math.Log(peerSpan)
	var logs, dev []float64
	lo, hi := 0, 0 // the rows within span of the row: pts[lo:hi]
	for j, p := range pts {
		for pts[lo].at < p.at-span {
			lo++
		}
		for hi < len(pts) && pts[hi].at <= p.at+span {
			hi++
		}
		a, b := lo, hi
		if b-a < minPeers {
			// Too few within the span: the minPeers nearest, a window slid from the row
			// for as long as its far end is nearer than its near end.
			a = max(0, min(j-minPeers/2, len(pts)-minPeers))
			for a > 0 && p.at-pts[a-1].at < pts[a+minPeers-1].at-p.at {
				a--
			}
			for a+minPeers < len(pts) && pts[a+minPeers].at-p.at < p.at-pts[a].at {
				a++
			}
			b = a + minPeers
		}
		logs = logs[:0]
		for _, q := range pts[a:b] {
			logs = append(logs, q.log)
		}
		med := stats.Median(logs)
		dev = dev[:0]
		for _, l := range logs {
			dev = append(dev, math.Abs(l-med))
		}
		slices.Sort(dev)
		sd := stats.MADToSD * sortedQuantile(dev, 0.5)
		if tail {
			sd = max(sd, sortedQuantile(dev, 0.9)/normalP90)
		}
		out[p.i] = drift{shift: math.Expm1(med), sd: sd, n: len(logs)}
	}
	return out
}

// normalP90 is the 90th percentile of a normal's absolute deviation, in standard deviations.
const normalP90 = 1.6449

// sortedQuantile is the q quantile of the sorted, non-empty s, interpolated.
func sortedQuantile(s []float64, q float64) float64 {
	x := q * float64(len(s)-1)
	i := int(x)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}

// judge decides a row in both runs. Its time's change must be at least the minimum effect
// and beyond the drift of its peers (NoiseZ standard deviations around their median move)
// and, with MinHistory or more earlier runs, beyond the row's own run-to-run spread; where
// both runs timed a same-time reference with it, its change over the reference's must be
// beyond that ratio's drift too, the same way: a row that slowed with its reference slowed
// with the machine. Then its samples decide: with records enough for the U test, p < Alpha
// and the two runs' records apart (render.Compare's test); with fewer (a make run times
// each row once, a record of many samples), the new run's fastest sample must be slower than
// the base's median (or the base's fastest slower than the new median): the runs' ranges may
// overlap at their slow ends, where a few samples met other work, but the bulk of one run's
// samples must lie beyond the other's middle. Where the records have the interval of a
// same-time reference, that test is on the samples paced by each run's reference rate
// (pacedBulk), and the intervals of the two runs' medians of time × reference rate must be
// apart too.
func judge(rd *RowDiff, opt render.CompareOptions) {
	oLo, oHi := sampleRange(rd.Old)
	nLo, nHi := sampleRange(rd.New)
	if oLo > 0 && oHi > 0 {
		rd.Lo, rd.Hi = nLo/oHi, nHi/oLo
	}
	rd.Change = render.Unchanged
	if report.Blank(rd.Ratio) {
		rd.Test = TestNone
		return
	}
	change := 100 * (rd.Ratio - 1)
	_, _, _, uTest := stats.UTest(rd.Old.Samples, rd.New.Samples, opt.Alpha)
	own, ownSame := math.NaN(), math.NaN()
	if !report.Blank(rd.Noise) {
		own = math.Expm1(opt.NoiseZ * rd.Noise)
	}
	if !report.Blank(rd.SameNoise) {
		// The row's time moved with the machine; its time over the reference did not.
		ownSame, own = math.Expm1(opt.NoiseZ*rd.SameNoise), math.NaN()
	}
	switch {
	case uTest:
		rd.Test = TestU
	case !report.Blank(own) || !report.Blank(ownSame):
		rd.Test = TestHistory
	case !report.Blank(rd.Drift):
		rd.Test = TestDrift
	default:
		rd.Test = TestNone
		rd.Why = fmt.Sprintf("%+.1f%%, but no noise is measured: %d+%d records are too few for the U test, too few rows for the peers' drift, and too few runs for the row's own spread",
			change, len(rd.Old.Samples), len(rd.New.Samples))
		return
	}
	if math.Abs(rd.Ratio-1) < opt.MinEffect {
		rd.Why = fmt.Sprintf("%+.1f%% is below the %.0f%% minimum effect", change, 100*opt.MinEffect)
		return
	}
	threshold := func(sd, own float64) float64 {
		t := opt.MinEffect
		if !report.Blank(sd) && opt.NoiseZ > 0 {
			t = max(t, math.Expm1(opt.NoiseZ*sd))
		}
		if !report.Blank(own) {
			t = max(t, own)
		}
		return t
	}
	// beyond reports whether ratio lies beyond the threshold of drift sd around shift and
	// of the row's own spread own (over pairs run pairs), and says why not.
	beyond := func(what string, ratio, shift, sd float64, peers int, own float64, pairs int) (float64, bool) {
		t := threshold(sd, own)
		if math.Abs(math.Log(ratio)-math.Log1p(orZero(shift))) >= math.Log1p(t) {
			return t, true
		}
		within := fmt.Sprintf("±%.0f%% around its %d peers' %+.0f%%", 100*t, peers, 100*orZero(shift))
		if !report.Blank(own) && own >= t {
			within = fmt.Sprintf("the row's own run-to-run spread, ±%.0f%% (%g× its spread over %d run pairs)", 100*own, opt.NoiseZ, pairs)
		}
		rd.Why = fmt.Sprintf("%s%+.1f%% is within %s", what, 100*(ratio-1), within)
		return t, false
	}
	why := ""
	if report.Blank(ownSame) {
		t, ok := beyond("", rd.Ratio, rd.Shift, rd.Drift, rd.Peers, own, rd.Pairs)
		if !ok {
			return
		}
		why = fmt.Sprintf("beyond ±%.0f%% around its %d peers' %+.0f%%", 100*t, rd.Peers, 100*orZero(rd.Shift))
	} else {
		// With the row's own spread over its reference measured, that ratio decides: its
		// time moved with the machine by as much as its peers' did, which the ratio takes
		// out, and a row's own history on it says how far it moves on its own.
		why = fmt.Sprintf("%+.1f%%, its peers' %+.0f%%", change, 100*orZero(rd.Shift))
	}
	if !report.Blank(rd.Same) {
		if (rd.Same > 1) != (rd.Ratio > 1) {
			rd.Why = fmt.Sprintf("%+.1f%%, but %+.1f%% over its same-time reference: the machine moved, not the row", change, 100*(rd.Same-1))
			return
		}
		t, ok := beyond(fmt.Sprintf("%+.1f%%, but over its same-time reference ", change), rd.Same, rd.SameShift, rd.SameDrift, rd.SamePeers, ownSame, rd.SamePairs)
		if !ok {
			return
		}
		why += fmt.Sprintf("; %+.1f%% over its same-time reference, beyond ±%.0f%% around its %d peers' %+.0f%%", 100*(rd.Same-1), 100*t, rd.SamePeers, 100*orZero(rd.SameShift))
		if !report.Blank(ownSame) {
			why += fmt.Sprintf(" and its own run-to-run spread over the reference (±%.0f%%, %g× over %d run pairs)", 100*ownSame, opt.NoiseZ, rd.SamePairs)
		}
	}
	switch {
	case uTest && rd.P >= opt.Alpha:
		rd.Why = fmt.Sprintf("%+.1f%% but p=%.3f ≥ %g", change, rd.P, opt.Alpha)
		return
	case uTest && recordsOverlap(rd.Old, rd.New):
		a, b := rd.Old.Range()
		c, e := rd.New.Range()
		rd.Why = fmt.Sprintf("p=%.3f but the runs' records overlap (base %s..%s, new %s..%s)", rd.P,
			report.SI(a, "s"), report.SI(b, "s"), report.SI(c, "s"), report.SI(e, "s"))
		return
	case uTest:
		why = fmt.Sprintf("p=%.3f, ", rd.P) + why
	case !report.Blank(rd.Same) && hasInterval(rd.Old) && hasInterval(rd.New):
		_, ol, oh := sameRef(rd.Old)
		_, nl, nh := sameRef(rd.New)
		oL, oH, nL, nH := rd.Old.Seconds*ol, rd.Old.Seconds*oh, rd.New.Seconds*nl, rd.New.Seconds*nh
		if nL <= oH && oL <= nH {
			rd.Why = fmt.Sprintf("%+.1f%% but the intervals of the runs' median time × same-time reference rate overlap (base %.3g..%.3g, new %.3g..%.3g)", change, oL, oH, nL, nH)
			return
		}
		// The intervals narrow with the samples and say only that the medians differ
		// given each run's own samples; the bulk of the samples must say so too, paced by
		// each run's reference (pacedBulk).
		if ok, why := pacedBulk(rd, change, oLo, nLo); !ok {
			rd.Why = why
			return
		}
	case !(nLo > rd.Old.Seconds || oLo > rd.New.Seconds):
		rd.Why = fmt.Sprintf("%+.1f%% but the runs' samples mix (base %s..%s..%s, new %s..%s..%s)", change,
			report.SI(oLo, "s"), report.SI(rd.Old.Seconds, "s"), report.SI(oHi, "s"),
			report.SI(nLo, "s"), report.SI(rd.New.Seconds, "s"), report.SI(nHi, "s"))
		return
	}
	rd.Change = render.Faster
	if rd.Ratio > 1 {
		rd.Change = render.Slower
	}
	rd.Why = why
}

// pacedBulk reports whether the bulk of one run's samples of a row with a same-time
// reference lies beyond the other run's middle, each run's samples paced by its reference
// rate (time × rate, the rate of the run's median pairing): for a row that got slower, the
// new run's fastest sample × the new rate above the base's median × the base rate; for
// faster, the base's fastest × the base rate above the new median × the new rate. It says
// why not. oLo and nLo are the runs' fastest samples (sampleRange).
//
// The intervals of the runs' medians (hasInterval) narrow with the number of samples: they
// say the medians differ given each run's own samples, not that the row moved beyond its
// run-to-run noise. What spreads a row's samples within a run (another process on a core,
// the cache, the clock) is what moves its median between runs, so a row's median moves from
// run to run by up to its within-run spread, which no interval of a median holds. With too
// few runs for the row's own run-to-run spread, that spread is the only measured scale of
// the row's own noise (its peers' drift is the typical row's), and a row that swings by more
// than its peers can pass the peers' drift and the intervals while its samples still mix.
// Pacing each run's samples by its own reference rate takes out the machine's move between
// the runs, as the ratio does for the medians, and leaves the samples' spread within the run.
// The test is the one the rows without an interval pass (the new fastest beyond the base
// median), on the paced values.
func pacedBulk(rd *RowDiff, change, oLo, nLo float64) (bool, string) {
	or, _, _ := sameRef(rd.Old)
	nr, _, _ := sameRef(rd.New)
	oMid, nMid, oFast, nFast := rd.Old.Seconds*or, rd.New.Seconds*nr, oLo*or, nLo*nr
	if rd.Ratio > 1 && nFast > oMid || rd.Ratio < 1 && oFast > nMid {
		return true, ""
	}
	return false, fmt.Sprintf("%+.1f%% but the runs' samples paced by their same-time reference mix (time × rate: base %.3g..%.3g, new %.3g..%.3g, fastest..median)",
		change, oFast, oMid, nFast, nMid)
}

// hasInterval reports whether a row's single record bounds its median time × reference rate
// (record.Record.RefRateLow and RefRateHigh).
func hasInterval(s *report.Sampled) bool {
	rate, lo, hi := sameRef(s)
	return len(s.Samples) == 1 && rate > 0 && lo > 0 && hi > 0
}

// recordsOverlap reports whether two runs' records of a row overlap (render.Compare's test:
// a run's records are taken back to back, so a change of the code moves all of them).
func recordsOverlap(old, new *report.Sampled) bool {
	oLo, oHi := old.Range()
	nLo, nHi := new.Range()
	return nLo <= oHi && oLo <= nHi
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

// rowNoises measures each row's own run-to-run spread over runs (oldest first), of the
// value value gives each row (its time, or its time over its same-time reference): per pair
// of consecutive runs, the row's log ratio of it, off its peers' median move of time in that
// pair when shifted (kindDrift: the rows of its kind nearest its time, which the machine moves
// as it moves the row; a median over every row is set by the many short rows, whose moves a
// long row does not share; a kind of fewer than minPeers rows has no peers, and its moves are
// taken whole); per row, the median size of those moves scaled to a normal's standard
// deviation (the constant render.Compare scales the runs' drift by), when minPairs or more
// pairs hold it: unmoved by a few wild moves. The moves are taken
// from zero, not from their own median: a row that swings between two speeds from run to run
// moves by the swing every time. It is on the scale of what a diff compares: a ratio between
// two runs.
func rowNoises(runs [][]report.Sampled, minPairs int, shifted bool, value func(*report.Sampled) float64) map[report.RowKey]rowNoise {
	rows := make([]map[report.RowKey]*report.Sampled, len(runs))
	for i, g := range runs {
		rows[i] = map[report.RowKey]*report.Sampled{}
		for j := range g {
			if !g[j].IsReference() && value(&g[j]) > 0 {
				rows[i][report.KeyOf(&g[j].Record)] = &g[j]
			}
		}
	}
	moves := map[report.RowKey][]float64{}
	for i := 1; i < len(rows); i++ {
		var keys []report.RowKey
		var ds []render.Delta
		for k, s := range rows[i] {
			if old, ok := rows[i-1][k]; ok {
				keys = append(keys, k)
				ds = append(ds, render.Delta{Old: old, New: s})
			}
		}
		var shifts map[int]drift
		if shifted {
			shifts = kindDrift(ds, false, timeRatio)
		}
		for j, k := range keys {
			l := math.Log(value(ds[j].New) / value(ds[j].Old))
			if p, ok := shifts[j]; ok {
				l -= math.Log1p(p.shift)
			}
			moves[k] = append(moves[k], math.Abs(l))
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
