package ops

import (
	"strings"
	"testing"
)

// TestPagedAttention checks the kernel against the float64 reference at every SIMD level
// (GQA groups of 1, 2 and 3, contexts of one token, a partial last block and many blocks,
// blocks shared between sequences, head dims below one vector and past whole vectors), and
// that a block id outside the cache is an error.
func TestPagedAttention(t *testing.T) {
	for _, level := range []int{SIMDGo, SIMDAVX2, SIMDAVX512} {
		restore := SetSIMD(level)
		for _, c := range []struct {
			heads, kvHeads, d int
			ctx               []int
		}{{6, 2, 20, []int{1, 5, 37}}, {2, 2, 20, []int{40, 3, 16}}, {4, 2, 72, []int{29, 7, 40}}} {
			const nb, bs, mb = 12, 4, 10
			d := c.d
			op, err := NewPagedAttentionFwd(len(c.ctx), c.heads, c.kvHeads, d, nb, bs, mb, c.ctx, BFloat16)
			if err != nil {
				t.Fatal(err)
			}
			q := mustTensor(t, BFloat16, len(c.ctx), c.heads, d)
			kc, vc := mustTensor(t, BFloat16, nb, c.kvHeads, bs, d), mustTensor(t, BFloat16, nb, c.kvHeads, bs, d)
			bt := mustTensor(t, Int32, len(c.ctx), mb)
			for _, x := range []*Tensor{q, kc, vc} {
				if err := FillUniform(x, 3, -2, 2); err != nil {
					t.Fatal(err)
				}
			}
			for i := range bt.Data {
				bt.Data[i] = float32((i * 7) % nb) // sequences share blocks
			}
			out, want := mustTensor(t, BFloat16, len(c.ctx), c.heads, d), mustTensor(t, BFloat16, len(c.ctx), c.heads, d)
			if err := op.Forward(out, q, kc, vc, bt); err != nil {
				t.Fatal(err)
			}
			if err := op.reference(want, q, kc, vc, bt); err != nil {
				t.Fatal(err)
			}
			if err := Compare(out, want, Tol{Abs: 2e-6, Rel: 1e-5}); err != nil {
				t.Errorf("level %d %+v: %v", level, c, err)
			}
			bt.Data[1] = nb // the second block of sequence 0: used only when its context reaches it
			err = op.Forward(out, q, kc, vc, bt)
			if used := c.ctx[0] > bs; used != (err != nil) || err != nil && !strings.Contains(err.Error(), "is not a block") {
				t.Errorf("level %d %+v: block id %d: %v", level, c, nb, err)
			}
		}
		restore()
	}
	if _, err := NewPagedAttentionFwd(1, 6, 4, 8, 2, 4, 2, []int{3}, BFloat16); err == nil {
		t.Error("heads 6 over kv_heads 4 accepted")
	}
	if _, err := NewPagedAttentionFwd(1, 4, 2, 8, 2, 4, 2, []int{9}, BFloat16); err == nil {
		t.Error("a context beyond max_blocks * block_size accepted")
	}
}
