package ops

import (
	"fmt"
	"math"

	"github.com/ropgen/ropgen/perf/formulas"
)

// AttentionFwd is torch.nn.functional.scaled_dot_product_attention with grouped-query heads:
// o = softmax(q·kᵀ/√head_dim)·v, q [batch, heads, seq_q, head_dim], k and v [batch,
// kv_heads, seq_kv, head_dim], o like q. Query head h reads KV head h / (heads/kv_heads).
// With causal, query i sees keys 0 through seq_kv - seq_q + i (the mask aligned
// bottom-right, as when the queries are the newest tokens of a KV cache); this needs
// seq_q <= seq_kv.
//
// Its roofline is func mode (formulas.Attention): q and k/v take independent dtypes (an
// fp8 KV cache under bf16 queries), so the bytes depend on several dtypes.
type AttentionFwd struct {
	Batch, Heads, KvHeads, SeqQ, SeqKv, HeadDim int
	Causal                                      bool
	// QDType is the dtype of q and o, KVDType that of k and v.
	QDType, KVDType DType
}

// attnBlock is the number of query rows whose scores are held at once: it bounds the score
// buffer to attnBlock·seq_kv values, and lets a causal block stop at its last visible key.
const attnBlock = 64

// NewAttentionFwd returns attention for queries of shape q and keys and values of shape kv,
// q and o in dtype qdt, k and v in kvdt.
func NewAttentionFwd(q, kv [4]int, causal bool, qdt, kvdt DType) (*AttentionFwd, error) {
	op := &AttentionFwd{Batch: q[0], Heads: q[1], KvHeads: kv[1], SeqQ: q[2], SeqKv: kv[2], HeadDim: q[3],
		Causal: causal, QDType: qdt, KVDType: kvdt}
	err := checkDims("AttentionFwd", dimArg{"batch", op.Batch}, dimArg{"heads", op.Heads}, dimArg{"seq_q", op.SeqQ},
		dimArg{"head_dim", op.HeadDim}, dimArg{"kv batch", kv[0]}, dimArg{"kv_heads", op.KvHeads},
		dimArg{"seq_kv", op.SeqKv}, dimArg{"kv head_dim", kv[3]})
	if err != nil {
		return nil, err
	}
	switch {
	case kv[0] != op.Batch || kv[3] != op.HeadDim:
		return nil, fmt.Errorf("AttentionFwd: k and v %v must match q %v in batch and head_dim", kv, q)
	case op.Heads%op.KvHeads != 0:
		return nil, fmt.Errorf("AttentionFwd: heads %d is not a multiple of kv_heads %d", op.Heads, op.KvHeads)
	case causal && op.SeqQ > op.SeqKv:
		return nil, fmt.Errorf("AttentionFwd: causal with seq_q %d > seq_kv %d would leave queries with no key", op.SeqQ, op.SeqKv)
	}
	// q's dtype is the dtype of the contraction: its matrix unit must exist (no fp8 q).
	if err := checkCube("AttentionFwd", qdt); err != nil {
		return nil, err
	}
	if !kvdt.IsFloat() {
		return nil, fmt.Errorf("AttentionFwd: k and v dtype %v is not a float dtype", kvdt)
	}
	return op, nil
}

// ComputeRoof is the matrix unit at q's dtype. An fp8 KV cache is soft-FP8: k and v are
// dequantized to q's 16-bit dtype and contracted there, so they are priced at that unit,
// never at an fp8 ceiling (docs/model.md §3.3).
func (op *AttentionFwd) ComputeRoof() string { return cubeRoof(op.QDType) }

// AttentionShape is what formulas.Attention reads.
func (op *AttentionFwd) AttentionShape() formulas.AttentionShape {
	return formulas.AttentionShape{
		Batch: op.Batch, Heads: op.Heads, KVHeads: op.KvHeads, SeqQ: op.SeqQ, SeqKV: op.SeqKv, HeadDim: op.HeadDim,
		Causal: op.Causal,
		QBytes: op.QDType.Size(), KBytes: op.KVDType.Size(), VBytes: op.KVDType.Size(), OBytes: op.QDType.Size(),
	}
}

// Bind checks q, k and v against the op's shapes and dtypes and returns o's shape.
func (op *AttentionFwd) Bind(q, k, v *Tensor) ([]int, error) {
	if err := checkFixed("AttentionFwd", "q", q, op.QDType, op.Batch, op.Heads, op.SeqQ, op.HeadDim); err != nil {
		return nil, err
	}
	if err := checkFixed("AttentionFwd", "k", k, op.KVDType, op.Batch, op.KvHeads, op.SeqKv, op.HeadDim); err != nil {
		return nil, err
	}
	if err := checkFixed("AttentionFwd", "v", v, op.KVDType, op.Batch, op.KvHeads, op.SeqKv, op.HeadDim); err != nil {
		return nil, err
	}
	return []int{op.Batch, op.Heads, op.SeqQ, op.HeadDim}, nil
}

