package ops

import (
	"fmt"
	"math"

	"github.com/ropgen/ropgen/internal/asm/f32"
	"github.com/ropgen/ropgen/perf/formulas"
)

// ClampFwd is torch.clamp: y = min(max(x, lo), hi), with torch broadcasting. Each bound is
// optional and is either a scalar (the params min_val and max_val) or a tensor (the inputs
// lo and hi: torch's min and max given as tensors, renamed because min and max are formula
// helpers), not both; at least one bound is given. A tensor bound broadcasts against x, so
// the output takes the broadcast shape of x and the tensor bounds. Its roofline is func
// mode (formulas.Clamp), which reads ClampShape.
type ClampFwd struct {
	DType                    DType
	MinVal                   *float64
	MaxVal                   *float64
	XShape, LoShape, HiShape []int // LoShape, HiShape: nil when that tensor bound is absent
}

// NewClampFwd returns a clamp over dtype dt with the scalar bounds minVal and maxVal (nil:
// absent). A clamp with neither is complete only with a tensor bound, which Bind checks.
func NewClampFwd(minVal, maxVal *float64, dt DType) (*ClampFwd, error) {
	if err := checkDType("ClampFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	if minVal != nil && math.IsNaN(*minVal) || maxVal != nil && math.IsNaN(*maxVal) {
		return nil, fmt.Errorf("ClampFwd: a bound is NaN")
	}
	return &ClampFwd{DType: dt, MinVal: minVal, MaxVal: maxVal}, nil
}

// Bind checks x and the tensor bounds lo and hi (nil: absent) against the op, records
// their shapes for EvalRoofline and returns the broadcast output shape.
func (op *ClampFwd) Bind(x, lo, hi *Tensor) ([]int, error) {
	const name = "ClampFwd"
	if err := checkInput(name, "x", x, op.DType); err != nil {
		return nil, err
	}
	switch {
	case lo != nil && op.MinVal != nil:
		return nil, fmt.Errorf("%s: the lower bound is given twice: min_val %v and tensor lo %v", name, *op.MinVal, lo)
	case hi != nil && op.MaxVal != nil:
		return nil, fmt.Errorf("%s: the upper bound is given twice: max_val %v and tensor hi %v", name, *op.MaxVal, hi)
	case lo == nil && hi == nil && op.MinVal == nil && op.MaxVal == nil:
		return nil, fmt.Errorf("%s: at least one of min_val, max_val, lo and hi must be given", name)
	}
	shape := x.Shape
	for _, b := range []Arg{{"lo", lo}, {"hi", hi}} {
		if b.T == nil {
			continue
		}
		if err := checkInput(name, b.Name, b.T, op.DType); err != nil {
			return nil, err
		}
		s, err := broadcastShapes(name, shape, b.T.Shape)
		if err != nil {
			return nil, err
		}
		shape = s
	}
	bindShape(&op.XShape, x.Shape)
	bindOptional(&op.LoShape, lo)
	bindOptional(&op.HiShape, hi)
	return shape, nil
}

// ClampShape is what formulas.Clamp reads: the bound shapes and the element size.
func (op *ClampFwd) ClampShape() (formulas.ClampShape, error) {
	if op.XShape == nil {
		return formulas.ClampShape{}, fmt.Errorf("ClampFwd: input x not bound: call Forward (or Bind) first")
	}
	return formulas.ClampShape{X: op.XShape, Lo: op.LoShape, Hi: op.HiShape, ElemBytes: op.DType.Size()}, nil
}

// bounds returns the scalar bounds as float32, an absent one as the infinity that never
// binds.
func (op *ClampFwd) bounds() (lo, hi float32) {
	lo, hi = float32(math.Inf(-1)), float32(math.Inf(1))
	if op.MinVal != nil {
		lo = float32(*op.MinVal)
	}
	if op.MaxVal != nil {
		hi = float32(*op.MaxVal)
	}
	return lo, hi
}

