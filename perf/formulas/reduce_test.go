package formulas

import (
	"strings"
	"testing"
)

type redOp ReductionShape

func (o redOp) ReductionShape() (ReductionShape, error) { return ReductionShape(o), nil }

func TestReductions(t *testing.T) {
	x := []int{4, 6, 10} // T = 240
	cases := []struct {
		f           func(ReductionOp) (int64, int64, error)
		name        string
		dims        []int
		flops, outs int64
	}{
		{Sum, "sum", []int{-1}, 240 - 24, 24},
		{Sum, "sum", []int{0, 2}, 240 - 6, 6},
		{Sum, "sum", []int{2, 0, 1}, 240 - 1, 1},
		{Mean, "mean", []int{1}, 240, 40},
		{Amax, "amax", []int{-3}, 240 - 60, 60},
		{Var, "var", []int{0, -1}, 4 * 240, 6},
		{Logsumexp, "logsumexp", []int{1}, 4 * 240, 40},
		// dim=None (an empty list): every axis, one output.
		{Sum, "sum", nil, 240 - 1, 1},
		{Mean, "mean", []int{}, 240, 1},
		{Amax, "amax", nil, 240 - 1, 1},
		{Var, "var", nil, 4 * 240, 1},
		{Logsumexp, "logsumexp", nil, 4 * 240, 1},
	}
	for _, c := range cases {
		f, b, err := c.f(redOp{X: x, Dims: c.dims, ElemBytes: 2})
		if err != nil || f != c.flops || b != (240+c.outs)*2 {
			t.Errorf("%s over %v: %d, %d, %v; want %d, %d", c.name, c.dims, f, b, err, c.flops, (240+c.outs)*2)
		}
	}
}

// TestReductionAllAxesScalar: dim=None over a rank-0 tensor is its one element.
func TestReductionAllAxesScalar(t *testing.T) {
	if f, b, err := Sum(redOp{X: []int{}, ElemBytes: 4}); err != nil || f != 0 || b != 8 {
		t.Errorf("sum of a scalar: %d, %d, %v", f, b, err)
	}
	if _, _, err := Var(redOp{X: []int{1 << 61}, Dims: []int{0}, ElemBytes: 1}); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("var of 2^61 elements (4T overflows): err = %v", err)
	}
}

func TestReductionErrors(t *testing.T) {
	for _, c := range []struct {
		dims []int
		want string
	}{
		{[]int{3}, "dim 3 out of range for a tensor of rank 3"},
		{[]int{-4}, "dim -4 out of range"},
		{[]int{1, -2}, "names axis 1 twice"},
	} {
		_, _, err := Sum(redOp{X: []int{2, 3, 4}, Dims: c.dims, ElemBytes: 4})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("dims %v: err = %v, want %q", c.dims, err, c.want)
		}
	}
}

type embOp EmbeddingShape

func (o embOp) EmbeddingShape() EmbeddingShape { return EmbeddingShape(o) }

func TestEmbedding(t *testing.T) {
	// Llama-3-8B prefill: 8192 int64 ids into a 128256 x 4096 bf16 table.
	f, b, err := Embedding(embOp{N: 8192, Rows: 128256, Width: 4096, IndexBytes: 8, ElemBytes: 2})
	if err != nil || f != 0 || b != 8192*8+2*8192*4096*2 {
		t.Errorf("prefill: %d, %d, %v", f, b, err)
	}
	// More ids than rows: at most every row is read once.
	f, b, err = Embedding(embOp{N: 100, Rows: 10, Width: 4, IndexBytes: 4, ElemBytes: 4})
	if err != nil || f != 0 || b != 100*4+10*4*4+100*4*4 {
		t.Errorf("repeats: %d, %d, %v", f, b, err)
	}
}
