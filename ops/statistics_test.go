package ops

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// statShapes cover both traversals: contiguous lines (the last dim), lines longer than
// lseChunk, columns with fewer and more than colChunk of them, a mid dim, and shapes above
// 2*grainElems so both cores run.
var statShapes = []struct {
	shape []int
	dim   int
}{
	{[]int{4, 33}, -1},
	{[]int{1}, 0},
	{[]int{2, 9000}, 1},     // rows of several lseChunks, ragged last chunk
	{[]int{3, 70001}, -1},   // both cores, one row each
	{[]int{70001, 3}, 0},    // columns: few of them, long
	{[]int{3, 50, 2100}, 1}, // columns in 3 blocks of colChunk
	{[]int{40, 9, 500}, -2}, // a mid dim, both cores
	{[]int{6, 7, 8}, 0},
}

func TestStatKernels(t *testing.T) {
	for _, c := range statShapes {
		for _, keepdim := range []bool{false, true} {
			checkKernel(t, kcase{op: "LogsumexpFwd", shapes: map[string][]int{"x": c.shape},
				params: map[string]any{"dim": c.dim, "keepdim": keepdim}, dtype: "float32", outputs: []string{"y"}})
		}
		if c.shape[normDim(c.dim, len(c.shape))] == 1 {
			continue // no degrees of freedom with correction 1
		}
		for _, corr := range []int{0, 1} {
			checkKernel(t, kcase{op: "VarFwd", shapes: map[string][]int{"x": c.shape},
				params: map[string]any{"dim": c.dim, "correction": corr, "keepdim": corr == 0}, dtype: "bfloat16", outputs: []string{"y"}})
		}
	}
}

func normDim(d, n int) int {
	if d < 0 {
		return d + n
	}
	return d
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
			op, _ := NewLogsumexpFwd(dim, false, Float32)
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

// TestVarLargeMean: data with a mean 10^6 times its spread, where var = E[x²] - mean² loses
// all but about three digits even in float64 (sums of order 10^14 cancelling to 10^1). The
// kernel's shifted sums must match the two-pass reference in both traversals.
func TestVarLargeMean(t *testing.T) {
	for _, dim := range []int{-1, 0} {
		in, err := Build(kcase{op: "VarFwd", shapes: map[string][]int{"x": {300, 300}},
			params: map[string]any{"dim": dim, "correction": 1, "keepdim": false}, dtype: "float32", outputs: []string{"y"}}.Case(), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := FillUniform(in.Inputs[0].T, 5, 1e6, 1e6+1); err != nil {
			t.Fatal(err)
		}
		if err := in.Check(); err != nil {
			t.Errorf("dim %d: %v", dim, err)
		}
	}
}

func TestStatErrors(t *testing.T) {
	if _, err := NewVarFwd(0, -1, false, Float32); err == nil || !strings.Contains(err.Error(), "VarFwd: correction -1 is negative") {
		t.Errorf("NewVarFwd(correction -1): err = %v", err)
	}
	v, _ := NewVarFwd(1, 1, false, Float32)
	if _, err := v.Bind(mustTensor(t, Float32, 5, 1)); err == nil || !strings.Contains(err.Error(), "has 1 elements; correction 1 leaves no degrees of freedom") {
		t.Errorf("var over a dim of 1: err = %v", err)
	}
	l, _ := NewLogsumexpFwd(-3, true, Float32)
	if _, err := l.Bind(mustTensor(t, Float32, 5, 2)); err == nil || !strings.Contains(err.Error(), "LogsumexpFwd: dim -3 out of range for a tensor of rank 2") {
		t.Errorf("logsumexp dim -3 of a matrix: err = %v", err)
	}
	// keepdim shapes the output; Forward refuses the other shape.
	l, _ = NewLogsumexpFwd(0, true, Float32)
	if err := l.Forward(mustTensor(t, Float32, 2), mustTensor(t, Float32, 3, 2)); err == nil || !strings.Contains(err.Error(), "want float32[1 2]") {
		t.Errorf("logsumexp keepdim into a squeezed output: err = %v", err)
	}
}
