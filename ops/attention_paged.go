package ops

import (
	"fmt"
	"math"
	"slices"
)

// PagedAttentionFwd is vLLM's decode attention over a paged KV cache: for each sequence s
// and query head h, the keys and values of the sequence's first context_lens[s] cached
// tokens, token t at block block_tables[s][t / block_size], slot t % block_size of kv head
// h / (heads / kv_heads) (grouped-query attention); out = softmax(q · kᵀ · scale) · v with
// scale = 1/sqrt(head_dim).
type PagedAttentionFwd struct {
	NumSeqs, Heads, KvHeads, HeadDim, NumBlocks, BlockSize, MaxBlocks int
	ContextLens                                                       []int
	DType                                                             DType
}

// NewPagedAttentionFwd returns the decode attention of the given dims over dtype dt.
func NewPagedAttentionFwd(numSeqs, heads, kvHeads, headDim, numBlocks, blockSize, maxBlocks int, contextLens []int, dt DType) (*PagedAttentionFwd, error) {
	const name = "PagedAttentionFwd"
	if err := checkDims(name, dimArg{"num_seqs", numSeqs}, dimArg{"heads", heads}, dimArg{"kv_heads", kvHeads},
		dimArg{"head_dim", headDim}, dimArg{"num_blocks", numBlocks}, dimArg{"block_size", blockSize}, dimArg{"max_blocks", maxBlocks}); err != nil {
		return nil, err
	}
	if heads%kvHeads != 0 {
		return nil, fmt.Errorf("%s: heads %d is not a multiple of kv_heads %d", name, heads, kvHeads)
	}
	if len(contextLens) != numSeqs {
		return nil, fmt.Errorf("%s: context_lens has %d entries, want num_seqs = %d", name, len(contextLens), numSeqs)
	}
	for s, c := range contextLens {
		if c < 1 || c > maxBlocks*blockSize {
			return nil, fmt.Errorf("%s: context_lens[%d] = %d; want 1 to max_blocks * block_size = %d", name, s, c, maxBlocks*blockSize)
		}
	}
	if err := checkDType(name, dt, Float16, BFloat16); err != nil {
		return nil, err
	}
	return &PagedAttentionFwd{NumSeqs: numSeqs, Heads: heads, KvHeads: kvHeads, HeadDim: headDim, NumBlocks: numBlocks,
		BlockSize: blockSize, MaxBlocks: maxBlocks, ContextLens: slices.Clone(contextLens), DType: dt}, nil
}

// Bind checks the four inputs against the op's dims and returns out's shape.
func (op *PagedAttentionFwd) Bind(q, kCache, vCache, blockTables *Tensor) ([]int, error) {
	const name = "PagedAttentionFwd"
	if err := checkFixed(name, "q", q, op.DType, op.NumSeqs, op.Heads, op.HeadDim); err != nil {
		return nil, err
	}
	for _, c := range []Arg{{"k_cache", kCache}, {"v_cache", vCache}} {
		if err := checkFixed(name, c.Name, c.T, op.DType, op.NumBlocks, op.KvHeads, op.BlockSize, op.HeadDim); err != nil {
			return nil, err
		}
	}
	if err := checkFixed(name, "block_tables", blockTables, Int32, op.NumSeqs, op.MaxBlocks); err != nil {
		return nil, err
	}
	return []int{op.NumSeqs, op.Heads, op.HeadDim}, nil
}

// kv returns the offset of token t of sequence s, kv head g, in either cache, or an error
// for a block id outside the cache.
func (op *PagedAttentionFwd) kv(bt []float32, s, g, t int) (int, error) {
	b := bt[s*op.MaxBlocks+t/op.BlockSize]
	if !(b >= 0 && b < float32(op.NumBlocks)) || b != float32(int(b)) {
		return 0, fmt.Errorf("PagedAttentionFwd: block_tables[%d][%d] = %v is not a block of the %d in the cache", s, t/op.BlockSize, b, op.NumBlocks)
	}
	return ((int(b)*op.KvHeads+g)*op.BlockSize + t%op.BlockSize) * op.HeadDim, nil
}

// Forward computes every (sequence, head) pair in parallel: the scores with 4-way dot
// products over the gathered keys, the softmax with the vector max and exp-sum kernels, the
// weighted sum of the values.
func (op *PagedAttentionFwd) Forward(out, q, kCache, vCache, blockTables *Tensor) error {
	const name = "PagedAttentionFwd"
	shape, err := op.Bind(q, kCache, vCache, blockTables)
	if err != nil {
		return err
	}
	if err := checkData(name, []string{"q", "k_cache", "v_cache", "block_tables"}, q, kCache, vCache, blockTables); err != nil {
		return err
	}
	if err := checkOutput(name, out, op.DType, shape); err != nil {
		return err
	}
	for s, c := range op.ContextLens { // every block id a sequence uses, before any work
		for t := 0; t < c; t += op.BlockSize {
			if _, err := op.kv(blockTables.Data, s, 0, t); err != nil {
				return err
			}
		}
	}
	d, group := op.HeadDim, op.Heads/op.KvHeads
	scale := float32(1 / math.Sqrt(float64(d)))
	maxCtx := slices.Max(op.ContextLens)
	parallelFor(op.NumSeqs*op.Heads, 1, func(lo, hi int) {
		p := make([]float32, maxCtx)
		acc := make([]float32, d)
		for u := lo; u < hi; u++ {
			s, h := u/op.Heads, u%op.Heads
			g, ctx := h/group, op.ContextLens[s]
			qv := q.Data[u*d : (u+1)*d]
			for t := range ctx {
				o, _ := op.kv(blockTables.Data, s, g, t)
				p[t] = dot(qv, kCache.Data[o:o+d]) * scale
			}
			ps := p[:ctx]
			m := float32(maxRow(ps))
			sum := expSumRow(ps, ps, m, nil)
			clear(acc)
			for t, w := range ps {
				o, _ := op.kv(blockTables.Data, s, g, t)
				v := vCache.Data[o : o+d]
				for i := range acc {
					acc[i] += w * v[i]
				}
			}
			inv := float32(1 / sum)
			dst := out.Data[u*d : (u+1)*d]
			for i, a := range acc {
				dst[i] = a * inv
			}
		}
	})
	return nil
}

// dot is Σ a[i]·b[i] in float32 with four chains.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// reference computes each pair in float64 with math.Exp, serially.
func (op *PagedAttentionFwd) reference(out, q, kCache, vCache, blockTables *Tensor) error {
	d, group := op.HeadDim, op.Heads/op.KvHeads
	scale := 1 / math.Sqrt(float64(d))
	for s, ctx := range op.ContextLens {
		for h := range op.Heads {
			u, g := s*op.Heads+h, h/group
			sc := make([]float64, ctx)
			m := math.Inf(-1)
			for t := range ctx {
				o, err := op.kv(blockTables.Data, s, g, t)
				if err != nil {
					return err
				}
				for i := range d {
					sc[t] += float64(q.Data[u*d+i]) * float64(kCache.Data[o+i])
				}
				sc[t] *= scale
				m = math.Max(m, sc[t])
			}
			sum := 0.0
			for t := range sc {
				sc[t] = math.Exp(sc[t] - m)
				sum += sc[t]
			}
			for i := range d {
				a := 0.0
				for t := range ctx {
					o, _ := op.kv(blockTables.Data, s, g, t)
					a += sc[t] * float64(vCache.Data[o+i])
				}
				out.Data[u*d+i] = float32(a / sum)
			}
		}
	}
	return nil
}
