package opsbench

import "testing"

func TestNormKernels(t *testing.T) {
	cases := []struct {
		x, ns []int
	}{
		{[]int{1}, []int{1}},
		{[]int{5, 7}, []int{7}},
		{[]int{2, 3, 4, 5}, []int{4, 5}},
		{[]int{40, 4096}, []int{4096}}, // both cores
		{[]int{3, 70001}, []int{70001}},
	}
	for _, c := range cases {
		for _, affine := range []int{0, 1, 2, 3} { // bit 0: weight, bit 1: bias
			shapes := map[string][]int{"x": c.x}
			if affine&1 != 0 {
				shapes["weight"] = c.ns
			}
			lnShapes := map[string][]int{}
			for k, v := range shapes {
				lnShapes[k] = v
			}
			if affine&2 != 0 {
				lnShapes["bias"] = c.ns
			}
			checkKernel(t, kcase{op: "LayerNormFwd", shapes: lnShapes, dtype: "float32", outputs: []string{"y"},
				params: map[string]any{"normalized_shape": c.ns, "eps": 1e-5}})
			if affine < 2 {
				for _, eps := range []any{nil, 1e-6} {
					checkKernel(t, kcase{op: "RMSNormFwd", shapes: shapes, dtype: "bfloat16", outputs: []string{"y"},
						params: map[string]any{"normalized_shape": c.ns, "eps": eps}})
				}
			}
		}
	}
}
