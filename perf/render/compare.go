package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/stats"
)

// Change is how a row's time moved from the base run to the new one.
type Change string

// The changes. Faster and Slower need the U test, the effect size, a change beyond the runs'
// drift and records that do not overlap; a row in one run only is Added or Removed.
const (
	Faster    Change = "faster"
	Slower    Change = "slower"
	Unchanged Change = "~"
	Added     Change = "added"
	Removed   Change = "removed"
)

// CompareOptions set when a difference counts.
type CompareOptions struct {
	// Alpha is the U test's significance level (benchstat's default 0.05).
	Alpha float64
	// MinEffect is the smallest relative change in median time that counts, however small p
	// is.
	MinEffect float64
	// NoiseZ scales the runs' drift into the effect a row must also exceed: NoiseZ robust
	// standard deviations of the rows' log time ratios (see Comparison.Noise). 0 turns the
	// drift guard off.
	NoiseZ float64
}

// DefaultCompare is what `ropgen report -base` uses.
var DefaultCompare = CompareOptions{Alpha: 0.05, MinEffect: 0.05, NoiseZ: 3}

// minNoiseRows is the fewest rows in both runs from which Compare estimates the drift.
const minNoiseRows = 8

// Comparison is a new run compared row by row against a base run.
type Comparison struct {
	Deltas  []Delta
	Options CompareOptions
	// Shift is the median over rows of the new/old time ratio, minus 1: how far the typical
	// row moved. Runs of the same code on an idle machine have it near 0.
	Shift float64
	// Noise is the robust standard deviation (1.4826 × the median absolute deviation) of the
	// rows' log time ratios: how much rows move between these two runs whatever the code
	// does. Samples within a run are taken seconds apart, so the U test sees only the noise
	// of those seconds; two runs minutes apart on a shared machine differ by more. NaN when
	// fewer than minNoiseRows rows are in both runs.
	Noise float64
	// Impls says, when the two runs timed different implementations (record.Record.Impl),
	// that their rows were matched only within one implementation: a gap between two
	// implementations is no drift of either. "" when both ran the same ones.
	Impls string
	// Threshold is how far (relative) a row's time ratio must sit from the typical row's
	// (1 + Shift) to count: the larger of MinEffect and exp(NoiseZ × Noise) - 1. Drift moves
	// every row about alike, so a row counts by how far it moved beyond the rest.
	Threshold float64
}

// Delta is one row compared across two runs. Old or New is nil when the row is in one run
// only.
type Delta struct {
	Old, New       *report.Sampled
	OldRow, NewRow *report.Row
	// Ratio is the new median time over the old; NaN when either is missing or zero.
	Ratio float64
	// P is the Mann-Whitney U test's p-value that the two samples come from one distribution;
	// NaN when not tested.
	P float64
	// EffDelta is the new efficiency minus the old (a fraction: 0.05 is 5 points); NaN when
	// either is blank.
	EffDelta float64
	Change   Change
	// Why says why a row is unchanged or untested when that is not plain ("needs 4+4
	// samples", "p=0.002 but -3% is below the 10% minimum effect").
	Why string
}

// Name is the row's op/workload/dtype.
func (d *Delta) Name() string {
	if d.New != nil {
		return d.New.Name()
	}
	return d.Old.Name()
}

// VerdictChanged reports whether the row is in both runs and its verdict differs.
func (d *Delta) VerdictChanged() bool {
	return d.OldRow != nil && d.NewRow != nil && d.OldRow.Verdict != d.NewRow.Verdict
}

