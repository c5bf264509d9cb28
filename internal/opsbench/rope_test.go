package opsbench

import "testing"

func TestRopeKernel(t *testing.T) {
	for _, d := range []map[string]int{
		{"B": 1, "S": 1, "H": 1, "D": 2},
		{"B": 2, "S": 3, "H": 4, "D": 8},
		{"B": 1, "S": 600, "H": 8, "D": 64}, // both cores
	} {
		checkKernel(t, kcase{op: "RopeFwd", dims: d, dtype: "bfloat16", outputs: []string{"y"}, shapes: map[string][]int{
			"x": {d["B"], d["S"], d["H"], d["D"]}, "cos": {d["S"], d["D"]}, "sin": {d["S"], d["D"]}}})
	}
}
