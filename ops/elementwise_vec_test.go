//go:build goexperiment.simd && amd64

package ops

import (
	"math"
	"testing"
)

// TestVecKernels checks the 8-lane kernels against float64 math over sweeps, with the edge
// values (NaN, infinities, the subnormal range of exp) mixed into the blocks so that the
// scalar fallback of a block is exercised too.
func TestVecKernels(t *testing.T) {
	if !vecOK {
		t.Skip("CPU without AVX2 and FMA: the 8-lane kernels never run")
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name    string
		vec     func(y, x []float32) int
		ref     func(float64) float64
		lo, hi  float64
		maxUlps float64
		// absTol also passes an element: where the float32 formula cancels (gelu's 1 + tanh
		// near -1 for x < -3, as in torch's float32 gelu) only an absolute bound holds.
		absTol float64
	}{
		{"exp", vecExp, math.Exp, -87, 88, 3, 0},
		{"tanh", vecTanh, math.Tanh, -10, 10, 3, 0},
		{"sigmoid", vecSigmoid, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, -80, 80, 4, 0},
		{"silu", vecSilu, func(x float64) float64 { return x / (1 + math.Exp(-x)) }, -80, 80, 4, 0},
		{"gelu", vecGelu, func(x float64) float64 {
			return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		}, -5, 5, 4, 4e-7},
	}
	for _, c := range cases {
		var xs []float32
		sweep(c.lo, c.hi, 100000, func(x float32) { xs = append(xs, x) })
		xs = append(xs, 3, nan, 5, -inf, 7, inf, -100, 100, 1e-30, -1e-30)
		ys := make([]float32, len(xs))
		n := c.vec(ys, xs)
		if n != len(xs)&^7 {
			t.Fatalf("%s: did %d of %d elements, want every full block", c.name, n, len(xs))
		}
		for i, x := range xs[:n] {
			want := c.ref(float64(x))
			switch {
			case math.IsNaN(want):
				if ys[i] == ys[i] {
					t.Errorf("%s(%v) = %v, want NaN", c.name, x, ys[i])
				}
			case math.Abs(want) < 0x1p-126: // a subnormal result may flush to zero, as expf's
				if d := math.Abs(float64(ys[i]) - want); d > 0x1p-126 {
					t.Errorf("%s(%v) = %v, want %v", c.name, x, ys[i], want)
				}
			case ulpErr(ys[i], want) > c.maxUlps && math.Abs(float64(ys[i])-want) > c.absTol:
				t.Errorf("%s(%v) = %v, want %v (%.1f ulp)", c.name, x, ys[i], want, ulpErr(ys[i], want))
			}
		}
	}
}

func TestVecExpSum(t *testing.T) {
	if !vecOK {
		t.Skip("CPU without AVX2 and FMA")
	}
	xs := make([]float32, 1003)
	for i := range xs {
		xs[i] = float32(i%97)/10 - 9
	}
	xs[17] = -200 // exp underflows: the block takes the scalar path
	ys := make([]float32, len(xs))
	n, s := vecExpSum(ys, xs, 0.5)
	if n != 1000 {
		t.Fatalf("did %d elements, want 1000", n)
	}
	want := 0.0
	for i, x := range xs[:n] {
		e := math.Exp(float64(x - 0.5)) // the kernel's argument: x - m rounded to float32
		want += e
		if ulpErr(ys[i], e) > 3 && e > 1e-30 {
			t.Errorf("exp(%v - 0.5) = %v, want %v", x, ys[i], e)
		}
	}
	if math.Abs(s-want) > 1e-6*want {
		t.Errorf("sum = %v, want %v", s, want)
	}
	if _, s2 := vecExpSum(nil, xs, 0.5); s2 != s {
		t.Errorf("sum without y = %v, with y %v", s2, s)
	}
}
