package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/stats"
)

// Sampled is one row of a run: the records of one op × workload × dtype of one
// implementation on one device and roof with the same counts (ropbench run -count N writes N of them), as one record whose
// Seconds is the median of theirs, and each record's time as a sample.
type Sampled struct {
	// Record is the first of the row's records with a measured time and the most samples
	// (Iters), or its first record when none has a time, but for Seconds: the median of
	// Samples.
	record.Record
	// Samples are the measured times of the row's records with the most samples, in the
	// order read: a record of 0 s (no measured time) is none, so a row of such records only
	// has no samples.
	Samples []float64
	// Fewer counts the row's records left out for having fewer samples than its others.
	Fewer int
}

// Range returns the fastest and slowest sample, both 0 when the row has none.
func (s *Sampled) Range() (lo, hi float64) {
	if len(s.Samples) == 0 {
		return 0, 0
	}
	return slices.Min(s.Samples), slices.Max(s.Samples)
}

// RelSpread is (slowest - fastest) / median of the samples: 0 for one sample, NaN when the
// median is zero.
func (s *Sampled) RelSpread() float64 {
	if s.Seconds == 0 {
		return blank
	}
	lo, hi := s.Range()
	return (hi - lo) / s.Seconds
}

// RowKey identifies a row across runs and across a device's history: its benchmark name, op,
// workload and dtype. The report groups a run's records by it, and the comparison of two runs
// and the history's diff pair rows by it.
type RowKey struct{ Op, Workload, DType string }

// KeyOf is the key of the row r belongs to.
func KeyOf(r *record.Record) RowKey { return RowKey{r.Op, r.Workload, r.DType} }

// Name is the row's name, op/workload/dtype.
func (s *Sampled) Name() string { return s.Op + "/" + s.Workload + "/" + s.DType }

// Group folds the records of each row into one Sampled, in the order rows are first met. Two
// records are one row when device, implementation (record.Record.ImplName), op, workload,
// dtype, roof, flops and bytes all agree; a row whose counts changed between records is two
// rows, never averaged, and two implementations' records are never one row (SideBySide
// compares them).
func Group(recs []record.Record) []Sampled { return group(recs, false) }

// group is Group; with skipRefs it leaves the reference records out (PriceRun takes them
// apart), without a copy of the others.
func group(recs []record.Record, skipRefs bool) []Sampled {
	type full struct {
		RowKey
		device, impl, roof string
		flops, bytes       int64
	}
	// Sized for one record a row, as a make run has: a history prices a thousand runs.
	index := make(map[full]int, len(recs))
	out := make([]Sampled, 0, len(recs))
	spreads := make([][2]float64, 0, len(recs))
	// Each row's first sample goes into one shared array (a row's Samples has room for one
	// there, so a second sample moves it out): one allocation for a run, not one a row.
	first := make([]float64, len(recs))
	for i := range recs {
		r := &recs[i]
		if skipRefs && r.IsReference() {
			continue
		}
		k := full{KeyOf(r), r.Device, r.ImplName(), r.Roof, r.Flops, r.Bytes}
		j, ok := index[k]
		if r.IsReference() {
			// Each reference is a measurement of its own run (the start and end copies of two
			// runs are four drift checks, not two medians).
			ok = false
		}
		if !ok {
			j = len(out)
			index[k] = j
			out = append(out, Sampled{Record: *r, Samples: first[j : j : j+1]})
			spreads = append(spreads, [2]float64{math.Inf(1), 0})
		}
		// A record of no measured time (0 s) is no sample of the row's time; the row is
		// priced from the records that have one, the first of them its Record.
		if r.Seconds == 0 && !r.IsReference() {
			continue
		}
		// A row of records with same-time references is its records with the most samples
		// (Iters): a record's references (RefRate, ProbeRate and their intervals) are its own
		// samples' moments, so its time is judged with them, not beside another's. The records
		// of ropbench run -count N are alike; make run's quick look at a row it also judges
		// (5 samples, another minute) is left out, and counted (Fewer). Records without
		// references (warm batches, a harness's) pool as they are.
		if g := &out[j]; len(g.Samples) > 0 && !r.IsReference() && sameTimed(r) && sameTimed(&g.Record) {
			if r.Iters < g.Iters {
				g.Fewer++
				continue
			}
			if r.Iters > g.Iters {
				g.Fewer += len(g.Samples)
				g.Samples = g.Samples[:0]
				spreads[j] = [2]float64{math.Inf(1), 0}
			}
		}
		if len(out[j].Samples) == 0 {
			out[j].Record = *r
		}
		out[j].Samples = append(out[j].Samples, r.Seconds)
		// The row's spread covers every record's: the fastest of their fastest samples and
		// the slowest of their slowest (record.Spread gives a record without one its time).
		lo, hi := r.Spread()
		spreads[j] = [2]float64{min(spreads[j][0], lo), max(spreads[j][1], hi)}
	}
	for i := range out {
		g := &out[i]
		g.Seconds = stats.Median(g.Samples)
		if len(g.Samples) > 1 {
			g.MinSeconds, g.MaxSeconds = spreads[i][0], spreads[i][1]
		}
	}
	return out
}

// sameTimed reports whether r carries a same-time reference: a memory reference or a
// compute probe timed beside its samples.
func sameTimed(r *record.Record) bool { return r.RefRate > 0 || r.ProbeRate > 0 }

// Records returns the grouped rows' records, for a Pricer: row i prices rows[i].Record.
func Records(rows []Sampled) []record.Record {
	recs := make([]record.Record, len(rows))
	for i := range rows {
		recs[i] = rows[i].Record
	}
	return recs
}

// PriceRun prices one run's records as rows: reference records (record.IsReference) go to
// the pricer as references, the others are grouped (Group) and priced, so rows[i] prices
// sampled[i].Record, as Compare and Document need.
func PriceRun(p *Pricer, recs []record.Record) (sampled []Sampled, rows []Row) {
	for i := range recs {
		if recs[i].IsReference() {
			p.AddReference(&recs[i])
		}
	}
	sampled = group(recs, true)
	rows = make([]Row, len(sampled))
	for i := range sampled {
		rows[i] = p.Price(&sampled[i].Record)
		if n := sampled[i].Fewer; n > 0 {
			rows[i].addNote(fmt.Sprintf("%d record(s) of fewer samples left out: the row is its records with the most", n))
		}
	}
	return sampled, rows
}
