package opsbench

import "testing"

func TestReductionKernels(t *testing.T) {
	cases := []struct {
		shape []int
		dim   []int
	}{
		{[]int{7}, []int{0}},
		{[]int{3, 70001}, []int{-1}},      // rows, both cores
		{[]int{70001, 3}, []int{0}},       // columns
		{[]int{3, 40, 2100}, []int{1}},    // columns in chunks of colChunk, both cores
		{[]int{40, 3000}, []int{0, 1}},    // everything
		{[]int{3, 4, 5, 6}, []int{0, 2}},  // reduced, kept, reduced, kept: strided
		{[]int{3, 4, 5, 6}, []int{-1, 1}}, // kept, reduced, kept, reduced: strided
		{[]int{4, 1, 6}, []int{1}},        // a size-1 axis
		{[]int{2, 1, 6}, []int{0, 2}},
		{[]int{3, 5, 7}, nil},      // dim=None: every axis
		{[]int{2, 40000}, []int{}}, // every axis, one long line
		{[]int{5, 1, 3}, nil},
		{[]int{}, nil}, // a rank-0 input: its one element
	}
	for _, op := range []string{"SumFwd", "MeanFwd", "AmaxFwd"} {
		for _, c := range cases {
			for _, keep := range []bool{false, true} {
				checkKernel(t, kcase{op: op, shapes: map[string][]int{"x": c.shape}, dtype: "float32", outputs: []string{"y"},
					params: map[string]any{"dim": c.dim, "keepdim": keep}})
			}
		}
	}
}

func TestDimKernels(t *testing.T) {
	cases := []struct {
		shape []int
		dim   int
	}{
		{[]int{1}, 0},
		{[]int{3, 70001}, -1},  // long rows, both cores
		{[]int{3000, 50}, -1},  // many short rows, both cores
		{[]int{70001, 3}, 0},   // down the columns
		{[]int{2, 9, 2100}, 1}, // column blocks of colChunk
		{[]int{4, 5, 6}, -2},
		{[]int{4, 5, 6}, -3},
	}
	for _, op := range []string{"SoftmaxFwd", "LogSoftmaxFwd", "CumsumFwd"} {
		for _, c := range cases {
			checkKernel(t, kcase{op: op, shapes: map[string][]int{"x": c.shape}, dtype: "float32", outputs: []string{"y"},
				params: map[string]any{"dim": c.dim}})
		}
	}
}
