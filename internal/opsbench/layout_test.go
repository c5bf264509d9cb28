package opsbench

import "testing"

// TestLayoutKernels runs the layout kernels against their references on odd shapes, shapes
// above 2*grainElems (both cores, splits mid-row), and every traversal of the transpose:
// one element per position (tiled) and runs of post elements, with and without dims in
// between. The tolerance is zero: a layout op must move values exactly.
func TestLayoutKernels(t *testing.T) {
	for _, shape := range unaryShapes {
		checkKernel(t, kcase{op: "CopyFwd", shapes: map[string][]int{"x": shape}, dtype: "float16", outputs: []string{"y"}})
	}
	transposes := []struct {
		shape      []int
		dim0, dim1 int
	}{
		{[]int{5, 7}, 0, 1},
		{[]int{3, 70001}, 0, 1},          // a tall output, both cores
		{[]int{300, 301}, -1, 0},         // tiles with ragged edges
		{[]int{2, 300, 3, 130}, 1, 3},    // post = 1 with a mid dim
		{[]int{5, 200, 7, 64}, 1, 2},     // runs of 64
		{[]int{2, 40, 3, 5}, 0, 2},       // runs of 5: tiles of 12 positions
		{[]int{1, 2048, 32, 128}, 1, -2}, // [B, S, H, D] -> [B, H, S, D]
		{[]int{4, 5, 6}, 1, 1},           // a dim with itself: a copy
		{[]int{9}, 0, -1},
	}
	for _, c := range transposes {
		checkKernel(t, kcase{op: "TransposeFwd", shapes: map[string][]int{"x": c.shape},
			params: map[string]any{"dim0": c.dim0, "dim1": c.dim1}, dtype: "float32", outputs: []string{"y"}})
	}
	concats := []struct {
		a, b []int
		dim  int
	}{
		{[]int{3, 4, 5}, []int{3, 2, 5}, 1},
		{[]int{5, 7}, []int{5, 3}, -1},
		{[]int{2, 3}, []int{5, 3}, 0},
		{[]int{70001, 2}, []int{70001, 1}, 1},          // short rows across the worker split
		{[]int{2, 8, 4095, 16}, []int{2, 8, 1, 16}, 2}, // a KV-cache append
		{[]int{100000}, []int{40000}, 0},               // one row: the split falls inside a
		{[]int{1}, []int{1}, 0},
	}
	for _, c := range concats {
		checkKernel(t, kcase{op: "ConcatFwd", shapes: map[string][]int{"a": c.a, "b": c.b},
			params: map[string]any{"dim": c.dim}, dtype: "bfloat16", outputs: []string{"y"}})
	}
	pads := []struct {
		shape       []int
		left, right int
	}{
		{[]int{3, 7}, 2, 3},
		{[]int{1}, 0, 5},
		{[]int{2, 3, 5}, 4, 0},
		{[]int{5, 40000}, 3, 1}, // rows split between the cores
		{[]int{3, 70001}, 0, 0}, // no padding: a copy
	}
	for _, c := range pads {
		checkKernel(t, kcase{op: "PadFwd", shapes: map[string][]int{"x": c.shape},
			params: map[string]any{"pad_left": c.left, "pad_right": c.right, "value": -2.5}, dtype: "float32", outputs: []string{"y"}})
	}
}
