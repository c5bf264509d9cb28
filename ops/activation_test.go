package ops

import (
	"math"
	"strings"
	"testing"
)

var activationOps = []struct {
	op     string
	params map[string]any
}{
	{"GeluErfFwd", nil},
	{"SoftplusFwd", nil},
	{"MishFwd", nil},
	{"EluFwd", map[string]any{"alpha": 1.0}},
	{"EluFwd", map[string]any{"alpha": 0.3}},
	{"HardswishFwd", nil},
}

func TestActivationKernels(t *testing.T) {
	for _, o := range activationOps {
		for _, shape := range unaryShapes {
			for _, dt := range []string{"float32", "bfloat16"} {
				checkKernel(t, kcase{op: o.op, shapes: map[string][]int{"x": shape}, params: o.params, dtype: dt, outputs: []string{"y"}})
			}
		}
	}
}

// TestActivationRanges runs every activation against its reference on special values and
// over ranges the catalog's [-1, 1) data never reaches, where the other branches are taken
// (erfc for gelu, the threshold of softplus, the exponent cap of mish, elu's saturation).
// [-12, 12) and [-80, 30) keep whole blocks of 8 within the SIMD kernels' range, so the
// vector code takes those branches too; [-40, 40) sends most blocks to the scalar fallback.
func TestActivationRanges(t *testing.T) {
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e-7, -1e-7, 1, -1,
		1.4142135, -1.4142135, 2.828427, -2.828427, 19.99, 20, 20.01, -20, 87, -87, 88, -88, 100, -100, 1e30, -1e30,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for _, o := range activationOps {
		for _, r := range [][2]float32{{-40, 40}, {-12, 12}, {-80, 30}} {
			in, err := Build(kcase{op: o.op, shapes: map[string][]int{"x": {4, 20000}}, params: o.params, dtype: "float32", outputs: []string{"y"}}.Case(), BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			x := in.Inputs[0].T
			if err := FillUniform(x, 3, r[0], r[1]); err != nil {
				t.Fatal(err)
			}
			copy(x.Data, special)
			if err := in.Check(); err != nil {
				t.Errorf("%s %v on [%v, %v): %v", o.op, o.params, r[0], r[1], err)
			}
		}
	}
}

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
