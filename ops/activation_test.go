package ops

import (
	"math"
	"strings"
	"testing"
)

// TestActivationMath checks the float32 helpers against package math, in ulps of the
// result, over the ranges the kernels use them on.
func TestActivationMath(t *testing.T) {
	cases := []struct {
		name    string
		f       func(float32) float32
		ref     func(float64) float64
		lo, hi  float64
		maxUlps float64
	}{
		// 1 + erf(z) = erfc(-z): relative accuracy in both tails, where gelu needs it. Just
		// above z = -1, 1 + z*T(z²) keeps erf's few ulps of 0.84 in a result of 0.16: up to
		// 10 ulps of it.
		{"erf1p left tail", erf1p, func(z float64) float64 { return math.Erfc(-z) }, -9, -1, 6},
		{"erf1p right tail", erf1p, func(z float64) float64 { return math.Erfc(-z) }, 1, 6, 4},
		{"erf1p", erf1p, func(z float64) float64 { return math.Erfc(-z) }, -1, 1, 10},
		{"erf1p near 0", erf1p, func(z float64) float64 { return math.Erfc(-z) }, -0.5, 0.5, 4},
		{"log1pf", log1pf, math.Log1p, -0.5, 1e8, 3},
		{"log1pf small", log1pf, math.Log1p, -1e-6, 1e-6, 2},
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

func TestActivationErrors(t *testing.T) {
	if _, err := NewEluFwd(math.Inf(1), Float32); err == nil || !strings.Contains(err.Error(), "EluFwd: alpha +Inf is not finite") {
		t.Errorf("NewEluFwd(+Inf): err = %v", err)
	}
	if _, err := NewGeluErfFwd(Int8); err == nil || !strings.Contains(err.Error(), "GeluErfFwd: dtype int8 not supported") {
		t.Errorf("NewGeluErfFwd(int8): err = %v", err)
	}
}
