package bench

import (
	"errors"
	"fmt"
	"slices"
	"time"
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

// Calibrate returns the number of calls whose batch lasts at least target, running call in
// growing batches (these are the warm-up). It stops with the first error of call.
func Calibrate(call func() error, target time.Duration) (int, error) {
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

// Sample returns the time of one call in seconds, from one batch of n calls.
func Sample(call func() error, n int) (float64, error) {
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

// Median returns the median of xs (the mean of the two middle values for an even count).
// It does not change xs.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}
