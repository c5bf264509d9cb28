package ops

import (
	"fmt"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// RopeFwd is rotary position embedding in the rotate-half form of Hugging Face Llama
// (apply_rotary_pos_emb): out = x*cos + rotate_half(x)*sin, with x [B, S, H, D], cos and sin
// [S, D] (one row per position, shared by every batch element and head), and
// rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2]). Per pair (j, j+D/2) that is
// out[j] = x[j]*cos[j] - x[j+D/2]*sin[j] and out[j+D/2] = x[j+D/2]*cos[j+D/2] + x[j]*sin[j+D/2]:
// 2 multiplies and 1 add per element, the negation folded into the subtract.
// Fixed rank: the constructor takes the dims, which is all the roofline reads.
type RopeFwd struct {
	B, S, H, D int
	DType      DType
}

// NewRopeFwd returns a rotary embedding for x [b, s, h, d] of dtype dt; d must be even.
func NewRopeFwd(b, s, h, d int, dt DType) (*RopeFwd, error) {
	if err := checkDType("RopeFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	if err := checkDims("RopeFwd", dimArg{"B", b}, dimArg{"S", s}, dimArg{"H", h}, dimArg{"D", d}); err != nil {
		return nil, err
	}
	if d%2 != 0 {
		return nil, fmt.Errorf("RopeFwd: head dim D = %d is odd; rotate-half pairs element j with j + D/2", d)
	}
	return &RopeFwd{B: b, S: s, H: h, D: d, DType: dt}, nil
}

// Bind checks x, cos and sin against the op's dims and returns the output shape.
func (op *RopeFwd) Bind(x, cos, sin *Tensor) ([]int, error) {
	if err := checkFixed("RopeFwd", "x", x, op.DType, op.B, op.S, op.H, op.D); err != nil {
		return nil, err
	}
	if err := checkFixed("RopeFwd", "cos", cos, op.DType, op.S, op.D); err != nil {
		return nil, err
	}
	if err := checkFixed("RopeFwd", "sin", sin, op.DType, op.S, op.D); err != nil {
		return nil, err
	}
	return x.Shape, nil
}

// Forward computes out = x*cos + rotate_half(x)*sin.
func (op *RopeFwd) Forward(out, x, cos, sin *Tensor) error {
	shape, err := op.Bind(x, cos, sin)
	if err != nil {
		return err
	}
	if err := checkData("RopeFwd", []string{"x", "cos", "sin"}, x, cos, sin); err != nil {
		return err
	}
	if err := checkOutput("RopeFwd", out, op.DType, shape); err != nil {
		return err
	}
	d, p := op.D, op.D/2
	rows := op.B * op.S * op.H
	parallelFor(rows, max(1, grainElems/d), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			s := r / op.H % op.S
			xs, ys := x.Data[r*d:(r+1)*d], out.Data[r*d:(r+1)*d]
			c, sn := cos.Data[s*d:(s+1)*d], sin.Data[s*d:(s+1)*d]
			x1, x2 := xs[:p], xs[p:]
			y1, y2 := ys[:p], ys[p:]
			c1, c2 := c[:p], c[p:]
			s1, s2 := sn[:p], sn[p:]
			k := f32.Rope(y1, y2, x1, x2, c1, c2, s1, s2)
			x1, x2, y1, y2, c1, c2, s1, s2 = x1[k:], x2[k:], y1[k:], y2[k:], c1[k:], c2[k:], s1[k:], s2[k:]
			x2, y1, y2, c1, c2, s1, s2 = x2[:len(x1)], y1[:len(x1)], y2[:len(x1)], c1[:len(x1)], c2[:len(x1)], s1[:len(x1)], s2[:len(x1)]
			for j, a := range x1 {
				b := x2[j]
				y1[j] = a*c1[j] - b*s1[j]
				y2[j] = b*c2[j] + a*s2[j]
			}
		}
	})
	return nil
}

// reference computes the definition literally: x*cos + rotate_half(x)*sin, element by
// element with the multi-index, in float64.
func (op *RopeFwd) reference(out, x, cos, sin *Tensor) {
	p := op.D / 2
	for i := range out.Data {
		idx := unravel(i, out.Shape) // [b, s, h, j]
		s, j := idx[1], idx[3]
		var rot float64 // rotate_half(x)[j]: -x[j+D/2] in the first half, x[j-D/2] in the second
		if j < p {
			rot = -float64(x.Data[i+p])
		} else {
			rot = float64(x.Data[i-p])
		}
		out.Data[i] = float32(float64(x.Data[i])*float64(cos.Data[s*op.D+j]) + rot*float64(sin.Data[s*op.D+j]))
	}
}
