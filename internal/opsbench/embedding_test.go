package opsbench

import "testing"

func TestEmbeddingKernel(t *testing.T) {
	for _, d := range []map[string]int{
		{"N": 1, "V": 1, "D": 1},
		{"N": 37, "V": 1000, "D": 64},
		{"N": 300, "V": 500, "D": 512}, // both cores
	} {
		for _, idt := range []string{"int32", "int64"} {
			checkKernel(t, kcase{op: "EmbeddingFwd", dims: d, dtype: "float16", dtypes: map[string]string{"indices": idt},
				outputs: []string{"y"}, shapes: map[string][]int{"indices": {d["N"]}, "weight": {d["V"], d["D"]}}})
		}
	}
}
