package opsbench

import "testing"

// TestClampTensorBoundKernels checks the kernel against the reference at odd shapes: every
// layout of the three operands (advancing, broadcast, absent) and rows split across workers.
func TestClampTensorBoundKernels(t *testing.T) {
	cases := []struct {
		x, lo, hi []int // nil: that tensor bound is absent (max_val or min_val stands in)
	}{
		{[]int{3, 70001}, []int{3, 70001}, []int{3, 70001}},
		{[]int{3, 70001}, []int{70001}, nil},
		{[]int{70001, 3}, nil, []int{70001, 1}},
		{[]int{3, 70001}, []int{3, 1}, []int{3, 1}},
		{[]int{5, 1, 7}, []int{6, 1}, []int{1}},
		{[]int{1, 7}, []int{5, 3, 1}, nil},
		{[]int{2, 40000, 2}, []int{2, 1, 2}, []int{40000, 1}},
		{[]int{1}, []int{1}, []int{1}},
		{[]int{4, 1, 3, 1}, nil, []int{2, 1, 5}},
	}
	for _, c := range cases {
		shapes := map[string][]int{"x": c.x}
		params := map[string]any{"min_val": nil, "max_val": nil}
		if c.lo != nil {
			shapes["lo"] = c.lo
		} else {
			params["min_val"] = -0.5
		}
		if c.hi != nil {
			shapes["hi"] = c.hi
		} else {
			params["max_val"] = 0.25
		}
		for _, dt := range []string{"float32", "bfloat16"} {
			checkKernel(t, kcase{op: "ClampFwd", shapes: shapes, params: params, dtype: dt, outputs: []string{"y"}})
		}
	}
}
