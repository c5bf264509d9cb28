package opsbench

import (
	"testing"

	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

func TestStatKernels(t *testing.T) {
	for _, c := range statShapes {
		for _, keepdim := range []bool{false, true} {
			checkKernel(t, kcase{op: "LogsumexpFwd", shapes: map[string][]int{"x": c.shape},
				params: map[string]any{"dim": []int{c.dim}, "keepdim": keepdim}, dtype: "float32", outputs: []string{"y"}})
		}
		if c.shape[normDim(c.dim, len(c.shape))] == 1 {
			continue // no degrees of freedom with correction 1
		}
		for _, corr := range []int{0, 1} {
			checkKernel(t, kcase{op: "VarFwd", shapes: map[string][]int{"x": c.shape},
				params: map[string]any{"dim": []int{c.dim}, "correction": corr, "keepdim": corr == 0}, dtype: "bfloat16", outputs: []string{"y"}})
		}
	}
}

func TestStatKernelsAxes(t *testing.T) {
	for _, c := range statAxes {
		for _, keepdim := range []bool{false, true} {
			checkKernel(t, kcase{op: "LogsumexpFwd", shapes: map[string][]int{"x": c.shape},
				params: map[string]any{"dim": c.dim, "keepdim": keepdim}, dtype: "float32", outputs: []string{"y"}})
			for _, corr := range []int{0, 1} {
				checkKernel(t, kcase{op: "VarFwd", shapes: map[string][]int{"x": c.shape},
					params: map[string]any{"dim": c.dim, "correction": corr, "keepdim": keepdim}, dtype: "bfloat16", outputs: []string{"y"}})
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
			params: map[string]any{"dim": []int{dim}, "correction": 1, "keepdim": false}, dtype: "float32", outputs: []string{"y"}}.Case(), bench.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := ops.FillUniform(in.Inputs[0].T, 5, 1e6, 1e6+1); err != nil {
			t.Fatal(err)
		}
		if err := in.Check(); err != nil {
			t.Errorf("dim %d: %v", dim, err)
		}
	}
}

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

// statAxes are lists of axes: adjacent (one view, no copy) and not (the permuted copy),
// size-1 dims between reduced ones (still adjacent), every axis (dim=None, nil), and shapes
// above 2*grainElems so both cores run.
var statAxes = []struct {
	shape []int
	dim   []int
}{
	{[]int{3, 5, 40}, []int{0, 2}},
	{[]int{6, 7, 8}, []int{1, 2}},
	{[]int{6, 7, 8}, []int{0, 1}},
	{[]int{6, 1, 8}, []int{0, 2}}, // adjacent once the 1 is dropped
	{[]int{2, 9, 7, 5}, []int{-4, -2}},
	{[]int{4, 3, 5, 6}, []int{3, 1}}, // unsorted
	{[]int{5, 41}, nil},
	{[]int{3, 4, 5}, []int{}},
	{[]int{7}, nil},
	{[]int{130, 40, 30}, []int{0, 2}}, // 156000 elements: both cores after the copy
	{[]int{3, 200, 300}, []int{1, 2}}, // both cores, rows of 60000
	{[]int{300, 300, 2}, nil},         // one long line
}

func normDim(d, n int) int {
	if d < 0 {
		return d + n
	}
	return d
}
