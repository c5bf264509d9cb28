package ops

import (
	"fmt"

	"github.com/ropgen/ropgen/internal/asm/f32"
	"github.com/ropgen/ropgen/perf/formulas"
)

// Binary elementwise ops with torch broadcasting: y = a ∘ b. Their roofline is func mode
// (formulas.Binary), which reads BinaryShape; the broadcast shape the kernels use is
// computed here independently, so the structural oracle compares two derivations.

// broadcastShapes returns the torch broadcast of a and b, or an error naming the op.
func broadcastShapes(op string, a, b []int) ([]int, error) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range n {
		da, db := 1, 1
		if j := i - (n - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			db = b[j]
		}
		if da != db && da != 1 && db != 1 {
			return nil, fmt.Errorf("%s: shapes %v and %v do not broadcast (dim %d: %d vs %d)", op, a, b, i-n, da, db)
		}
		out[i] = max(da, db)
	}
	return out, nil
}

// bcastPlan lays out y = f(a, b, ...) over the broadcast shape as rows of n contiguous
// output elements. Row r reads input k from offsets(r)[k]; within a row an input either
// advances with the output (inner stride 1) or stays on one element (stride 0, broadcast).
// Dims of size 1 are dropped and adjacent dims that every input traverses alike are merged,
// so a same-shape add is one row and a [T, D] + [D] bias add is T rows of D.
type bcastPlan struct {
	n     int
	inner []int   // per input: its inner stride, 0 or 1
	outer []int   // outer dims of the output, outermost first
	str   [][]int // per input: its outer strides, in elements
}

// newBcastPlan returns the plan of inputs ins broadcast to out.
func newBcastPlan(out []int, ins ...[]int) bcastPlan {
	rank := len(out)
	st := make([][]int, len(ins)) // per input, the stride of each output dim
	for k, s := range ins {
		st[k] = make([]int, rank)
		acc := 1
		for i := rank - 1; i >= 0; i-- {
			if j := i - (rank - len(s)); j >= 0 && s[j] != 1 {
				st[k][i] = acc
				acc *= s[j]
			}
		}
	}
	var dims []int                  // kept dims, innermost first while merging
	kept := make([][]int, len(ins)) // per input, the strides of the kept dims
	for i := rank - 1; i >= 0; i-- {
		if out[i] == 1 {
			continue
		}
		k := len(dims) - 1
		merge := k >= 0
		for in := range ins {
			merge = merge && st[in][i] == kept[in][k]*dims[k]
		}
		if merge {
			dims[k] *= out[i] // contiguous with the dim inside it in every input
			continue
		}
		dims = append(dims, out[i])
		for in := range ins {
			kept[in] = append(kept[in], st[in][i])
		}
	}
	p := bcastPlan{n: 1, inner: make([]int, len(ins)), str: make([][]int, len(ins))}
	if len(dims) == 0 { // every dim is 1: one element
		for in := range ins {
			p.inner[in] = 1
		}
		return p
	}
	p.n = dims[0]
	for in := range ins {
		p.inner[in] = kept[in][0]
	}
	for d := len(dims) - 1; d >= 1; d-- {
		p.outer = append(p.outer, dims[d])
		for in := range ins {
			p.str[in] = append(p.str[in], kept[in][d])
		}
	}
	return p
}

// offsets writes where row r starts in each input into off (one per input).
func (p *bcastPlan) offsets(r int, off []int) {
	clear(off)
	for d := len(p.outer) - 1; d >= 0; d-- {
		i := r % p.outer[d]
		r /= p.outer[d]
		for in := range off {
			off[in] += i * p.str[in][d]
		}
	}
}

// The operators of the binary ops, f32.Arith's indices.
const (
	opAdd = f32.ArithAdd
	opSub = f32.ArithSub
	opMul = f32.ArithMul
	opDiv = f32.ArithDiv
)

// run computes every piece of every row, in parallel over the output's elements: the
// 8-lane blocks with f32.Arith(op), the rest with row. Both receive y and the matching pieces
// of a and b, each either len(y) long or a single broadcast element. A large output
// (streams) is streamed (ntArith) except for the unaligned head and tail of each piece, at
// most 15 elements each: one piece per worker for same-shape inputs, one per row (or part
// of a row) for a broadcast.
func (p *bcastPlan) run(y, a, b []float32, op int, row func(y, a, b []float32)) {
	stream := streams(len(y))
	parallelFor(len(y), grainElems, func(lo, hi int) {
		for lo < hi {
			r, j := lo/p.n, lo%p.n
			m := min(p.n-j, hi-lo)
			var off [2]int
			p.offsets(r, off[:])
			ao, bo := off[0], off[1]
			as, bs := a[ao:ao+1], b[bo:bo+1]
			if p.inner[0] == 1 {
				as = a[ao+j : ao+j+m]
			}
			if p.inner[1] == 1 {
				bs = b[bo+j : bo+j+m]
			}
			ys := y[lo : lo+m]
			if stream {
				s, e := ntArith(op, ys, as, bs)
				p.piece(op, ys[:s], part(as, p.inner[0], 0, s), part(bs, p.inner[1], 0, s), row)
				ys, as, bs = ys[e:], part(as, p.inner[0], e, m), part(bs, p.inner[1], e, m)
			}
			p.piece(op, ys, as, bs, row)
			lo += m
		}
	})
}

