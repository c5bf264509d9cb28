package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/ropgen/ropgen/internal/asm/f32"
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

// Forward computes every (sequence, head) pair in parallel, streaming the sequence's pages:
// a page holds block_size consecutive tokens of one KV head, contiguous, so the scores of a
// page are one small product with its keys (the dot-product kernel) and the weighted values
// one accumulation over its rows (the gemv kernel); the softmax runs between the two passes
// with the vector max and exp-sum kernels.
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
	bs := op.BlockSize
	parallelFor(op.NumSeqs*op.Heads, 1, func(lo, hi int) {
		p := make([]float32, maxCtx)
		acc := make([]float32, d)
		for w := lo; w < hi; w++ {
			// Head-major order: any run of pairs mixes the sequences, long and short.
			s, h := w%op.NumSeqs, w/op.NumSeqs
			u := s*op.Heads + h
			g, ctx := h/group, op.ContextLens[s]
			qv := rowMajor(q.Data[u*d:(u+1)*d], d)
			for t0 := 0; t0 < ctx; t0 += bs {
				n := min(bs, ctx-t0)
				o, _ := op.kv(blockTables.Data, s, g, t0)
				gemmSmall(1, n, d, qv, rowMajor(kCache.Data[o:o+n*d], d).t(), p[t0:t0+n], n)
			}
			ps := p[:ctx]
			for t := range ps {
				ps[t] *= scale
			}
			m := float32(maxRow(ps))
			sum := expSumRow(ps, ps, m, nil)
			clear(acc)
			for t0 := 0; t0 < ctx; t0 += bs {
				n := min(bs, ctx-t0)
				o, _ := op.kv(blockTables.Data, s, g, t0)
				addRows(acc, ps[t0:t0+n], vCache.Data[o:o+n*d])
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

// addRows adds Σ_t w[t]·v[t, :] to acc, v row-major with len(acc) columns, t in order: the
// gemv kernel over the columns it covers (it continues the sums in acc), Go over the rest.
func addRows(acc, w, v []float32) {
	d := len(acc)
	j0 := f32.GemvRows(w, v, d, acc)
	for t, x := range w {
		row := v[t*d+j0 : (t+1)*d]
		out := acc[j0 : j0+len(row)]
		for i, y := range row {
			out[i] += x * y
		}
	}
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
