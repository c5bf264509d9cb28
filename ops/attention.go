package ops

import (
	"fmt"
	"math"
	"sync"

	"github.com/ropgen/ropgen/internal/asm/f32"
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

// attnQBlock and attnKBlock are the query rows and keys of one step of the blocked kernel
// (rounded to the micro-kernel's mr and nr). A step's scores and their packed copy, two
// times attnQBlock·attnKBlock values, stay in a core's cache beside the packed query block
// and its output accumulator (in L2 at 256 keys); the softmax runs row by row over a step's
// keys, a few kernel calls a row whatever its length, so more keys a step spread those calls
// over more work (docs/history.md has the A/B of 128 against 256), and a causal block stops
// at the key block of its last visible key.
const (
	attnQBlock = 64
	attnKBlock = 256
)

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

// Forward computes o = softmax(q·kᵀ/√d)·v blocked, flash style, so the score matrix never
// goes to memory: k and v are packed once per KV head into the GEMM micro-kernel's column
// panels; each block of query rows then walks the key blocks it can see, holding one
// block of scores, with a running max and sum per row that rescale its output
// accumulator whenever the max grows. The (head, query block) pairs are split between the
// cores; a causal block stops at its last visible key block.
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
	kern := gemmActive()
	p := op.plan(kern)
	kvs := op.Batch * op.KvHeads
	pb := attnBufs.Get().(*[]float32)
	defer attnBufs.Put(pb)
	*pb = grow(*pb, kvs*p.perKV)
	packed := *pb
	parallelFor(kvs, 1, func(lo, hi int) {
		for kvh := lo; kvh < hi; kvh++ {
			off := kvh * op.SeqKv * op.HeadDim
			op.packKV(p, k.Data[off:], v.Data[off:], packed[kvh*p.perKV:(kvh+1)*p.perKV])
		}
	})
	perBlock := 4 * p.bq * op.SeqKv * op.HeadDim
	parallelFor(op.Batch*op.Heads*p.qBlocks, max(1, gemmGrainFlops/perBlock), func(lo, hi int) {
		sb := attnBufs.Get().(*[]float32)
		defer attnBufs.Put(sb)
		s := newAttnScratch(p, sb)
		for t := lo; t < hi; t++ {
			// The query blocks of a head alternate from both ends, so that any run of
			// tasks mixes a causal mask's short blocks with its long ones.
			bh, j := t/p.qBlocks, t%p.qBlocks
			if j%2 == 1 {
				j = p.qBlocks - 1 - j/2
			} else {
				j /= 2
			}
			i0 := j * p.bq
			qOff, kvOff := op.heads(bh)
			kvh := kvOff / (op.SeqKv * op.HeadDim)
			op.block(p, s, i0, q.Data[qOff:], o.Data[qOff:], packed[kvh*p.perKV:(kvh+1)*p.perKV])
		}
	})
	return nil
}

// attnPlan is the blocking of one attention forward on one micro-kernel.
type attnPlan struct {
	kern    *microKernel
	bq, bk  int // query rows and keys of a step: multiples of mr and nr
	qBlocks int
	kBlocks int
	dPad    int // head_dim rounded up to nr: the accumulator's row stride
	kPanel  int // floats of one key block's packed kᵀ: d·bk
	vPanel  int // floats of one key block's packed v: bk·dPad
	perKV   int // floats of one KV head's packed k and v
	scale   float32
	headDim int
	seqKv   int
}

func (op *AttentionFwd) plan(kern *microKernel) attnPlan {
	mr, nr, d := kern.mr, kern.nr, op.HeadDim
	bq := max(mr, attnQBlock/mr*mr)
	bk := roundUp(min(attnKBlock, op.SeqKv), nr) // a short sequence pads and clears no more than it has
	p := attnPlan{kern: kern, bq: bq, bk: bk, qBlocks: (op.SeqQ + bq - 1) / bq, kBlocks: (op.SeqKv + bk - 1) / bk,
		dPad: roundUp(d, nr), scale: float32(1 / math.Sqrt(float64(d))), headDim: d, seqKv: op.SeqKv}
	p.kPanel = d * bk
	p.vPanel = bk * p.dPad
	p.perKV = p.kBlocks * (p.kPanel + p.vPanel)
	return p
}

// packKV packs one KV head (k and v from the head's first row, seq_kv×d row-major): per
// key block, kᵀ (d×bk) in nr-column panels, the B operand of scores = q·kᵀ, then v
// (bk×d) in nr-column panels, the B operand of o += p·v. kᵀ's columns past seq_kv are
// zero; v's rows past it are never read. A panel is p-major, so a product over only the
// first keys of a block reads its start.
func (op *AttentionFwd) packKV(p attnPlan, k, v, dst []float32) {
	d, nr := p.headDim, p.kern.nr
	for b := range p.kBlocks {
		j0 := b * p.bk
		nk := min(p.bk, p.seqKv-j0)
		kp := dst[b*(p.kPanel+p.vPanel):]
		vp := kp[p.kPanel:]
		packB(d, nk, nr, rowMajor(k[j0*d:(j0+nk)*d], d).t(), kp)
		clear(kp[roundUp(nk, nr)*d : p.kPanel])
		// v's panels hold nk rows each, at a stride of bk rows.
		for c := 0; c < d; c += nr {
			packB(nk, min(nr, d-c), nr, rowMajor(v[j0*d+c:(j0+nk)*d], d), vp[c*p.bk:])
		}
	}
}

