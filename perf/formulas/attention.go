package formulas

import "fmt"

// AttentionShape is what the attention formula reads from an op: its dims, its mask mode and
// the storage size in bytes of each tensor's dtype (q, k and v may differ: an fp8 KV cache
// read by bf16 queries).
type AttentionShape struct {
	Batch, Heads, KVHeads, SeqQ, SeqKV, HeadDim int
	Causal                                      bool
	QBytes, KBytes, VBytes, OBytes              int
}

// AttentionOp is an attention op as the formula sees it.
type AttentionOp interface {
	AttentionShape() AttentionShape
}

// Attention returns the FLOPs and minimum bytes of o = softmax(q·kᵀ/√d)·v with q
// [batch, heads, seq_q, d], k and v [batch, kv_heads, seq_kv, d], o [batch, heads, seq_q, d].
//
// FLOPs count the two contractions, 2·d per (query, key) pair for q·kᵀ and 2·d for p·v: 4·d
// per unmasked pair and query head (docs/model.md §2.1, a multiply-add is 2). The softmax (about 5
// vector FLOPs per pair: scale, max, exp, sum, divide) is left out because the op is priced
// on the cube roof, and counting vector work at the cube rate would misstate it; at d = 128
// it is 1% of the count (5 / 512).
//
// Causal uses the bottom-right aligned mask: query i sits at position seq_kv - seq_q + i and
// sees keys 0 through that position, as when the queries are the last seq_q tokens of a
// KV cache (decode: seq_q = 1 sees every key). Only unmasked pairs count, exactly:
// seq_q·(seq_kv - seq_q) + seq_q·(seq_q + 1)/2 per query head, not half of seq_q·seq_kv
// (for seq_q = seq_kv = S that is S(S+1)/2). Causal with seq_q > seq_kv would leave rows
// with no key and is an error.
//
// Bytes: q, k and v read once and o written once, each at its own dtype's size. K and V
// count once even when several query heads share a KV head (GQA): minimum traffic.
func Attention(op AttentionOp) (flops, bytes int64, err error) {
	s := op.AttentionShape()
	dims := []struct {
		name string
		v    int
	}{
		{"batch", s.Batch}, {"heads", s.Heads}, {"kv_heads", s.KVHeads}, {"seq_q", s.SeqQ},
		{"seq_kv", s.SeqKV}, {"head_dim", s.HeadDim}, {"q elem bytes", s.QBytes},
		{"k elem bytes", s.KBytes}, {"v elem bytes", s.VBytes}, {"o elem bytes", s.OBytes},
	}
	for _, d := range dims {
		if d.v < 0 {
			return 0, 0, fmt.Errorf("attention: %s is %d; it must not be negative", d.name, d.v)
		}
	}
	if s.Causal && s.SeqQ > s.SeqKV {
		return 0, 0, fmt.Errorf("attention: causal with seq_q %d > seq_kv %d leaves queries with no key", s.SeqQ, s.SeqKV)
	}
	var c checked
	b, h, hkv := int64(s.Batch), int64(s.Heads), int64(s.KVHeads)
	sq, skv, d := int64(s.SeqQ), int64(s.SeqKV), int64(s.HeadDim)
	pairs := c.mul(sq, skv)
	if s.Causal {
		// sq·(sq+1) is even, so the halving is exact.
		pairs = c.add(c.mul(sq, skv-sq), c.mul(sq, sq+1)/2)
	}
	flops = c.mul(4, b, h, pairs, d)
	qo := c.mul(b, h, sq, d)
	kv := c.mul(b, hkv, skv, d)
	bytes = c.add(
		c.mul(qo, int64(s.QBytes)),
		c.mul(kv, int64(s.KBytes)),
		c.mul(kv, int64(s.VBytes)),
		c.mul(qo, int64(s.OBytes)),
	)
	return c.result(flops, bytes)
}
