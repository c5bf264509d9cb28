package stats

import (
	"math"
	"testing"
)

// TestSignTest checks p-values against exact binomial sums: P(X >= k) for X ~ Bin(n, 1/2)
// is sum_{i>=k} C(n, i) / 2^n, doubled for two sides.
func TestSignTest(t *testing.T) {
	for _, tc := range []struct {
		wins, losses int
		want         float64
	}{
		{17, 3, 2 * 1351.0 / 1048576}, // C(20,17..20) = 1140+190+20+1
		{16, 4, 2 * 6196.0 / 1048576}, // + C(20,16) = 4845
		{3, 17, 2 * 1351.0 / 1048576}, // symmetric
		{10, 0, 2.0 / 1024},           // all won
		{19, 1, 2 * 21.0 / 1048576},   // the probe's threshold: 19 of 20
		{8, 2, 2 * 56.0 / 1024},       // C(10,8..10) = 45+10+1
		{5, 5, 1},                     // even: capped at 1
		{6, 5, 1},                     // 2 * P(X >= 6 of 11) = 2 * 1024/2048
		{0, 0, 1},                     // no untied rounds
		{60, 40, 0.05688793364098079}, // exact: 2 * sum C(100, 60..100) / 2^100
	} {
		if got := SignTest(tc.wins, tc.losses); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("SignTest(%d, %d) = %.12g, want %.12g", tc.wins, tc.losses, got, tc.want)
		}
	}
}

// TestMedianInterval: the order statistics of the sign-test interval, checked against the
// binomial sums by hand, and the whole range when too few samples allow any other.
func TestMedianInterval(t *testing.T) {
	seq := func(n int) []float64 { // n, n-1, ..., 1: unsorted on purpose
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(n - i)
		}
		return xs
	}
	for _, tc := range []struct {
		n      int
		alpha  float64
		lo, hi float64
	}{
		// 2 P(X <= 2) = 2 (1+15+105)/2^15 = 0.0074 <= 0.01 < 2 P(X <= 3) = 0.035: x(3), x(13).
		{15, 0.01, 3, 13},
		// 2 P(X <= 1) = 2 (1+7)/2^7 = 0.125 > 0.05 for n = 7, and 2/2^7 <= 0.05: x(1), x(7).
		{7, 0.05, 1, 7},
		// too few for any interval at 0.01 (2/2^5 > 0.01): the whole range.
		{5, 0.01, 1, 5},
		// 2 P(X <= 39) for n = 100 is 0.035 <= 0.05 < 2 P(X <= 40) = 0.057: x(40), x(61).
		{100, 0.05, 40, 61},
		{1, 0.01, 1, 1},
	} {
		if lo, hi := MedianInterval(seq(tc.n), tc.alpha); lo != tc.lo || hi != tc.hi {
			t.Errorf("MedianInterval(1..%d, %v) = [%v, %v], want [%v, %v]", tc.n, tc.alpha, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := MedianInterval(nil, 0.01); lo != 0 || hi != 0 {
		t.Errorf("no samples: [%v, %v]", lo, hi)
	}
}

// TestMedian checks Median on odd and even counts, and that it leaves its input alone
// (profiles.SpreadOf sorts its own).
func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}, {[]float64{5, 5, 1, 9, 100}, 5}} {
		in := append([]float64(nil), tc.in...)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("Median changed its input: %v", in)
			}
		}
	}
}
