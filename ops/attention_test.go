package ops

import (
	"strings"
	"testing"
)

// TestAttentionCausalMask uses zero queries, so every visible key scores the same and each
// output is the plain mean of the values its query may see: the mask is checked row by row.
func TestAttentionCausalMask(t *testing.T) {
	const seqQ, seqKV = 3, 5
	op, err := NewAttentionFwd([4]int{1, 1, seqQ, 1}, [4]int{1, 1, seqKV, 1}, true, Float32, Float32)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := NewTensor(Float32, 1, 1, seqQ, 1)
	k := &Tensor{Shape: []int{1, 1, seqKV, 1}, DType: Float32, Data: []float32{3, -1, 4, 1, -5}}
	v := &Tensor{Shape: []int{1, 1, seqKV, 1}, DType: Float32, Data: []float32{1, 2, 4, 8, 16}}
	o, _ := NewTensor(Float32, 1, 1, seqQ, 1)
	if err := op.Forward(o, q, k, v); err != nil {
		t.Fatal(err)
	}
	// Query i sees keys 0..seq_kv-seq_q+i: 3, 4 and 5 keys.
	want := &Tensor{Shape: o.Shape, DType: Float32, Data: []float32{(1 + 2 + 4) / 3., (1 + 2 + 4 + 8) / 4., 31 / 5.}}
	if err := Compare(o, want, Tol{Abs: 1e-6}); err != nil {
		t.Error(err)
	}
}

func TestAttentionErrors(t *testing.T) {
	for _, tc := range []struct {
		q, kv     [4]int
		causal    bool
		qdt, kvdt DType
		want      string
	}{
		{[4]int{1, 6, 4, 8}, [4]int{1, 4, 4, 8}, false, Float32, Float32, "heads 6 is not a multiple of kv_heads 4"},
		{[4]int{1, 4, 8, 8}, [4]int{1, 2, 4, 8}, true, Float32, Float32, "causal with seq_q 8 > seq_kv 4"},
		{[4]int{1, 4, 4, 8}, [4]int{1, 2, 4, 16}, false, Float32, Float32, "must match q"},
		{[4]int{1, 4, 4, 8}, [4]int{1, 2, 4, 8}, false, Float8E4M3, Float8E4M3, "no matrix-unit roof"},
		{[4]int{1, 4, 4, 8}, [4]int{1, 2, 4, 8}, false, BFloat16, Int8, "not a float dtype"},
		{[4]int{1, 4, 0, 8}, [4]int{1, 2, 4, 8}, false, Float32, Float32, "seq_q is 0"},
	} {
		if _, err := NewAttentionFwd(tc.q, tc.kv, tc.causal, tc.qdt, tc.kvdt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc, err, tc.want)
		}
	}
	op, _ := NewAttentionFwd([4]int{1, 4, 4, 8}, [4]int{1, 2, 4, 8}, false, BFloat16, Float8E4M3)
	if got := op.ComputeRoof(); got != "cube.bf16" {
		t.Errorf("bf16 queries over an fp8 KV cache: ComputeRoof = %q, want cube.bf16 (soft-FP8)", got)
	}
	s := op.AttentionShape()
	if s.QBytes != 2 || s.KBytes != 1 || s.VBytes != 1 || s.OBytes != 2 || s.KVHeads != 2 || s.HeadDim != 8 {
		t.Errorf("AttentionShape = %+v", s)
	}
}
