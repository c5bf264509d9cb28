package ops

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestEmbeddingBadIDs(t *testing.T) {
	op, err := NewEmbeddingFwd(2, 3, 2, Int64, Float32)
	if err != nil {
		t.Fatal(err)
	}
	w := mustTensor(t, Float32, 3, 2)
	out := mustTensor(t, Float32, 2, 2)
	for _, ids := range [][]float32{{0, 3}, {-1, 0}, {0.5, 1}} {
		x := &Tensor{Shape: []int{2}, DType: Int64, Data: ids}
		if err := op.Forward(out, x, w); err == nil || !strings.Contains(err.Error(), "is not a row of the [3, 2] table") {
			t.Errorf("ids %v: err = %v", ids, err)
		}
	}
	if _, err := NewEmbeddingFwd(2, 3, 2, Float32, Float32); err == nil || !strings.Contains(err.Error(), "EmbeddingFwd indices: dtype float32 not supported") {
		t.Errorf("float ids: err = %v", err)
	}
}

// TestEmbeddingStreamed: the streamed path (a large output, written with streaming stores
// over each row's aligned lines) gathers the same rows as the cached one and the reference,
// for rows of any length and alignment.
func TestEmbeddingStreamed(t *testing.T) {
	prev := streamMinBytes
	defer func() { streamMinBytes = prev }()
	r := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 7, 16, 37, 4099} {
		const n, v = 23, 11
		op, err := NewEmbeddingFwd(n, v, d, Int64, Float32)
		if err != nil {
			t.Fatal(err)
		}
		w, ids := mustTensor(t, Float32, v, d), mustTensor(t, Int64, n)
		for i := range w.Data {
			w.Data[i] = r.Float32()
		}
		for i := range ids.Data {
			ids.Data[i] = float32(r.IntN(v))
		}
		want := mustTensor(t, Float32, n, d)
		op.reference(want, ids, w)
		for _, min := range []int{0, 1 << 62} {
			streamMinBytes = min
			out := mustTensor(t, Float32, n, d)
			if err := op.Forward(out, ids, w); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out.Data, want.Data) {
				t.Errorf("d=%d, streamMinBytes=%d: the gathered rows differ from the reference", d, min)
			}
		}
	}
}