// piece computes y = a ∘ b for one piece of a row: the 8-lane blocks with f32.Arith(op),
// the rest with row.
func (p *bcastPlan) piece(op int, y, a, b []float32, row func(y, a, b []float32)) {
	if len(y) == 0 {
		return
	}
	k := f32.Arith(op, y, a, b)
	row(y[k:], part(a, p.inner[0], k, len(y)), part(b, p.inner[1], k, len(y)))
}

// part returns the input piece x[i:j] for an input of inner stride 1, and x itself, its
// broadcast element, for one of stride 0.
func part(x []float32, stride, i, j int) []float32 {
	if stride == 0 {
		return x
	}
	return x[i:j]
}

// broadcastCore is the state every binary op shares: the dtype and the bound input shapes.
// Each op type declares these fields itself (docs/binding.md) and passes pointers here.
type broadcastCore struct {
	name           string
	dt             DType
	ashape, bshape *[]int
}

func (c broadcastCore) bind(a, b *Tensor) ([]int, error) {
	if err := checkInput(c.name, "a", a, c.dt); err != nil {
		return nil, err
	}
	if err := checkInput(c.name, "b", b, c.dt); err != nil {
		return nil, err
	}
	out, err := broadcastShapes(c.name, a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	bindShape(c.ashape, a.Shape)
	bindShape(c.bshape, b.Shape)
	return out, nil
}

func (c broadcastCore) shape() (formulas.BinaryShape, error) {
	if *c.ashape == nil || *c.bshape == nil {
		return formulas.BinaryShape{}, fmt.Errorf("%s: inputs a and b not bound: call Forward (or Bind) first", c.name)
	}
	return formulas.BinaryShape{A: *c.ashape, B: *c.bshape, ElemBytes: c.dt.Size()}, nil
}

func (c broadcastCore) forward(out, a, b *Tensor, op int, row func(y, a, b []float32)) error {
	shape, err := c.bind(a, b)
	if err != nil {
		return err
	}
	for _, in := range []Arg{{"a", a}, {"b", b}} {
		if err := in.T.checkData(c.name, in.Name); err != nil {
			return err
		}
	}
	if err := checkOutput(c.name, out, c.dt, shape); err != nil {
		return err
	}
	p := newBcastPlan(shape, a.Shape, b.Shape)
	p.run(out.Data, a.Data, b.Data, op, row)
	return nil
}

// broadcastReference is the plain reference: for every output element, its multi-index, the
// broadcast index into each input, and f in float64.
func broadcastReference(out, a, b *Tensor, f func(x, y float64) float64) {
	for i := range out.Data {
		idx := unravel(i, out.Shape)
		out.Data[i] = float32(f(float64(bcastAt(a, idx)), float64(bcastAt(b, idx))))
	}
}

// bcastAt returns the element of t that output multi-index idx reads under torch
// broadcasting (t's dims aligned from the last; a dim of 1 always reads index 0).
func bcastAt(t *Tensor, idx []int) float32 {
	off, stride := 0, 1
	for d := len(t.Shape) - 1; d >= 0; d-- {
		i := idx[len(idx)-len(t.Shape)+d]
		if t.Shape[d] == 1 {
			i = 0
		}
		off += i * stride
		stride *= t.Shape[d]
	}
	return t.Data[off]
}

// The four ops. Each row function has three loops: both inputs advancing, or one of them a
// broadcast element (a scalar, a bias column) held in a register.

// AddFwd is torch.add: y = a + b, broadcasting.
type AddFwd struct {
	DType          DType
	AShape, BShape []int
}

// SubFwd is torch.sub: y = a - b, broadcasting.
type SubFwd struct {
	DType          DType
	AShape, BShape []int
}

// MulFwd is torch.mul: y = a * b, broadcasting.
type MulFwd struct {
	DType          DType
	AShape, BShape []int
}

// DivFwd is torch.div (true division): y = a / b, broadcasting.
type DivFwd struct {
	DType          DType
	AShape, BShape []int
}

// NewAddFwd returns an add over dtype dt.
func NewAddFwd(dt DType) (*AddFwd, error) {
	if err := checkDType("AddFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &AddFwd{DType: dt}, nil
}

// NewSubFwd returns a sub over dtype dt.
func NewSubFwd(dt DType) (*SubFwd, error) {
	if err := checkDType("SubFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &SubFwd{DType: dt}, nil
}

// NewMulFwd returns a mul over dtype dt.
func NewMulFwd(dt DType) (*MulFwd, error) {
	if err := checkDType("MulFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &MulFwd{DType: dt}, nil
}

// NewDivFwd returns a div over dtype dt.
func NewDivFwd(dt DType) (*DivFwd, error) {
	if err := checkDType("DivFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &DivFwd{DType: dt}, nil
}

func (op *AddFwd) core() broadcastCore {
	return broadcastCore{"AddFwd", op.DType, &op.AShape, &op.BShape}
}
func (op *SubFwd) core() broadcastCore {
	return broadcastCore{"SubFwd", op.DType, &op.AShape, &op.BShape}
}
func (op *MulFwd) core() broadcastCore {
	return broadcastCore{"MulFwd", op.DType, &op.AShape, &op.BShape}
}
func (op *DivFwd) core() broadcastCore {
	return broadcastCore{"DivFwd", op.DType, &op.AShape, &op.BShape}
}

// Bind checks a and b, records their shapes for EvalRoofline and returns the broadcast
// output shape.
func (op *AddFwd) Bind(a, b *Tensor) ([]int, error) { return op.core().bind(a, b) }

// Bind checks a and b, records their shapes for EvalRoofline and returns the broadcast
// output shape.
func (op *SubFwd) Bind(a, b *Tensor) ([]int, error) { return op.core().bind(a, b) }

// Bind checks a and b, records their shapes for EvalRoofline and returns the broadcast
// output shape.
func (op *MulFwd) Bind(a, b *Tensor) ([]int, error) { return op.core().bind(a, b) }

// Bind checks a and b, records their shapes for EvalRoofline and returns the broadcast
// output shape.
func (op *DivFwd) Bind(a, b *Tensor) ([]int, error) { return op.core().bind(a, b) }

// BinaryShape is what formulas.Binary reads: the bound shapes and the element size.
func (op *AddFwd) BinaryShape() (formulas.BinaryShape, error) { return op.core().shape() }

// BinaryShape is what formulas.Binary reads: the bound shapes and the element size.
func (op *SubFwd) BinaryShape() (formulas.BinaryShape, error) { return op.core().shape() }

// BinaryShape is what formulas.Binary reads: the bound shapes and the element size.
func (op *MulFwd) BinaryShape() (formulas.BinaryShape, error) { return op.core().shape() }

// BinaryShape is what formulas.Binary reads: the bound shapes and the element size.
func (op *DivFwd) BinaryShape() (formulas.BinaryShape, error) { return op.core().shape() }

// Forward computes out = a + b.
func (op *AddFwd) Forward(out, a, b *Tensor) error {
	return op.core().forward(out, a, b, opAdd, func(y, a, b []float32) {
		switch {
		case len(a) == len(y) && len(b) == len(y):
			a, b = a[:len(y)], b[:len(y)]
			for i := range y {
				y[i] = a[i] + b[i]
			}
		case len(b) == len(y):
			s, b := a[0], b[:len(y)]
			for i := range y {
				y[i] = s + b[i]
			}
		default:
			a, s := a[:len(y)], b[0]
			for i := range y {
				y[i] = a[i] + s
			}
		}
	})
}

// Forward computes out = a - b.
func (op *SubFwd) Forward(out, a, b *Tensor) error {
	return op.core().forward(out, a, b, opSub, func(y, a, b []float32) {
		switch {
		case len(a) == len(y) && len(b) == len(y):
			a, b = a[:len(y)], b[:len(y)]
			for i := range y {
				y[i] = a[i] - b[i]
			}
		case len(b) == len(y):
			s, b := a[0], b[:len(y)]
			for i := range y {
				y[i] = s - b[i]
			}
		default:
			a, s := a[:len(y)], b[0]
			for i := range y {
				y[i] = a[i] - s
			}
		}
	})
}

// Forward computes out = a * b.
func (op *MulFwd) Forward(out, a, b *Tensor) error {
	return op.core().forward(out, a, b, opMul, func(y, a, b []float32) {
		switch {
		case len(a) == len(y) && len(b) == len(y):
			a, b = a[:len(y)], b[:len(y)]
			for i := range y {
				y[i] = a[i] * b[i]
			}
		case len(b) == len(y):
			s, b := a[0], b[:len(y)]
			for i := range y {
				y[i] = s * b[i]
			}
		default:
			a, s := a[:len(y)], b[0]
			for i := range y {
				y[i] = a[i] * s
			}
		}
	})
}

// Forward computes out = a / b. A broadcast divisor is still divided, not turned into a
// multiply by its reciprocal, which would round differently from torch.
func (op *DivFwd) Forward(out, a, b *Tensor) error {
	return op.core().forward(out, a, b, opDiv, func(y, a, b []float32) {
		switch {
		case len(a) == len(y) && len(b) == len(y):
			a, b = a[:len(y)], b[:len(y)]
			for i := range y {
				y[i] = a[i] / b[i]
			}
		case len(b) == len(y):
			s, b := a[0], b[:len(y)]
			for i := range y {
				y[i] = s / b[i]
			}
		default:
			a, s := a[:len(y)], b[0]
			for i := range y {
				y[i] = a[i] / s
			}
		}
	})
}
