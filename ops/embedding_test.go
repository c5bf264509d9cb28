package ops

import (
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
