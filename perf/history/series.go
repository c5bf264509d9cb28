package history

import (
	"context"
	"math"
	"regexp"
	"time"

	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/stats"
)

// Filter selects rows by regular expressions (nil: any).
type Filter struct {
	Op, Workload, DType, Device *regexp.Regexp
}

func (f *Filter) row(r *record.Record) bool {
	return match(f.Op, r.Op) && match(f.Workload, r.Workload) && match(f.DType, r.DType)
}

func match(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

// Point is one run's measurement of a row.
type Point struct {
	Run    int64     `json:"run"`
	Time   time.Time `json:"time"`
	Commit string    `json:"commit"`
	// Seconds is the row's median time; Efficiency its efficiency against the run's own
	// profile (NaN: unpriced), Verdict the verdict it read.
	Seconds    float64        `json:"seconds"`
	Efficiency float64        `json:"efficiency"`
	Verdict    report.Verdict `json:"verdict"`
}

// Series is one row of one device over the runs that measured it, oldest first: Device is
// the runs' Track, the device and the implementation where it is not ropgen's own.
type Series struct {
	Device, Op, Workload, DType string
	Points                      []Point
	// Trend is the latest time over the median of the runs before it, minus 1: above 0, the
	// latest run is slower than the row usually is; NaN with one point.
	Trend float64
}

// Name is the row's op/workload/dtype.
func (s *Series) Name() string { return s.Op + "/" + s.Workload + "/" + s.DType }

// seriesChunk is how many runs Series reads at a time.
const seriesChunk = 100

// Series returns every row f selects over the runs of the devices it selects, each priced
// against its run's own profile: per device, the rows in the order they were first
// measured. It also returns the runs it read.
func (s *Store) Series(ctx context.Context, f Filter) ([]Series, []Run, error) {
	all, err := s.Runs(ctx)
	if err != nil {
		return nil, nil, err
	}
	var runs []Run
	var ids []int64
	for _, r := range all {
		if match(f.Device, r.Device) {
			runs = append(runs, r)
			ids = append(ids, r.ID)
		}
	}
	if len(runs) == 0 {
		return nil, runs, nil
	}
	type key struct {
		device string
		report.RowKey
	}
	index := map[key]int{}
	var out []Series
	pr := s.pricing()
	// Read and price overlap: a chunk of runs is read while the one before is priced. The
	// two take about as long, so wherever a second core is free the series take half the
	// time, and on one core no longer than in turn.
	type chunk struct {
		runs []Run
		recs map[int64][]record.Record
		err  error
	}
	chunks := make(chan chunk, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(chunks)
		for start := 0; start < len(runs); start += seriesChunk {
			c := chunk{runs: runs[start:min(start+seriesChunk, len(runs))]}
			// The references stay: they set a run's floor and drift, which price its rows.
			c.recs, c.err = s.records(ctx, ids[start:start+len(c.runs)], func(r *record.Record) bool { return r.IsReference() || f.row(r) })
			select {
			case chunks <- c:
			case <-ctx.Done():
				return
			}
			if c.err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		if c.err != nil {
			return nil, nil, c.err
		}
		for _, r := range c.runs {
			p, err := pr.price(ctx, r, c.recs[r.ID])
			if err != nil {
				return nil, nil, err
			}
			for i := range p.Sampled {
				sm, row := &p.Sampled[i], &p.Rows[i]
				k := key{r.Track(), report.KeyOf(&sm.Record)}
				j, ok := index[k]
				if !ok {
					j = len(out)
					index[k] = j
					out = append(out, Series{Device: r.Track(), Op: sm.Op, Workload: sm.Workload, DType: sm.DType})
				}
				out[j].Points = append(out[j].Points, Point{Run: r.ID, Time: r.Time, Commit: r.Commit,
					Seconds: sm.Seconds, Efficiency: row.Efficiency, Verdict: row.Verdict})
			}
		}
	}
	for i := range out {
		out[i].Trend = trend(out[i].Points)
	}
	return out, runs, nil
}

// trend is the latest point's time over the median of the earlier ones, minus 1.
func trend(ps []Point) float64 {
	if len(ps) < 2 {
		return math.NaN()
	}
	before := make([]float64, 0, len(ps)-1)
	for _, p := range ps[:len(ps)-1] {
		if p.Seconds > 0 {
			before = append(before, p.Seconds)
		}
	}
	last := ps[len(ps)-1].Seconds
	if len(before) == 0 || last <= 0 {
		return math.NaN()
	}
	return last/stats.Median(before) - 1
}
