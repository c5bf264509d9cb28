package opsbench

import (
	"math"
	"testing"

	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

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
			in, err := Build(kcase{op: o.op, shapes: map[string][]int{"x": {4, 20000}}, params: o.params, dtype: "float32", outputs: []string{"y"}}.Case(), bench.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			x := in.Inputs[0].T
			if err := ops.FillUniform(x, 3, r[0], r[1]); err != nil {
				t.Fatal(err)
			}
			copy(x.Data, special)
			if err := in.Check(); err != nil {
				t.Errorf("%s %v on [%v, %v): %v", o.op, o.params, r[0], r[1], err)
			}
		}
	}
}

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
