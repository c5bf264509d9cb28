package bench

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// The timing scheme. A sample is a batch of n back-to-back calls timed together, with n
// calibrated so that a batch lasts at least a target duration: the clock's resolution and
// the loop's own cost then vanish against the batch, even for a call of a few nanoseconds.
// The calibration batches double as the warm-up (caches, page faults, branch predictors,
// goroutine start-up) and are discarded. A measurement is the median of k samples.
//
// Why the median and not the minimum: on a shared machine interference only adds time,
// which argues for the minimum, but the minimum of k samples is an extreme value that keeps
// falling as k grows, so the result would depend on how long one measured. The median is
// stable in k, ignores a minority of disturbed samples in either direction, and is the
// statistic benchstat reports, so a record and a benchstat summary of repeated records
// agree.

// maxBatch bounds the calls of one batch: an empty call takes a nanosecond or so, and a
// billion of them still fits the target of any sensible run.
const maxBatch = 1 << 30

// BatchSize returns the number of calls whose batch lasts at least target, running call in
// growing batches (these are the warm-up). It stops with the first error of call.
func BatchSize(call func() error, target time.Duration) (int, error) {
	if target <= 0 {
		return 0, errors.New("bench: the target duration of a batch must be positive")
	}
	n := 1
	for {
		d, err := batch(call, n)
		if err != nil {
			return 0, err
		}
		if d >= target || n >= maxBatch {
			return n, nil
		}
		// Aim 20% past the target from the rate seen so far, growing at most 100x per step
		// so that a first call slowed by a cold start does not overshoot wildly.
		next := n * 100
		if d > 0 {
			next = min(next, int(float64(n)*1.2*float64(target)/float64(d))+1)
		}
		n = min(max(next, n+1), maxBatch)
	}
}

// WarmSample returns the time of one call in seconds, from one warm batch of n calls (a cold
// call, one after an eviction, is cold.Sample).
func WarmSample(call func() error, n int) (float64, error) {
	if n < 1 {
		return 0, fmt.Errorf("bench: a batch needs at least one call, not %d", n)
	}
	d, err := batch(call, n)
	if err != nil {
		return 0, err
	}
	return d.Seconds() / float64(n), nil
}

// batch times n calls of call.
func batch(call func() error, n int) (time.Duration, error) {
	start := time.Now()
	for range n {
		if err := call(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// floorCandidates is how many of the smallest cases FloorReference times.
const floorCandidates = 3

// FloorReference times the floorCandidates smallest runnable cases of plans (by their
// tensors' storage; give it the whole catalog, so that every run's floor is the same calls')
// the way every case is timed, and returns the cheapest as the run's cold-call floor: a
// record.RefFloor record whose workload names the case ("CopyFwd:cpu-small") and whose time
// is the median of max(opt.Samples, 9) samples, one call each after an eviction when opt has
// an Evictor. A cold call of a smallest case is dispatch and first touch and next to nothing
// else (the cheapest of a few, so that one op's slower dispatch does not stand for all), and
// a row whose SOL time is below it cannot be judged against the roofline (the report's
// latency-bound rule).
func FloorReference(reg Registry, plans []Planned, opt Options) (record.Record, error) {
	var small []Planned
	for _, p := range plans {
		if p.Skip == "" {
			small = append(small, p)
		}
	}
	if len(small) == 0 {
		return record.Record{}, errors.New("no runnable case to time the cold-call floor with")
	}
	slices.SortStableFunc(small, func(a, b Planned) int { return cmp.Compare(a.Storage, b.Storage) })
	opt.Count, opt.Samples = 1, max(opt.Samples, 9)
	var best record.Record
	for _, p := range small[:min(len(small), floorCandidates)] {
		res := Measure(reg, p, opt)
		if res.Err != nil {
			return record.Record{}, fmt.Errorf("cold-call floor on %s: %w", p.Name(), res.Err)
		}
		if r := res.Records[0]; best.Op == "" || r.Seconds < best.Seconds {
			best = r
		}
	}
	best.Workload = best.Op + ":" + best.Workload
	best.Op = record.RefFloor
	return best, nil
}

// CopyReference is the drift reference record of a copy measured at when (record.RefStart
// or record.RefEnd): rate is the spread of its bandwidth in bytes/s (instrument.CopyReference),
// moved is the bytes one copy reads and writes. Seconds are the times one copy took at the
// median, fastest and slowest rate, so Bytes/Seconds gives the rate back.
func CopyReference(device, when string, moved int64, rate profiles.Spread) (record.Record, error) {
	if !rate.Measured() || rate.Min <= 0 || moved <= 0 {
		return record.Record{}, fmt.Errorf("copy reference at %s: no measurement", when)
	}
	b := float64(moved)
	return record.Record{Device: device, Op: record.RefCopy, Workload: when, DType: "float64", Roof: "hbm",
		Bytes: moved, Seconds: b / rate.Median, MinSeconds: b / rate.Max, MaxSeconds: b / rate.Min, Iters: rate.N}, nil
}

// References are the measurements a run takes beside its cases: the cold-call floor at its
// start (FloorReference) and, when Copy is set, the drift reference (CopyReference) at its
// start and at its end, so that the report can tell a machine that changed under the run.
type References struct {
	Reg Registry // builds the floor's cases
	Opt Options
	// Copy measures the copy reference: the bytes one copy moves and the spread of its
	// bandwidth (instrument.CopyReference, the calibration's own copy). Nil: none.
	Copy func() (moved int64, rate profiles.Spread)
}

// Start returns the references of the start of a run: the copy, then the floor, timed on the
// smallest runnable case of catalog.
func (rf References) Start(catalog []Planned) ([]record.Record, error) {
	var out []record.Record
	if rf.Copy != nil {
		r, err := rf.copy(record.RefStart)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	floor, err := FloorReference(rf.Reg, catalog, rf.Opt)
	if err != nil {
		return nil, err
	}
	return append(out, floor), nil
}

// End returns the references of the end of a run: the second copy reference, if any.
func (rf References) End() ([]record.Record, error) {
	if rf.Copy == nil {
		return nil, nil
	}
	r, err := rf.copy(record.RefEnd)
	if err != nil {
		return nil, err
	}
	return []record.Record{r}, nil
}

func (rf References) copy(when string) (record.Record, error) {
	moved, rate := rf.Copy()
	r, err := CopyReference(rf.Opt.Device, when, moved, rate)
	r.Impl = rf.Opt.Impl // its copy kernel is the run's own
	return r, err
}

// ReferenceLine is the progress line of a reference record.
func ReferenceLine(r record.Record) string {
	lo, hi := r.Spread()
	if r.Op == record.RefCopy {
		return fmt.Sprintf("reference %s at %s: %s [%s .. %s]", r.Op, r.Workload,
			report.Rate(float64(r.Bytes)/r.Seconds, "B/s"), report.Rate(float64(r.Bytes)/hi, "B/s"), report.Rate(float64(r.Bytes)/lo, "B/s"))
	}
	return fmt.Sprintf("reference %s (%s): %s [%s .. %s]", r.Op, r.Workload, Seconds(r.Seconds), Seconds(lo), Seconds(hi))
}