// Compare matches the rows of a new run against a base run by op/workload/dtype (benchstat's
// pairing by benchmark name) and tests each pair's times with the Mann-Whitney U test, as
// benchstat does (stats.UTest): it assumes no distribution, which suits timing
// noise on a shared machine (one-sided, heavy-tailed), and it uses every sample, where a sign
// test needs paired, interleaved rounds (ropbench ab). A pair is Faster or Slower only when p
// < Alpha, the medians differ by MinEffect or more and by more than the runs' drift
// (Comparison.Threshold), and the two runs' records do not overlap (see overlap: the records
// of one run are not independent draws). oldRows and newRows are the priced rows
// of old and new, index by index. The result lists the new run's rows in order, then the rows
// only the base has.
func Compare(old, new []report.Sampled, oldRows, newRows []report.Row, opt CompareOptions) *Comparison {
	byKey := map[implKey]int{}
	for i := range old {
		if _, dup := byKey[implKeyOf(&old[i].Record)]; !dup {
			byKey[implKeyOf(&old[i].Record)] = i
		}
	}
	used := make([]bool, len(old))
	var ds []Delta
	for i := range new {
		d := Delta{New: &new[i], NewRow: &newRows[i], Ratio: blank, P: blank, EffDelta: blank, Change: Added}
		if j, ok := byKey[implKeyOf(&new[i].Record)]; ok && !used[j] {
			used[j] = true
			d.Old, d.OldRow = &old[j], &oldRows[j]
		}
		ds = append(ds, d)
	}
	for j := range old {
		if !used[j] {
			ds = append(ds, Delta{Old: &old[j], OldRow: &oldRows[j], Ratio: blank, P: blank, EffDelta: blank, Change: Removed})
		}
	}
	c := &Comparison{Deltas: ds, Options: opt, Shift: blank, Noise: blank, Threshold: opt.MinEffect, Impls: implsNote(old, new)}
	var logs []float64
	for i := range ds {
		if d := &ds[i]; d.Old != nil && d.New != nil && d.Old.Seconds > 0 && d.New.Seconds > 0 {
			logs = append(logs, math.Log(d.New.Seconds/d.Old.Seconds))
		}
	}
	if len(logs) > 0 {
		c.Shift = math.Exp(stats.Median(logs)) - 1
	}
	if len(logs) >= minNoiseRows {
		c.Noise = stats.MADToSD * stats.MAD(logs)
		if opt.NoiseZ > 0 {
			c.Threshold = max(opt.MinEffect, math.Exp(opt.NoiseZ*c.Noise)-1)
		}
	}
	for i := range ds {
		if ds[i].Old != nil && ds[i].New != nil {
			ds[i].test(opt.Alpha, c.Threshold, opt.MinEffect, c.Shift)
		}
	}
	return c
}

func (d *Delta) test(alpha, threshold, minEffect, shift float64) {
	d.Change = Unchanged
	if !report.Blank(d.OldRow.Efficiency) && !report.Blank(d.NewRow.Efficiency) {
		d.EffDelta = d.NewRow.Efficiency - d.OldRow.Efficiency
	}
	if d.Old.Seconds == 0 || d.New.Seconds == 0 {
		d.Why = "no measured time"
		return
	}
	d.Ratio = d.New.Seconds / d.Old.Seconds
	p, n1, n2, reaches := stats.UTest(d.Old.Samples, d.New.Samples, alpha)
	d.P = p
	effect := math.Abs(d.Ratio - 1)
	switch {
	case p >= alpha:
		if !reaches {
			d.Why = fmt.Sprintf("%d+%d samples cannot reach p < %g: run with -count 6 or more", n1, n2, alpha)
		}
	case effect < minEffect:
		d.Why = fmt.Sprintf("p=%.3f but %+.1f%% is below the %.0f%% minimum effect", p, 100*(d.Ratio-1), 100*minEffect)
	case driftOff(d.Ratio, shift) < math.Log1p(threshold):
		d.Why = fmt.Sprintf("p=%.3f but %+.1f%% is within the runs' drift (±%.0f%% around the typical row's %+.0f%%)",
			p, 100*(d.Ratio-1), 100*threshold, 100*orZero(shift))
	case overlap(d.Old.Samples, d.New.Samples):
		oLo, oHi := d.Old.Range()
		nLo, nHi := d.New.Range()
		d.Why = fmt.Sprintf("p=%.3f but the runs' records overlap (base %s..%s, new %s..%s)",
			p, report.SI(oLo, "s"), report.SI(oHi, "s"), report.SI(nLo, "s"), report.SI(nHi, "s"))
	case d.Ratio < 1:
		d.Change = Faster
	default:
		d.Change = Slower
	}
}

