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

// TestAttentionBlocked checks the blocked kernel against the float64 reference at every
// SIMD level: sequences that are not a multiple of either block, head dims that are not a
// multiple of any vector width, causal masks with seq_q below seq_kv, a single query,
// GQA groups of 1, 2 and 3, and keys whose scores grow along the sequence, so that every
// key block raises the running max and rescales the accumulator.
func TestAttentionBlocked(t *testing.T) {
	for _, level := range []int{SIMDGo, SIMDAVX2, SIMDAVX512} {
		restore := SetSIMD(level)
		for _, c := range []struct {
			batch, heads, kvHeads, seqQ, seqKV, d int
			causal, ramp                          bool
		}{
			{1, 4, 2, 100, 100, 20, true, false},
			{2, 3, 1, 37, 150, 33, true, false},
			{1, 2, 2, 65, 129, 64, false, false},
			{1, 2, 1, 1, 70, 8, true, false},
			{1, 1, 1, 200, 200, 5, true, false},
			{1, 2, 2, 70, 300, 17, false, true},
			{1, 1, 1, 130, 130, 48, true, true},
			// Causal over more than one key block (attnKBlock keys), seq_q below seq_kv.
			{1, 2, 1, 70, 300, 24, true, true},
			{1, 1, 1, 270, 270, 16, true, false},
		} {
			op, err := NewAttentionFwd([4]int{c.batch, c.heads, c.seqQ, c.d}, [4]int{c.batch, c.kvHeads, c.seqKV, c.d}, c.causal, Float32, Float32)
			if err != nil {
				t.Fatal(err)
			}
			q := mustTensor(t, Float32, c.batch, c.heads, c.seqQ, c.d)
			k, v := mustTensor(t, Float32, c.batch, c.kvHeads, c.seqKV, c.d), mustTensor(t, Float32, c.batch, c.kvHeads, c.seqKV, c.d)
			for i, x := range []*Tensor{q, k, v} {
				if err := FillUniform(x, uint64(i+1), -1, 1); err != nil {
					t.Fatal(err)
				}
			}
			if c.ramp {
				for i := range q.Data {
					q.Data[i] = 1
				}
				for i := range k.Data {
					k.Data[i] = float32(i/c.d%c.seqKV) / float32(c.seqKV)
				}
			}
			o, want := mustTensor(t, Float32, c.batch, c.heads, c.seqQ, c.d), mustTensor(t, Float32, c.batch, c.heads, c.seqQ, c.d)
			if err := op.Forward(o, q, k, v); err != nil {
				t.Fatal(err)
			}
			op.reference(want, q, k, v)
			if err := Compare(o, want, attentionTol(c.d, c.seqKV)); err != nil {
				t.Errorf("level %s, %+v: %v", simdName(simdLevel()), c, err)
			}
		}
		restore()
	}
}
