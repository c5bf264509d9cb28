// Package stats is the module's statistics, each in one place: the median, the sign test and
// the distribution-free interval of a median it gives, the Mann-Whitney U test of two runs'
// samples, and the median absolute deviation with its scale to a standard deviation. The
// benchmark's verdict lines, the A/B test, the report, the run-to-run comparison and the
// history's diff all take theirs from here, so two of them can never disagree on what a
// median or a p-value is.
package stats

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Median is the median of xs, the mean of the two middle values for an even count, 0 for
// none; it does not change xs. Every median of the module (a row's time, a spread, the
// drift between runs, a reference's rate) is this one.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// SignTest is the two-sided exact binomial sign test of wins against losses (ties left out):
// the probability, if each non-tied round were a fair coin, of a split at least as uneven.
func SignTest(wins, losses int) float64 {
	n := wins + losses
	k := max(wins, losses)
	if n == 0 {
		return 1
	}
	// P(X >= k) for X ~ Binomial(n, 1/2), summed in log space so that large n neither
	// overflows the binomial coefficients nor underflows 2^-n.
	tail := 0.0
	for i := k; i <= n; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return min(1, 2*tail)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// MedianAlpha is the level of MedianInterval's intervals: the verdict lines take a row to
// one side only when the chance that noise alone put its median there is under 1%.
const MedianAlpha = 0.01

// MedianInterval returns the distribution-free confidence interval of the median of xs at
// level alpha: the order statistics x(k) and x(n+1-k), k the largest for which the sign test
// of k-1 samples against the other n-k+1 rejects at alpha (so the interval holds the true
// median with probability at least 1-alpha, whatever the distribution). A value outside it
// is one the sign test of the samples above against those below rejects. Too few samples
// for any k (fewer than 8 at 0.01) give the whole range, the smallest and the largest.
// It does not change xs; both 0 for none.
func MedianInterval(xs []float64, alpha float64) (lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	s := slices.Sorted(slices.Values(xs))
	n, k := len(s), 1
	for k+1 <= (n+1)/2 && SignTest(k, n-k) <= alpha {
		k++
	}
	return s[k-1], s[n-k]
}

// MADToSD turns a median absolute deviation into a normal distribution's standard deviation:
// the robust spread of the runs' drift in a comparison and of a row's own moves in the
// history's diff.
const MADToSD = 1.4826

// MAD is the median absolute deviation of xs from their median; 0 for none.
func MAD(xs []float64) float64 {
	m := Median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	return Median(dev)
}

// UTest is the Mann-Whitney U test of two runs' samples, as benchstat runs it
// (benchmath.AssumeNothing): it assumes no distribution, which suits timing noise on a shared
// machine (one-sided, heavy-tailed), and uses every sample. It returns the p-value, the two
// sample counts, and whether so few samples could reach p < alpha at all (reaches false: too
// few a side). It does not change old or new.
func UTest(old, new []float64, alpha float64) (p float64, n1, n2 int, reaches bool) {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	// NewSample sorts its values: give it copies, the callers' samples keep their order.
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(old), th), benchmath.NewSample(slices.Clone(new), th))
	return c.P, c.N1, c.N2, len(c.Warnings) == 0
}
