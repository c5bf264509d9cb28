package formulas

import (
	"fmt"
	"slices"
)

// BinaryShape is what a broadcasting binary elementwise op (add, sub, mul, div) exposes to
// its formula: the two inputs' shapes as bound, and the storage size of the dtype they and
// the output share.
type BinaryShape struct {
	A, B      []int
	ElemBytes int
}

// BinaryOp is a broadcasting binary elementwise op as the formula sees it. BinaryShape
// returns an error naming the op and input when the shapes are not bound yet.
type BinaryOp interface {
	BinaryShape() (BinaryShape, error)
}

// Binary returns the FLOPs and minimum bytes of y = a ∘ b with torch broadcasting, for an
// operator ∘ that costs 1 FLOP per output element (add, sub, mul, div: docs/model.md §2.1).
//
// Bytes count each input at its own size, not at the broadcast size: minimum traffic reads a
// [4096] bias once, not once per row. The output is written once at the broadcast shape.
// This is func mode because the broadcast shape needs a loop over the aligned dims, which
// the inline vars layer does not have.
func Binary(op BinaryOp) (flops, bytes int64, err error) {
	s, err := op.BinaryShape()
	if err != nil {
		return 0, 0, err
	}
	out, err := broadcast(s.A, s.B)
	if err != nil {
		return 0, 0, err
	}
	var c checked
	na, nb, no := c.elems(s.A), c.elems(s.B), c.elems(out)
	eb := int64(s.ElemBytes)
	return c.result(no, c.mul(c.add(na, nb, no), eb))
}

// broadcast returns the torch broadcast of shapes a and b: aligned from the last dim, each
// pair of dims must be equal or one of them 1.
func broadcast(a, b []int) ([]int, error) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range n {
		da, db := dimFromEnd(a, n-1-i), dimFromEnd(b, n-1-i)
		switch {
		case da < 1 || db < 1:
			return nil, fmt.Errorf("shapes %v and %v: dims must be positive", a, b)
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast: dim %d is %d and %d", a, b, i-n, da, db)
		}
	}
	return out, nil
}

// dimFromEnd returns s[len(s)-1-k], or 1 past the front (the implicit leading ones).
func dimFromEnd(s []int, k int) int {
	if k >= len(s) {
		return 1
	}
	return s[len(s)-1-k]
}

// ClampShape is what a clamp exposes to its formula: x's bound shape, the bound shapes of
// the tensor bounds lo and hi (torch.clamp's min and max given as tensors; nil when
// absent: a scalar bound or none), and the storage size of the dtype they share.
type ClampShape struct {
	X, Lo, Hi []int
	ElemBytes int
}

// ClampOp is a clamp as the formula sees it. ClampShape returns an error naming the op and
// input when the shapes are not bound yet.
type ClampOp interface {
	ClampShape() (ClampShape, error)
}

// Clamp returns the FLOPs and minimum bytes of y = min(max(x, lo), hi) with torch
// broadcasting over x and the tensor bounds present: one compare-select per output element
// for a one- or two-bound clamp (docs/model.md §2.1). Bytes: x and each tensor bound read once at
// its own size (a scalar bound is no traffic), the output written once at the broadcast
// shape. Func mode because the broadcast shape needs a loop over the aligned dims.
func Clamp(op ClampOp) (flops, bytes int64, err error) {
	s, err := op.ClampShape()
	if err != nil {
		return 0, 0, err
	}
	out := s.X
	var c checked
	read := c.elems(s.X)
	for _, b := range [][]int{s.Lo, s.Hi} {
		if b == nil {
			continue
		}
		if out, err = broadcast(out, b); err != nil {
			return 0, 0, err
		}
		read = c.add(read, c.elems(b))
	}
	if slices.ContainsFunc(s.X, func(d int) bool { return d < 0 }) {
		return 0, 0, fmt.Errorf("shape %v has a negative dim", s.X)
	}
	no := c.elems(out)
	return c.result(no, c.mul(c.add(read, no), int64(s.ElemBytes)))
}
