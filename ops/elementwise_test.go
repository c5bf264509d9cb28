package ops

import (
	"strings"
	"testing"
)

// Shapes for kernel tests: a scalar-like one, an odd one, and one above 2*grainElems so that
// both cores run and the split points fall mid-row.
var unaryShapes = [][]int{{1}, {3, 5, 7}, {3, 70001}}

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

func TestClampBothBoundsMissing(t *testing.T) {
	_, err := NewClampFwd(nil, nil, Float32)
	if err == nil || !strings.Contains(err.Error(), "at least one") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnaryForwardChecks: Forward refuses tensors that do not match the op.
func TestUnaryForwardChecks(t *testing.T) {
	op, err := NewSiluFwd(Float16)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := NewTensor(Float16, 2, 3)
	cases := []struct {
		out, x *Tensor
		want   string
	}{
		{mustTensor(t, Float16, 2, 3), mustTensor(t, Float32, 2, 3), "the op was built for float16"},
		{mustTensor(t, Float16, 3, 2), x, "output is float16[3 2], want float16[2 3]"},
		{mustTensor(t, Float16, 2, 3), nil, "input x is nil"},
	}
	for _, c := range cases {
		if err := op.Forward(c.out, c.x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Forward(%v, %v): err = %v, want %q", c.out, c.x, err, c.want)
		}
	}
}

func mustTensor(t *testing.T, dt DType, shape ...int) *Tensor {
	t.Helper()
	x, err := NewTensor(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
