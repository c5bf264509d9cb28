package ops

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestClampHandComputed: tensor bounds broadcast against x, a scalar bound beside a tensor
// one, lo > hi (the element is hi), NaN from x and from a bound, and an output wider than x.
func TestClampHandComputed(t *testing.T) {
	nan := float32(math.NaN())
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name           string
		minVal, maxVal *float64
		x, lo, hi      *Tensor
		want           *Tensor
	}{
		{
			name: "row lo, scalar hi", maxVal: f(1.5),
			x:    tensorOf([]int{2, 3}, -2, -0.5, 0, 0.5, 2, nan),
			lo:   tensorOf([]int{3}, -1, 0, 1),
			want: tensorOf([]int{2, 3}, -1, 0, 1, 0.5, 1.5, nan),
		},
		{
			name: "scalar lo, column hi below it", minVal: f(0.5),
			x:    tensorOf([]int{2, 3}, -2, 0.3, 0.7, -2, 0.3, 0.7),
			hi:   tensorOf([]int{2, 1}, 0.25, 3),
			want: tensorOf([]int{2, 3}, 0.25, 0.25, 0.25, 0.5, 0.5, 0.7),
		},
		{
			name: "both tensors, a NaN bound, output wider than x",
			x:    tensorOf([]int{3}, -5, 0, 5),
			lo:   tensorOf([]int{2, 1}, -1, nan),
			hi:   tensorOf([]int{3}, 1, 2, 3),
			want: tensorOf([]int{2, 3}, -1, 0, 3, nan, nan, nan),
		},
	}
	for _, c := range cases {
		op, err := NewClampFwd(c.minVal, c.maxVal, Float32)
		if err != nil {
			t.Fatal(err)
		}
		shape, err := op.Bind(c.x, c.lo, c.hi)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for name, run := range map[string]func(out *Tensor) error{
			"kernel":    func(out *Tensor) error { return op.Forward(out, c.x, c.lo, c.hi) },
			"reference": func(out *Tensor) error { op.reference(out, c.x, c.lo, c.hi); return nil },
		} {
			out := mustTensor(t, Float32, shape...)
			if err := run(out); err != nil {
				t.Fatalf("%s %s: %v", c.name, name, err)
			}
			if err := Compare(out, c.want, Tol{}); err != nil {
				t.Errorf("%s %s: %v (got %v)", c.name, name, err, out.Data)
			}
		}
	}
}

func tensorOf(shape []int, v ...float32) *Tensor {
	return &Tensor{DType: Float32, Shape: shape, Data: slices.Clone(v)}
}

func TestClampBindErrors(t *testing.T) {
	v := 0.5
	x, lo, half := mustTensor(t, Float32, 2, 3), mustTensor(t, Float32, 3), mustTensor(t, Float16, 3)
	cases := []struct {
		minVal, maxVal *float64
		lo, hi         *Tensor
		want           string
	}{
		{nil, nil, nil, nil, "at least one of min_val, max_val, lo and hi must be given"},
		{&v, nil, lo, nil, "the lower bound is given twice"},
		{nil, &v, nil, lo, "the upper bound is given twice"},
		{nil, nil, half, nil, "input lo is float16[3], the op was built for float32"},
		{nil, nil, nil, mustTensor(t, Float32, 2), "shapes [2 3] and [2] do not broadcast"},
	}
	for _, c := range cases {
		op, err := NewClampFwd(c.minVal, c.maxVal, Float32)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Bind(x, c.lo, c.hi); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Bind: err = %v, want one containing %q", err, c.want)
		}
	}
	nan := math.NaN()
	if _, err := NewClampFwd(&nan, nil, Float32); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN bound: err = %v", err)
	}
}

// TestClampRebind: an op rebound without a tensor bound it had forgets it, so EvalRoofline
// counts what this call reads.
func TestClampRebind(t *testing.T) {
	op, _ := NewClampFwd(nil, nil, Float32)
	x, lo := mustTensor(t, Float32, 4, 8), mustTensor(t, Float32, 4, 8)
	if _, err := op.Bind(x, lo, nil); err != nil {
		t.Fatal(err)
	}
	_, b1, _ := op.EvalRoofline()
	v := 1.0
	op.MinVal = &v
	if _, err := op.Bind(x, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, b2, _ := op.EvalRoofline()
	if b1 != 3*32*4 || b2 != 2*32*4 {
		t.Errorf("bytes = %d then %d, want %d then %d", b1, b2, 3*32*4, 2*32*4)
	}
}

// TestClampNaNRowBound: a per-row bound that is NaN makes its row NaN on the in-cache path
// too (the vector kernels assume ordered bounds, so that row must not take them).
func TestClampNaNRowBound(t *testing.T) {
	const cols = 40 // whole 8- and 16-lane vectors and a tail
	x, y := mustTensor(t, Float32, 2, cols), mustTensor(t, Float32, 2, cols)
	for i := range x.Data {
		x.Data[i] = 1
	}
	lo := tensorOf([]int{2, 1}, float32(math.NaN()), 0)
	hi := 0.5
	op, _ := NewClampFwd(nil, &hi, Float32)
	if err := op.Forward(y, x, lo, nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range y.Data {
		if nan := i < cols; nan && v == v || !nan && v != 0.5 {
			t.Fatalf("y[%d] = %v, want %v", i, v, map[bool]string{true: "NaN", false: "0.5"}[nan])
		}
	}
}
