package ops

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestStatAxesKnownValues: over a 2 x 2 x 2 cube of 1..8, the variance and logsumexp over
// axes (0, 2) (non-adjacent: the permuted copy) and over every axis, by hand.
func TestStatAxesKnownValues(t *testing.T) {
	x := &Tensor{Shape: []int{2, 2, 2}, DType: Float32, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	lse := func(v ...float64) float32 {
		s := 0.0
		for _, e := range v {
			s += math.Exp(e)
		}
		return float32(math.Log(s))
	}
	for _, c := range []struct {
		name  string
		dim   []int
		keep  bool
		shape []int
		want  []float32
		var_  bool
	}{
		// axis 1 kept: index 0 holds {1, 2, 5, 6} (mean 3.5, squared deviations 17), 1
		// holds {3, 4, 7, 8} (mean 5.5, 17); unbiased: 17 / 3 each.
		{"var (0, 2)", []int{0, 2}, false, []int{2}, []float32{17. / 3, 17. / 3}, true},
		{"var all", nil, true, []int{1, 1, 1}, []float32{6}, true}, // 1..8: squared deviations 42, / 7
		{"lse (0, 2)", []int{2, 0}, true, []int{1, 2, 1}, []float32{lse(1, 2, 5, 6), lse(3, 4, 7, 8)}, false},
		{"lse all", []int{}, false, []int{}, []float32{lse(1, 2, 3, 4, 5, 6, 7, 8)}, false},
	} {
		var op interface {
			Bind(x *Tensor) ([]int, error)
			Forward(out, x *Tensor) error
			reference(out, x *Tensor)
		}
		if c.var_ {
			op, _ = NewVarFwd(c.dim, 1, c.keep, Float32)
		} else {
			op, _ = NewLogsumexpFwd(c.dim, c.keep, Float32)
		}
		shape, err := op.Bind(x)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(shape, c.shape) {
			t.Errorf("%s: output shape %v, want %v", c.name, shape, c.shape)
		}
		want := &Tensor{Shape: shape, DType: Float32, Data: c.want}
		y := mustTensor(t, Float32, shape...)
		if err := op.Forward(y, x); err != nil {
			t.Fatal(err)
		}
		if err := Compare(y, want, Tol{Abs: 1e-6, Rel: 1e-6}); err != nil {
			t.Errorf("%s: kernel: %v", c.name, err)
		}
		op.reference(y, x)
		if err := Compare(y, want, Tol{Abs: 1e-6, Rel: 1e-6}); err != nil {
			t.Errorf("%s: reference: %v", c.name, err)
		}
	}
}

// TestLogsumexpSpecial: lines of -inf give -inf (a fully masked row), +inf gives +inf, NaN
// gives NaN, a line of -inf with one finite value gives that value, and large values do not
// overflow; in both traversals (a line as a row, and as columns).
func TestLogsumexpSpecial(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	lines := []struct {
		x    []float32
		want float32
	}{
		{[]float32{-inf, -inf, -inf}, -inf},
		{[]float32{1, inf, -inf}, inf},
		{[]float32{1, nan, 2}, nan},
		{[]float32{-inf, nan, -inf}, nan},
		{[]float32{-inf, -inf, 3}, 3},
		{[]float32{-inf, -100, -inf}, -100},
		{[]float32{1000, 1000, -inf}, float32(1000 + math.Ln2)},
		{[]float32{-1e30, 5, -1e30}, 5},
	}
	const cols = 9 // a block of 8 for the SIMD kernels and one more
	for _, c := range lines {
		// 13 more -inf (adding exp(-inf) = 0) make the line 16 long: whole SIMD blocks.
		line := append(slices.Clone(c.x), slices.Repeat([]float32{-inf}, 13)...)
		n := len(line)
		for _, dim := range []int{-1, 0} {
			x := mustTensor(t, Float32, 1, n)
			if dim == 0 {
				x = mustTensor(t, Float32, n, cols) // every column holds the line
			}
			for j, v := range line {
				if dim == 0 {
					for k := range cols {
						x.Data[cols*j+k] = v
					}
				} else {
					x.Data[j] = v
				}
			}
			op, _ := NewLogsumexpFwd([]int{dim}, false, Float32)
			shape, err := op.Bind(x)
			if err != nil {
				t.Fatal(err)
			}
			y := mustTensor(t, Float32, shape...)
			if err := op.Forward(y, x); err != nil {
				t.Fatal(err)
			}
			for _, got := range y.Data {
				if !(got == c.want || got != got && c.want != c.want) {
					t.Errorf("logsumexp(%v) along dim %d = %v, want %v", c.x, dim, got, c.want)
				}
			}
		}
	}
}

func TestStatErrors(t *testing.T) {
	if _, err := NewVarFwd([]int{0}, -1, false, Float32); err == nil || !strings.Contains(err.Error(), "VarFwd: correction -1 is negative") {
		t.Errorf("NewVarFwd(correction -1): err = %v", err)
	}
	v, _ := NewVarFwd([]int{1}, 1, false, Float32)
	if _, err := v.Bind(mustTensor(t, Float32, 5, 1)); err == nil || !strings.Contains(err.Error(), "has 1 elements per output; correction 1 leaves no degrees of freedom") {
		t.Errorf("var over a dim of 1: err = %v", err)
	}
	v, _ = NewVarFwd(nil, 2, false, Float32) // every axis: 2 elements
	if _, err := v.Bind(mustTensor(t, Float32, 1, 2)); err == nil || !strings.Contains(err.Error(), "has 2 elements per output; correction 2") {
		t.Errorf("var over every axis of 2 elements, correction 2: err = %v", err)
	}
	v, _ = NewVarFwd([]int{0, 0}, 1, false, Float32)
	if _, err := v.Bind(mustTensor(t, Float32, 5, 2)); err == nil || !strings.Contains(err.Error(), "names axis 0 twice") {
		t.Errorf("var over [0 0]: err = %v", err)
	}
	l, _ := NewLogsumexpFwd([]int{-3}, true, Float32)
	if _, err := l.Bind(mustTensor(t, Float32, 5, 2)); err == nil || !strings.Contains(err.Error(), "LogsumexpFwd: dim -3 out of range for a tensor of rank 2") {
		t.Errorf("logsumexp dim -3 of a matrix: err = %v", err)
	}
	// keepdim shapes the output; Forward refuses the other shape.
	l, _ = NewLogsumexpFwd([]int{0}, true, Float32)
	if err := l.Forward(mustTensor(t, Float32, 2), mustTensor(t, Float32, 3, 2)); err == nil || !strings.Contains(err.Error(), "want float32[1 2]") {
		t.Errorf("logsumexp keepdim into a squeezed output: err = %v", err)
	}
}