// overlap reports whether two runs' records of a row overlap: the slower run's fastest record
// is no slower than the faster run's slowest. The U test takes a row's records for
// independent draws, but they are taken back to back, seconds apart at most: a state of the
// machine that lasts longer (the other engineers' load, which core, a cold page) moves them
// together. A row that ran at both speeds within one run, in a different mix in the other
// (records at t and at twice t in one run, only near t in the other), has a p-value
// below 0.05 that says how often it hit the slow state, not what the code does. A change
// of the code moves every record of the row; it shows as two runs whose records do not mix.
func overlap(old, new []float64) bool {
	oLo, oHi := slices.Min(old), slices.Max(old)
	nLo, nHi := slices.Min(new), slices.Max(new)
	return nLo <= oHi && oLo <= nHi
}

// Tally counts the deltas by change.
func Tally(ds []Delta) map[Change]int {
	n := map[Change]int{}
	for i := range ds {
		n[ds[i].Change]++
	}
	return n
}

// Summary is the line that sums a comparison up: the counts, the test, and the drift.
func (c *Comparison) Summary() string {
	n := Tally(c.Deltas)
	s := fmt.Sprintf("%s: %d faster, %d slower, %d unchanged", plural(len(c.Deltas), "row"), n[Faster], n[Slower], n[Unchanged])
	if n[Added]+n[Removed] > 0 {
		s += fmt.Sprintf(", %d only in the new run, %d only in the base", n[Added], n[Removed])
	}
	s += fmt.Sprintf(" (Mann-Whitney U p < %g, |Δ| ≥ %.0f%%", c.Options.Alpha, 100*c.Options.MinEffect)
	if !report.Blank(c.Noise) {
		s += fmt.Sprintf(", ≥ %.0f%% off the typical row's %+.0f%%: %g× the runs' drift of ±%.0f%%",
			100*c.Threshold, 100*c.Shift, c.Options.NoiseZ, 100*(math.Exp(c.Noise)-1))
	}
	s += ", and the two runs' records apart)"
	if c.Impls != "" {
		s += "; " + c.Impls
	}
	return s
}

// Warning says when the runs differ by more than code changes usually explain, or "".
func (c *Comparison) Warning() string {
	if report.Blank(c.Shift) || report.Blank(c.Noise) {
		return ""
	}
	if math.Abs(c.Shift) < 0.05 && c.Noise < math.Log(1.05) {
		return ""
	}
	return fmt.Sprintf("the typical row moved %+.0f%% and rows scatter by ±%.0f%% between these runs: the machine's load changed "+
		"between them, and changes within ±%.0f%% cannot be told from that; compare one kernel with `ropbench ab`, which interleaves "+
		"the two versions", 100*c.Shift, 100*(math.Exp(c.Noise)-1), 100*c.Threshold)
}

// driftOff is how far, in log terms, a row's time ratio sits from the typical row's: the
// drift moves every row about alike, so a row counts by how far it moved beyond the rest.
func driftOff(ratio, shift float64) float64 {
	if report.Blank(shift) {
		return math.Abs(math.Log(ratio))
	}
	return math.Abs(math.Log(ratio) - math.Log1p(shift))
}

func orZero(v float64) float64 {
	if report.Blank(v) {
		return 0
	}
	return v
}

// implKey identifies a row of one implementation across runs: a base run's row is compared
// with the new run's row of the same implementation only.
type implKey struct {
	report.RowKey
	impl string
}

func implKeyOf(r *record.Record) implKey { return implKey{report.KeyOf(r), r.ImplName()} }

// implsNote is Comparison.Impls of runs old and new.
func implsNote(old, new []report.Sampled) string {
	o, n := implNames(old), implNames(new)
	if slices.Equal(o, n) {
		return ""
	}
	return fmt.Sprintf("the base timed %s, the new run %s: rows are compared within one implementation only, and a gap between two implementations is no drift (give both runs' records to one report to see implementations side by side)",
		strings.Join(o, ", "), strings.Join(n, ", "))
}

// implNames returns the implementations of rows, sorted.
func implNames(rows []report.Sampled) []string {
	var out []string
	for i := range rows {
		if name := rows[i].ImplName(); !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
