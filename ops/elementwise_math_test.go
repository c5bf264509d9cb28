package ops

import (
	"math"
	"testing"
)

// ulpErr is |got - want| in units of the float32 spacing at want.
func ulpErr(got float32, want float64) float64 {
	w := float32(want)
	ulp := float64(math.Nextafter32(abs32(w), float32(math.Inf(1))) - abs32(w))
	return math.Abs(float64(got)-want) / ulp
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// sweep calls f on n points spread over [lo, hi] plus the endpoints.
func sweep(lo, hi float64, n int, f func(x float32)) {
	for i := 0; i <= n; i++ {
		f(float32(lo + (hi-lo)*float64(i)/float64(n)))
	}
}

func TestFloat32Math(t *testing.T) {
	cases := []struct {
		name    string
		f       func(float32) float32
		ref     func(float64) float64
		lo, hi  float64
		maxUlps float64
	}{
		{"expf", expf, math.Exp, -87, 88.7, 3},
		{"tanhf", tanhf, math.Tanh, -10, 10, 3},
		{"tanhf near 0", tanhf, math.Tanh, -0.7, 0.7, 3},
		{"sigmoidf", sigmoidf, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, -80, 80, 4},
		{"logf", logf, math.Log, 1e-30, 1e30, 3},
		{"logf near 1", logf, math.Log, 0.5, 2, 3},
	}
	for _, c := range cases {
		worst, at := 0.0, float32(0)
		sweep(c.lo, c.hi, 200000, func(x float32) {
			if e := ulpErr(c.f(x), c.ref(float64(x))); e > worst {
				worst, at = e, x
			}
		})
		if worst > c.maxUlps {
			t.Errorf("%s: %.2f ulp at x = %v (got %v, want %v); allowed %v", c.name, worst, at, c.f(at), c.ref(float64(at)), c.maxUlps)
		}
	}
}

func TestFloat32MathEdges(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	checks := []struct {
		name      string
		got, want float32
	}{
		{"expf(100)", expf(100), inf},
		{"expf(-200)", expf(-200), 0},
		{"expf(0)", expf(0), 1},
		{"tanhf(50)", tanhf(50), 1},
		{"tanhf(-50)", tanhf(-50), -1},
		{"logf(0)", logf(0), -inf},
		{"logf(1)", logf(1), 0},
		{"logf(inf)", logf(inf), inf},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if v := expf(nan); v == v {
		t.Errorf("expf(NaN) = %v, want NaN", v)
	}
	if v := logf(-1); v == v {
		t.Errorf("logf(-1) = %v, want NaN", v)
	}
	// Subnormal results: relative accuracy degrades with the mantissa, absolute must not.
	sweep(-103, -87.5, 1000, func(x float32) {
		if d := math.Abs(float64(expf(x)) - math.Exp(float64(x))); d > 2e-45 {
			t.Fatalf("expf(%v) off by %g in the subnormal range", x, d)
		}
	})
}
