package opsbench

import "testing"

func TestGemmOpsMatchReference(t *testing.T) {
	for _, k := range []kcase{
		{op: "GemmFwd", label: "ragged", dims: map[string]int{"M": 5, "N": 37, "K": 19}, shapes: map[string][]int{"a": {5, 19}, "b": {19, 37}, "c": {5, 37}}, dtype: "float32", outputs: []string{"c"}},
		{op: "GemmFwd", label: "gemv", dims: map[string]int{"M": 1, "N": 300, "K": 70}, shapes: map[string][]int{"a": {1, 70}, "b": {70, 300}}, dtype: "bfloat16", outputs: []string{"c"}},
		{op: "GemmFwd", label: "two-cores", dims: map[string]int{"M": 96, "N": 80, "K": 300}, shapes: map[string][]int{"a": {96, 300}, "b": {300, 80}}, dtype: "float16", outputs: []string{"c"}},
		{op: "BatchedGemmFwd", label: "small", dims: map[string]int{"batch": 3, "M": 9, "N": 6, "K": 11}, shapes: map[string][]int{"a": {3, 9, 11}, "b": {3, 11, 6}, "c": {3, 9, 6}}, dtype: "float32", outputs: []string{"c"}},
		{op: "BatchedGemmFwd", label: "decode", dims: map[string]int{"batch": 2, "M": 1, "N": 33, "K": 8}, shapes: map[string][]int{"a": {2, 1, 8}, "b": {2, 8, 33}}, dtype: "bfloat16", outputs: []string{"c"}},
	} {
		checkKernel(t, k)
	}
}
