package ops

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTopK checks the streaming selection against the full sort of the reference at every
// SIMD level, on lines of every tail length with NaNs, ties, signed zeros and infinities,
// along the last and a middle dim, and k from 1 to the whole line.
func TestTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	levels := []int{SIMDGo, SIMDAVX2, SIMDAVX512}
	for _, level := range levels {
		restore := SetSIMD(level)
		for _, n := range []int{1, 2, 7, 16, 17, 40, 300, 1031} {
			for _, k := range []int{1, 2, 5, n} {
				if k > n {
					continue
				}
				for _, shape := range [][]int{{3, n}, {2, n, 3}} {
					x := mustTensor(t, Float32, shape...)
					x.Data = simdData(r, len(x.Data), 4)
					for i := range x.Data { // ties: repeat values
						if r.IntN(5) == 0 {
							x.Data[i] = float32(r.IntN(3))
						}
					}
					dim := 1
					if len(shape) == 2 {
						dim = -1
					}
					op, err := NewTopKFwd(k, dim, Float32)
					if err != nil {
						t.Fatal(err)
					}
					out, err := op.Bind(x)
					if err != nil {
						t.Fatal(err)
					}
					v, i := mustTensor(t, Float32, out...), mustTensor(t, Int64, out...)
					wv, wi := mustTensor(t, Float32, out...), mustTensor(t, Int64, out...)
					if err := op.Forward(v, i, x); err != nil {
						t.Fatal(err)
					}
					if err := op.reference(wv, wi, x); err != nil {
						t.Fatal(err)
					}
					for j := range v.Data {
						if !sameBits(v.Data[j], wv.Data[j]) && !(v.Data[j] != v.Data[j] && wv.Data[j] != wv.Data[j]) || i.Data[j] != wi.Data[j] {
							t.Fatalf("level %d shape %v k=%d: [%d] = %v at %v, want %v at %v", level, shape, k, j, v.Data[j], i.Data[j], wv.Data[j], wi.Data[j])
						}
					}
				}
			}
		}
		restore()
	}
	if _, err := NewTopKFwd(0, -1, Float32); err == nil {
		t.Error("k = 0 accepted")
	}
	op, _ := NewTopKFwd(5, -1, Float32)
	if _, err := op.Bind(mustTensor(t, Float32, 2, 4)); err == nil || !strings.Contains(err.Error(), "k = 5 is above") {
		t.Errorf("k above the line: %v", err)
	}
	if !ranksBefore(float32(math.NaN()), 3, float32(math.Inf(1)), 0) || ranksBefore(1, 2, 1, 1) {
		t.Error("ranksBefore: NaN must rank first and ties by index")
	}
}