// visible is the number of keys query row i sees.
func (op *AttentionFwd) visible(i int) int {
	if op.Causal {
		return op.SeqKv - op.SeqQ + i + 1
	}
	return op.SeqKv
}

// heads returns the (batch, head) pair of flat head index bh, q's and o's offset and the
// offset of its KV head in k and v.
func (op *AttentionFwd) heads(bh int) (qOff, kvOff int) {
	b, h := bh/op.Heads, bh%op.Heads
	g := h / (op.Heads / op.KvHeads)
	return bh * op.SeqQ * op.HeadDim, (b*op.KvHeads + g) * op.SeqKv * op.HeadDim
}

// Forward computes o = softmax(q·kᵀ/√d)·v: the heads are split between the cores; for each
// head, blocks of query rows run scores = q·kᵀ and o = p·v on the serial gemm kernel.
func (op *AttentionFwd) Forward(o, q, k, v *Tensor) error {
	shape, err := op.Bind(q, k, v)
	if err != nil {
		return err
	}
	if err := checkData("AttentionFwd", []string{"q", "k", "v"}, q, k, v); err != nil {
		return err
	}
	if err := checkOutput("AttentionFwd", o, op.QDType, shape); err != nil {
		return err
	}
	d, scale := op.HeadDim, float32(1/math.Sqrt(float64(op.HeadDim)))
	perHead := 4 * op.SeqQ * op.SeqKv * d
	parallelFor(op.Batch*op.Heads, max(1, gemmGrainFlops/perHead), func(lo, hi int) {
		scores := make([]float32, min(attnBlock, op.SeqQ)*op.SeqKv)
		for bh := lo; bh < hi; bh++ {
			qOff, kvOff := op.heads(bh)
			kh := rowMajor(k.Data[kvOff:kvOff+op.SeqKv*d], d)
			vh := rowMajor(v.Data[kvOff:kvOff+op.SeqKv*d], d)
			for i0 := 0; i0 < op.SeqQ; i0 += attnBlock {
				rows := min(attnBlock, op.SeqQ-i0)
				keys := op.visible(i0 + rows - 1) // the block's last row sees the most
				s := scores[:rows*keys]
				qb := rowMajor(q.Data[qOff+i0*d:qOff+(i0+rows)*d], d)
				gemmSerial(rows, keys, d, qb, kh.t(), s, keys)
				for r := range rows {
					softmaxRow(s[r*keys:(r+1)*keys], op.visible(i0+r), scale)
				}
				gemmSerial(rows, d, keys, rowMajor(s, keys), vh, o.Data[qOff+i0*d:], d)
			}
		}
	})
	return nil
}

// softmaxRow turns row (raw scores q·k) into probabilities over its first n entries,
// scaled by scale, and zeroes the rest (the masked keys).
func softmaxRow(row []float32, n int, scale float32) {
	m := float32(math.Inf(-1))
	for j := range n {
		row[j] *= scale
		m = max(m, row[j])
	}
	var sum float32
	for j := range n {
		e := expf(row[j] - m)
		row[j] = e
		sum += e
	}
	inv := 1 / sum
	for j := range n {
		row[j] *= inv
	}
	clear(row[n:])
}

// reference is attention's definition in float64: for every query, the scaled dot product
// with every visible key, a softmax, and the weighted sum of the values.
func (op *AttentionFwd) reference(o, q, k, v *Tensor) {
	d, scale := op.HeadDim, 1/math.Sqrt(float64(op.HeadDim))
	p := make([]float64, op.SeqKv)
	for bh := range op.Batch * op.Heads {
		qOff, kvOff := op.heads(bh)
		for i := range op.SeqQ {
			n := op.visible(i)
			qi := q.Data[qOff+i*d : qOff+(i+1)*d]
			m := math.Inf(-1)
			for j := range n {
				var s float64
				for c, x := range qi {
					s += float64(x) * float64(k.Data[kvOff+j*d+c])
				}
				p[j] = s * scale
				m = math.Max(m, p[j])
			}
			var sum float64
			for j := range n {
				p[j] = math.Exp(p[j] - m)
				sum += p[j]
			}
			for c := range d {
				var acc float64
				for j := range n {
					acc += p[j] * float64(v.Data[kvOff+j*d+c])
				}
				o.Data[qOff+i*d+c] = float32(acc / sum)
			}
		}
	}
}

// attentionTol bounds the float32 kernel against the float64 reference: a score sums
// head_dim products, an output seq_kv weighted values, each product and weight at most about
// 1 for inputs in [-1, 1); each float32 step rounds by at most 2^-24 of the running value.
func attentionTol(headDim, seqKV int) Tol { return Tol{Abs: float64(headDim+seqKV) * 0x1p-20} }