// Forward computes out = clamp(x, lo, hi); lo and hi are the tensor bounds, nil when
// absent. As torch, where a lower bound exceeds the upper one the element is the upper
// bound, and a NaN in x or in a tensor bound gives NaN. With scalar bounds only, a large
// output is streamed (ntClamp, bit for bit the Go min and max). With tensor bounds the
// output is laid out in broadcast rows (bcastPlan): a row whose bounds are single elements
// (per-row bounds, [R, 1] against [R, N]) runs the scalar kernel, others an elementwise
// loop.
func (op *ClampFwd) Forward(out, x, lo, hi *Tensor) error {
	const name = "ClampFwd"
	shape, err := op.Bind(x, lo, hi)
	if err != nil {
		return err
	}
	ins := clampInputs(x, lo, hi)
	if err := checkAll(name, ins...); err != nil {
		return err
	}
	shapes := make([][]int, len(ins))
	for i, in := range ins {
		shapes[i] = in.T.Shape
	}
	if err := checkOutput(name, out, op.DType, shape); err != nil {
		return err
	}
	l0, h0 := op.bounds()
	stream := streams(len(out.Data))
	if len(ins) == 1 {
		parallelFor(len(x.Data), grainElems, func(a, b int) { clampRun(out.Data[a:b], x.Data[a:b], l0, h0, stream) })
		return nil
	}
	// Each piece of a row gets x and both bounds as slices len(y) long (advancing) or one
	// element long (broadcast); an absent tensor bound is its scalar bound.
	lo0, hi0 := []float32{l0}, []float32{h0}
	p := newBcastPlan(shape, shapes...)
	y := out.Data
	parallelFor(len(y), grainElems, func(a, b int) {
		off := make([]int, len(ins))
		for a < b {
			r, j := a/p.n, a%p.n
			m := min(p.n-j, b-a)
			p.offsets(r, off)
			slice := func(k int) []float32 {
				d := ins[k].T.Data[off[k]:]
				if p.inner[k] == 1 {
					return d[j : j+m]
				}
				return d[:1]
			}
			xs, ls, hs, k := slice(0), lo0, hi0, 1
			if lo != nil {
				ls, k = slice(k), k+1
			}
			if hi != nil {
				hs = slice(k)
			}
			clampPiece(y[a:a+m], xs, ls, hs, stream)
			a += m
		}
	})
	return nil
}

// clampInputs returns the present inputs, in signature order.
func clampInputs(x, lo, hi *Tensor) []Arg {
	ins := []Arg{{"x", x}}
	for _, b := range []Arg{{"lo", lo}, {"hi", hi}} {
		if b.T != nil {
			ins = append(ins, b)
		}
	}
	return ins
}

// clampRun is the scalar-bound kernel: y = min(max(x, lo), hi), streamed when stream (the
// aligned lines with ntClamp, the unaligned head and tail in cache).
func clampRun(y, x []float32, lo, hi float32, stream bool) {
	if stream {
		s, e := ntClamp(y, x, lo, hi)
		clampLoop(y[:s], x[:s], lo, hi)
		y, x = y[e:], x[e:]
	}
	clampLoop(y, x, lo, hi)
}

// clampLoop is the in-cache scalar-bound kernel: the vector blocks, then the tail.
func clampLoop(y, x []float32, lo, hi float32) {
	i := f32.Clamp(y, x, lo, hi)
	y, x = y[i:len(x)], x[i:]
	for i, v := range x {
		y[i] = min(max(v, lo), hi)
	}
}

// clampPiece computes one piece of a broadcast row: x, lo and hi are each len(y) long or a
// single broadcast element.
func clampPiece(y, x, lo, hi []float32, stream bool) {
	n := len(y)
	if n == 0 {
		return
	}
	// The scalar kernel for single-element bounds, unless one is NaN: the vector kernels
	// assume ordered bounds (scalar bounds are never NaN), and min and max below give NaN.
	if len(x) == n && len(lo) == 1 && len(hi) == 1 && lo[0] == lo[0] && hi[0] == hi[0] {
		clampRun(y, x, lo[0], hi[0], stream)
		return
	}
	if len(x) == n && len(lo) == n && len(hi) == n {
		x, lo, hi = x[:n], lo[:n], hi[:n]
		for i := range y {
			y[i] = min(max(x[i], lo[i]), hi[i])
		}
		return
	}
	sx, sl, sh := elemStride(x, n), elemStride(lo, n), elemStride(hi, n)
	for i := range y {
		y[i] = min(max(x[i*sx], lo[i*sl]), hi[i*sh])
	}
}

// elemStride is the inner stride of a piece of n: 1 when it advances, 0 when broadcast.
func elemStride(s []float32, n int) int {
	if len(s) == n {
		return 1
	}
	return 0
}

// reference is the plain reference: for every output element, x and each bound at their
// broadcast index, compared in float64. A NaN bound gives NaN, as in torch.
func (op *ClampFwd) reference(out, x, lo, hi *Tensor) {
	l0, h0 := op.bounds()
	for i := range out.Data {
		idx := unravel(i, out.Shape)
		v, l, h := float64(bcastAt(x, idx)), float64(l0), float64(h0)
		if lo != nil {
			l = float64(bcastAt(lo, idx))
		}
		if hi != nil {
			h = float64(bcastAt(hi, idx))
		}
		switch {
		case math.IsNaN(l) || math.IsNaN(h):
			v = math.NaN()
		case v < l:
			v = l
		}
		if v > h {
			v = h
		}
		out.Data[i] = float32(v)
	}
}