// attnScratch is one worker's buffers: the packed query block, the scores (probabilities
// after the softmax) of one step, their packed copy, the output accumulator and the
// running max and sum of every row.
type attnScratch struct {
	q, s, pp, acc, m, l []float32
}

// attnBufs keeps the packed KV heads and the workers' scratch between calls, so a kernel in
// a timing loop neither allocates nor zeroes them each call.
var attnBufs = sync.Pool{New: func() any { return new([]float32) }}

// newAttnScratch carves a worker's buffers out of buf, growing it as needed.
func newAttnScratch(p attnPlan, buf *[]float32) *attnScratch {
	sizes := [...]int{p.bq * p.headDim, p.bq * p.bk, p.bq * p.bk, p.bq * p.dPad, p.bq, p.bq}
	total := 0
	for _, n := range sizes {
		total += n
	}
	*buf = grow(*buf, total)
	var parts [len(sizes)][]float32
	rest := *buf
	for i, n := range sizes {
		parts[i], rest = rest[:n:n], rest[n:]
	}
	return &attnScratch{q: parts[0], s: parts[1], pp: parts[2], acc: parts[3], m: parts[4], l: parts[5]}
}

// block computes the output rows i0.. of one head: q and o from the head's first row,
// kv the head's packed KV head.
func (op *AttentionFwd) block(p attnPlan, s *attnScratch, i0 int, q, o, kv []float32) {
	kern, d, bk := p.kern, p.headDim, p.bk
	mr, nr := kern.mr, kern.nr
	rows := min(p.bq, op.SeqQ-i0)
	rowsPad := roundUp(rows, mr)
	// The query block, packed and scaled once: the scores come out scaled.
	packA(rows, d, mr, rowMajor(q[i0*d:(i0+rows)*d], d), s.q)
	qp := s.q[:rowsPad*d]
	for i := f32.Scale(qp, qp, nil, nil, p.scale, false); i < len(qp); i++ {
		qp[i] *= p.scale
	}
	acc := s.acc[:rowsPad*p.dPad]
	clear(acc)
	for r := range rows {
		s.m[r], s.l[r] = float32(math.Inf(-1)), 0
	}
	last := op.visible(i0 + rows - 1) // the block's last row sees the most
	for j0 := 0; j0 < last; j0 += bk {
		nk := min(bk, last-j0)
		kp := kv[j0/bk*(p.kPanel+p.vPanel):]
		vp := kp[p.kPanel:]
		// Under a causal mask a panel of mr rows sees fewer keys than the block's last
		// row: its products stop at its own last visible key (rounded up to nr).
		panelKeys := func(ir int) int { return min(nk, op.visible(i0+min(ir+mr, rows)-1)-j0) }
		for ir := 0; ir < rowsPad; ir += mr {
			for jr := 0; jr < roundUp(panelKeys(ir), nr); jr += nr {
				kern.tile(d, qp[ir*d:], kp[jr*d:], s.s[ir*bk+jr:], bk, false)
			}
		}
		for r := range rows {
			full := s.s[r*bk : (r+1)*bk]
			row := full[:nk]
			n := min(nk, op.visible(i0+r)-j0)
			if n <= 0 {
				clear(row)
				continue
			}
			mNew := max(s.m[r], float32(maxRow(row[:n])))
			// The masked keys up to the row's next whole vector (within the columns its
			// panel computed) score 64 below the max: the vector kernel takes them with the
			// rest rather than leaving a tail to the scalar exp, and their e^-64 is below
			// the last bit of the running sum, which is at least 1; cleared after.
			nv := n
			if l := f32.Lanes(); l > 0 {
				nv = max(n, min(roundUp(n, l), roundUp(panelKeys(r-r%mr), nr)))
			}
			for j := n; j < nv; j++ {
				full[j] = mNew - 64
			}
			sum := float32(expSumRow(full[:nv], full[:nv], mNew, nil))
			clear(row[n:])
			// A larger max rescales what the row has summed so far; a row's first step
			// has summed nothing (its accumulator and sum are zero).
			if s.m[r] != mNew && !math.IsInf(float64(s.m[r]), -1) {
				alpha := expf(s.m[r] - mNew)
				s.l[r] *= alpha
				a := acc[r*p.dPad : r*p.dPad+d]
				for c := f32.Scale(a, a, nil, nil, alpha, false); c < d; c++ {
					a[c] *= alpha
				}
			}
			s.m[r] = mNew
			s.l[r] += sum
		}
		// o += p·v over this step's nk keys: from the probabilities in place where the
		// kernel reads a's rows so (each is read once, by one panel's products), else
		// packed first.
		inPlace := kern.tileRows != nil
		if !inPlace {
			packA(rows, nk, mr, rowMajor(s.s, bk), s.pp)
		}
		for ir := 0; ir < rowsPad; ir += mr {
			pk := panelKeys(ir)
			for c := 0; pk > 0 && c < d; c += nr {
				if inPlace {
					kern.tileRows(pk, s.s[ir*bk:], bk, vp[c*bk:], acc[ir*p.dPad+c:], p.dPad, true)
				} else {
					kern.tile(pk, s.pp[ir*nk:], vp[c*bk:], acc[ir*p.dPad+c:], p.dPad, true)
				}
			}
		}
	}
	for r := range rows {
		inv := 1 / s.l[r]
		out, a := o[(i0+r)*d:(i0+r+1)*d], acc[r*p.dPad:r*p.dPad+d]
		for c := f32.Scale(out, a, nil, nil, inv, false); c < d; c++ {
			out[c] = a[c] * inv
		}
	}
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
