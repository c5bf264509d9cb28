package ops

import (
	"math/rand/v2"
	"testing"
)

// TestMoeTopKGating checks the gating against the float64 definition at every SIMD level:
// ids exactly (ties by smaller id: a row of equal logits keeps experts 0..k-1 at 1/k each),
// weights within the instance tolerance, and the constructor's bounds.
func TestMoeTopKGating(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, level := range []int{SIMDGo, SIMDAVX2, SIMDAVX512} {
		restore := SetSIMD(level)
		for _, c := range [][3]int{{9, 8, 2}, {5, 256, 8}, {3, 3, 3}, {4, 40, 1}, {2, 17, 17}} {
			op, err := NewMoeTopKGatingFwd(c[0], c[1], c[2], Float32)
			if err != nil {
				t.Fatal(err)
			}
			x := mustTensor(t, Float32, c[0], c[1])
			for i := range x.Data {
				x.Data[i] = float32(r.IntN(7)) - 3 + float32(r.IntN(3))*0.25 // ties within rows
			}
			for i := range c[1] { // a row of equal logits
				x.Data[i] = 1.5
			}
			w, ids := mustTensor(t, Float32, c[0], c[2]), mustTensor(t, Int32, c[0], c[2])
			ww, wids := mustTensor(t, Float32, c[0], c[2]), mustTensor(t, Int32, c[0], c[2])
			if err := op.Forward(w, ids, x); err != nil {
				t.Fatal(err)
			}
			op.reference(ww, wids, x)
			if err := Compare(ids, wids, Tol{}); err != nil {
				t.Errorf("level %d %v: ids: %v", level, c, err)
			}
			if err := Compare(w, ww, Tol{Abs: 1e-7, Rel: 2e-6}); err != nil {
				t.Errorf("level %d %v: weights: %v", level, c, err)
			}
			for j := range c[2] {
				if ids.Data[j] != float32(j) {
					t.Errorf("level %d %v: equal logits keep expert %v at %d, want %d", level, c, ids.Data[j], j, j)
				}
			}
		}
		restore()
	}
	for _, c := range [][3]int{{1, 8, 0}, {1, 8, 9}, {0, 8, 2}} {
		if _, err := NewMoeTopKGatingFwd(c[0], c[1], c[2], Float32); err == nil {
			t.Errorf("%v accepted", c)
		}
	}
}
