package formulas

import (
	"fmt"
	"slices"
)

// ReductionShape is what a reduction over a list of axes (sum, mean, amax, var, logsumexp)
// exposes to its formula: the bound input shape, the dim param as given (negative axes
// count from the end; an empty list is torch's dim=None, every axis) and the storage size
// of the dtype input and output share. keepdim changes the output's shape, not its element
// count, so the formula does not read it.
type ReductionShape struct {
	X         []int
	Dims      []int
	ElemBytes int
}

// ReductionOp is a reduction as the formula sees it. ReductionShape returns an error naming
// the op and input when the shape is not bound yet.
type ReductionOp interface {
	ReductionShape() (ReductionShape, error)
}

// Sum returns the FLOPs and minimum bytes of a sum over dims: each output is the sum of N
// inputs, N-1 adds (docs/model.md §2.1), so T inputs and O outputs cost T - O FLOPs. Bytes: the
// input read once and the output written once. Func mode because the reduced size is a
// product over a list of axes, a loop the inline vars layer does not have.
func Sum(op ReductionOp) (flops, bytes int64, err error) {
	return reduction(op, func(_ *checked, t, o int64) int64 { return t - o })
}

// Mean returns the FLOPs and minimum bytes of a mean over dims: a sum (N-1 adds) and one
// divide per output, T FLOPs in all.
func Mean(op ReductionOp) (flops, bytes int64, err error) {
	return reduction(op, func(_ *checked, t, o int64) int64 { return t })
}

// Amax returns the FLOPs and minimum bytes of a max over dims: N-1 compare-selects per
// output (docs/model.md §2.1), T - O FLOPs.
func Amax(op ReductionOp) (flops, bytes int64, err error) {
	return reduction(op, func(_ *checked, t, o int64) int64 { return t - o })
}

// Var returns the FLOPs and minimum bytes of a variance over dims: per output of N inputs,
// the mean (N-1 adds, 1 divide), the deviations (N), their squares (N), their sum (N-1)
// and the divide by N - correction (1): 4N, so 4T in all, whatever the correction.
func Var(op ReductionOp) (flops, bytes int64, err error) {
	return reduction(op, func(c *checked, t, _ int64) int64 { return c.mul(4, t) })
}

// Logsumexp returns the FLOPs and minimum bytes of a logsumexp over dims: per output of N
// inputs, the max (N-1), the shift (N), the exps (N), their sum (N-1), the log (1) and the
// max added back (1): 4N, so 4T in all.
func Logsumexp(op ReductionOp) (flops, bytes int64, err error) {
	return reduction(op, func(c *checked, t, _ int64) int64 { return c.mul(4, t) })
}

// reduction validates the axes as torch does (in range, no duplicates; none is every
// axis), and returns flops(T, O) and (T + O) * elem_bytes for T input and O output
// elements, flops computing with the same overflow check.
func reduction(op ReductionOp, flops func(c *checked, t, o int64) int64) (int64, int64, error) {
	s, err := op.ReductionShape()
	if err != nil {
		return 0, 0, err
	}
	nd := len(s.X)
	var seen []int
	var c checked
	kept := int64(1)
	if len(s.Dims) == 0 { // dim=None: every axis
		for i := range nd {
			seen = append(seen, i)
		}
	}
	for _, d := range s.Dims {
		if d < -nd || d >= nd {
			return 0, 0, fmt.Errorf("dim %d out of range for a tensor of rank %d", d, nd)
		}
		if d < 0 {
			d += nd
		}
		if slices.Contains(seen, d) {
			return 0, 0, fmt.Errorf("dim %v names axis %d twice", s.Dims, d)
		}
		seen = append(seen, d)
	}
	for i, n := range s.X {
		if n < 0 {
			return 0, 0, fmt.Errorf("shape %v has a negative dim", s.X)
		}
		if !slices.Contains(seen, i) {
			kept = c.mul(kept, int64(n))
		}
	}
	t := c.elems(s.X)
	return c.result(flops(&c, t, kept), c.mul(c.add(t, kept), int64(s.ElemBytes)))
}

// elems returns the element count of a shape (1 for a scalar); all dims must be
// non-negative.
func (c *checked) elems(shape []int) int64 {
	n := int64(1)
	for _, d := range shape {
		n = c.mul(n, int64(d))
	}
	return n
}
