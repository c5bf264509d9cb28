package ops

import (
	"fmt"
	"math"
)

// MoeTopKGatingFwd is an MoE router's top-k gating: softmax over the E experts of each
// token's logits, the top_k experts by probability, and their probabilities renormalized
// to sum to one (Mixtral's router: softmax, torch.topk, divide by the sum). weights are
// float32, ids int32 (held exactly in float32). Experts rank as TopKFwd ranks them: larger
// first, equal ones by smaller id.
type MoeTopKGatingFwd struct {
	T, E, TopK int
	DType      DType
}

// NewMoeTopKGatingFwd returns the gating of t tokens over e experts keeping topK, over
// logits of dtype dt.
func NewMoeTopKGatingFwd(t, e, topK int, dt DType) (*MoeTopKGatingFwd, error) {
	const name = "MoeTopKGatingFwd"
	if err := checkDims(name, dimArg{"T", t}, dimArg{"E", e}); err != nil {
		return nil, err
	}
	if topK < 1 || topK > e {
		return nil, fmt.Errorf("%s: top_k = %d; want 1 <= top_k <= E = %d", name, topK, e)
	}
	if err := checkDType(name, dt, Float32, BFloat16); err != nil {
		return nil, err
	}
	return &MoeTopKGatingFwd{T: t, E: e, TopK: topK, DType: dt}, nil
}

// Bind checks the logits ([T, E]) and returns the shape of both outputs, [T, top_k].
func (op *MoeTopKGatingFwd) Bind(logits *Tensor) ([]int, error) {
	if err := checkFixed("MoeTopKGatingFwd", "logits", logits, op.DType, op.T, op.E); err != nil {
		return nil, err
	}
	return []int{op.T, op.TopK}, nil
}

// Forward selects each token's experts on the logits themselves (softmax is monotonic, so
// the top_k of the probabilities are those of the logits) and computes the renormalized
// weights as e**(l - max) over their sum among the kept experts: the softmax's own sum
// cancels in the renormalization. Tokens run in parallel.
func (op *MoeTopKGatingFwd) Forward(weights, ids, logits *Tensor) error {
	const name = "MoeTopKGatingFwd"
	shape, err := op.Bind(logits)
	if err != nil {
		return err
	}
	if err := logits.checkData(name, "logits"); err != nil {
		return err
	}
	if err := checkOutput(name, weights, Float32, shape); err != nil {
		return err
	}
	if err := checkOutput(name, ids, Int32, shape); err != nil {
		return err
	}
	k := op.TopK
	parallelFor(op.T, max(1, grainElems/op.E), func(lo, hi int) {
		vals, idx := make([]float32, k), make([]int, k)
		for t := lo; t < hi; t++ {
			row := logits.Data[t*op.E : (t+1)*op.E]
			topkLine(row, vals, idx)
			m := vals[0] // the row's maximum: the best ranked (a NaN makes every weight NaN)
			var s float64
			w := weights.Data[t*k : (t+1)*k]
			for j, v := range vals {
				e := expf(v - m)
				w[j] = e
				s += float64(e)
			}
			inv := float32(1 / s)
			for j := range w {
				w[j] *= inv
				ids.Data[t*k+j] = float32(idx[j])
			}
		}
	})
	return nil
}

// reference follows the definition in float64: the full softmax, a stable sort of the
// probabilities, the first top_k renormalized.
func (op *MoeTopKGatingFwd) reference(weights, ids, logits *Tensor) {
	p := make([]float64, op.E)
	order := make([]int, op.E)
	for t := range op.T {
		row := logits.Data[t*op.E : (t+1)*op.E]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		s := 0.0
		for i, v := range row {
			p[i] = math.Exp(float64(v) - m)
			s += p[i]
		}
		for i := range p {
			p[i] /= s
			order[i] = i
		}
		// selection sort by (probability desc, id asc): E is small
		for j := range op.TopK {
			best := j
			for i := j + 1; i < op.E; i++ {
				a, b := order[i], order[best]
				if p[a] > p[b] || p[a] == p[b] && a < b {
					best = i
				}
			}
			order[j], order[best] = order[best], order[j]
		}
		kept := 0.0
		for _, i := range order[:op.TopK] {
			kept += p[i]
		}
		for j, i := range order[:op.TopK] {
			weights.Data[t*op.TopK+j] = float32(p[i] / kept)
			ids.Data[t*op.TopK+j] = float32(i)
		}
	}
}
