package opsbench

import "testing"

func linearCase(label string, m, n, k int, bias bool, dtype string) kcase {
	c := kcase{op: "LinearFwd", label: label, dims: map[string]int{"M": m, "N": n, "K": k},
		shapes: map[string][]int{"x": {m, k}, "weight": {n, k}, "y": {m, n}}, dtype: dtype, outputs: []string{"y"}}
	if bias {
		c.shapes["bias"] = []int{n}
	}
	return c
}

func TestLinearMatchesReference(t *testing.T) {
	for _, k := range []kcase{
		linearCase("bias", 16, 48, 64, true, "float32"),
		linearCase("nobias", 16, 48, 64, false, "bfloat16"),
		linearCase("decode-bias", 1, 300, 70, true, "float32"),
		linearCase("decode-3rows", 3, 37, 5, false, "float16"),
		linearCase("two-cores", 70, 90, 200, true, "float32"),
	} {
		checkKernel(t, k)
	}
}
