package formulas

import (
	"strings"
	"testing"
)

type attnOp AttentionShape

func (o attnOp) AttentionShape() AttentionShape { return AttentionShape(o) }

// bruteAttention counts by enumeration what Attention computes in closed form: every
// (query, key) pair the mask keeps, and every tensor's bytes one by one.
func bruteAttention(s AttentionShape) (flops, bytes int64) {
	var pairs int64
	for i := 0; i < s.SeqQ; i++ {
		for j := 0; j < s.SeqKV; j++ {
			if !s.Causal || j <= s.SeqKV-s.SeqQ+i {
				pairs++
			}
		}
	}
	flops = int64(s.Batch*s.Heads) * pairs * int64(2*s.HeadDim+2*s.HeadDim)
	q := int64(s.Batch * s.Heads * s.SeqQ * s.HeadDim)
	kv := int64(s.Batch * s.KVHeads * s.SeqKV * s.HeadDim)
	bytes = q*int64(s.QBytes) + kv*int64(s.KBytes) + kv*int64(s.VBytes) + q*int64(s.OBytes)
	return flops, bytes
}

func TestAttentionMatchesEnumeration(t *testing.T) {
	for _, s := range []AttentionShape{
		{Batch: 2, Heads: 4, KVHeads: 2, SeqQ: 7, SeqKV: 7, HeadDim: 8, QBytes: 2, KBytes: 2, VBytes: 2, OBytes: 2},
		{Batch: 2, Heads: 4, KVHeads: 2, SeqQ: 7, SeqKV: 7, HeadDim: 8, Causal: true, QBytes: 2, KBytes: 2, VBytes: 2, OBytes: 2},
		{Batch: 1, Heads: 8, KVHeads: 1, SeqQ: 5, SeqKV: 13, HeadDim: 16, Causal: true, QBytes: 2, KBytes: 1, VBytes: 1, OBytes: 2},
		{Batch: 3, Heads: 2, KVHeads: 2, SeqQ: 1, SeqKV: 9, HeadDim: 4, Causal: true, QBytes: 4, KBytes: 4, VBytes: 4, OBytes: 4},
		{Batch: 1, Heads: 2, KVHeads: 1, SeqQ: 9, SeqKV: 4, HeadDim: 4, QBytes: 2, KBytes: 1, VBytes: 2, OBytes: 4},
	} {
		flops, bytes, err := Attention(attnOp(s))
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		wf, wb := bruteAttention(s)
		if flops != wf || bytes != wb {
			t.Errorf("%+v: got (%d, %d), enumeration gives (%d, %d)", s, flops, bytes, wf, wb)
		}
	}
}

func TestAttentionCausalSquareIsTriangle(t *testing.T) {
	// Llama-3-8B prefill, 8192 tokens: S(S+1)/2 pairs per head, 4·d FLOPs each.
	s := AttentionShape{Batch: 1, Heads: 32, KVHeads: 8, SeqQ: 8192, SeqKV: 8192, HeadDim: 128, Causal: true,
		QBytes: 2, KBytes: 2, VBytes: 2, OBytes: 2}
	flops, _, err := Attention(attnOp(s))
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(32) * (8192 * 8193 / 2) * 4 * 128; flops != want {
		t.Errorf("flops = %d, want %d", flops, want)
	}
}

func TestAttentionErrors(t *testing.T) {
	for _, tc := range []struct {
		s    AttentionShape
		want string
	}{
		{AttentionShape{Batch: 1, Heads: 1, KVHeads: 1, SeqQ: 4, SeqKV: 2, HeadDim: 8, Causal: true}, "leaves queries with no key"},
		{AttentionShape{Batch: 1, Heads: -1, KVHeads: 1, SeqQ: 1, SeqKV: 1, HeadDim: 8}, "heads is -1"},
		{AttentionShape{Batch: 1 << 20, Heads: 1 << 20, KVHeads: 1, SeqQ: 1 << 20, SeqKV: 1 << 20, HeadDim: 128, QBytes: 2}, "overflows"},
	} {
		_, _, err := Attention(attnOp(tc.s))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want one containing %q", tc.s, err, tc.want)
		}
	}
}
