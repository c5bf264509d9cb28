package opsbench

import "testing"

func TestUnaryKernels(t *testing.T) {
	ops := []struct {
		op     string
		params map[string]any
	}{
		{"ReluFwd", nil},
		{"LeakyReluFwd", map[string]any{"negative_slope": 0.01}},
		{"ClampFwd", map[string]any{"min_val": -0.5, "max_val": 0.25}},
		{"ClampFwd", map[string]any{"min_val": nil, "max_val": 0.25}},
		{"ExpFwd", nil},
		{"TanhFwd", nil},
		{"SigmoidFwd", nil},
		{"SiluFwd", nil},
		{"GeluFwd", nil},
	}
	for _, o := range ops {
		for _, shape := range unaryShapes {
			for _, dt := range []string{"float32", "bfloat16"} {
				checkKernel(t, kcase{op: o.op, shapes: map[string][]int{"x": shape}, params: o.params, dtype: dt, outputs: []string{"y"}})
			}
		}
	}
}

func TestBinaryKernels(t *testing.T) {
	pairs := [][2][]int{
		{{3, 70001}, {3, 70001}}, // same shape, both cores
		{{3, 70001}, {70001}},    // bias along the last dim
		{{70001, 3}, {70001, 1}}, // per-row scalar
		{{5, 1, 7}, {1, 6, 1}},   // both broadcast
		{{1, 6, 1}, {5, 1, 7}},
		{{2, 3, 4}, {1}},
		{{1}, {2, 3, 4}},
		{{1}, {1}},
		{{4, 1, 3, 1}, {2, 1, 5}},
		{{2, 40000, 2}, {2, 1, 2}}, // broadcast mid-dim, rows of 2 across worker splits
	}
	for _, op := range []string{"AddFwd", "SubFwd", "MulFwd", "DivFwd"} {
		for _, p := range pairs {
			checkKernel(t, kcase{op: op, shapes: map[string][]int{"a": p[0], "b": p[1]}, dtype: "float16", outputs: []string{"y"}})
		}
	}
}

// Shapes for kernel tests: a scalar-like one, an odd one, and one above 2*grainElems so that
// both cores run and the split points fall mid-row.
var unaryShapes = [][]int{{1}, {3, 5, 7}, {3, 70001}}
