package ops

import (
	"fmt"
	"slices"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// TopKFwd is torch.topk(x, k, dim) with largest=True and sorted=True: the k largest
// elements of every line along dim, in descending order, and their indices along dim. NaN
// ranks above every number (as torch orders it); equal values rank by smaller index first,
// so the result is deterministic.
type TopKFwd struct {
	K, Dim int
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewTopKFwd returns a top-k of k along dim over dtype dt.
func NewTopKFwd(k, dim int, dt DType) (*TopKFwd, error) {
	if k < 1 {
		return nil, fmt.Errorf("TopKFwd: k = %d; want k >= 1", k)
	}
	if err := checkDType("TopKFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &TopKFwd{K: k, Dim: dim, DType: dt}, nil
}

// Bind checks x, dim and k against it, records x's shape and returns the shape of both
// outputs: x's with dim cut to k.
func (op *TopKFwd) Bind(x *Tensor) ([]int, error) {
	if err := checkInput("TopKFwd", "x", x, op.DType); err != nil {
		return nil, err
	}
	axis, err := normAxis("TopKFwd", op.Dim, len(x.Shape))
	if err != nil {
		return nil, err
	}
	if op.K > x.Shape[axis] {
		return nil, fmt.Errorf("TopKFwd: k = %d is above the %d elements along dim %d", op.K, x.Shape[axis], op.Dim)
	}
	bindShape(&op.XShape, x.Shape)
	shape := slices.Clone(x.Shape)
	shape[axis] = op.K
	return shape, nil
}

// Forward writes the k largest of each line into values and their indices (int64 values,
// held exactly in float32 below 2**24) into indices. A line is scanned once: a sorted
// buffer holds the best k so far, and the elements not above its last, the great majority
// of a long row, are skipped a vector at a time (f32.Above). Lines run in parallel.
func (op *TopKFwd) Forward(values, indices, x *Tensor) error {
	shape, err := op.Bind(x)
	if err != nil {
		return err
	}
	if err := x.checkData("TopKFwd", "x"); err != nil {
		return err
	}
	if err := checkOutput("TopKFwd", values, op.DType, shape); err != nil {
		return err
	}
	if err := checkOutput("TopKFwd", indices, Int64, shape); err != nil {
		return err
	}
	axis, _ := normAxis("TopKFwd", op.Dim, len(x.Shape))
	v, k := viewAlong(x.Shape, axis), op.K
	lines := v.outer * v.inner
	parallelFor(lines, max(1, grainElems/v.n), func(lo, hi int) {
		var buf []float32
		if v.inner > 1 {
			buf = make([]float32, v.n)
		}
		vals, idx := make([]float32, k), make([]int, k)
		for l := lo; l < hi; l++ {
			o, in := l/v.inner, l%v.inner
			line := x.Data[o*v.n*v.inner+in:]
			if v.inner > 1 {
				for j := range buf {
					buf[j] = line[j*v.inner]
				}
				line = buf
			}
			topkLine(line[:v.n], vals, idx)
			for j := range k {
				off := (o*k+j)*v.inner + in
				values.Data[off], indices.Data[off] = vals[j], float32(idx[j])
			}
		}
	})
	return nil
}

// ranksBefore reports whether element a at index i ranks before b at index j in top-k
// order: NaN first, then larger values, equal ones by smaller index.
func ranksBefore(a float32, i int, b float32, j int) bool {
	an, bn := a != a, b != b
	switch {
	case an || bn:
		return an && (!bn || i < j)
	case a != b:
		return a > b
	}
	return i < j
}

// topkLine writes the k = len(vals) best elements of x into vals and idx, best first.
func topkLine(x []float32, vals []float32, idx []int) {
	k := len(vals)
	for i := range k { // the first k, insertion-sorted
		insertRanked(vals[:i+1], idx[:i+1], x[i], i)
	}
	l := f32.Lanes()
	if l == 0 {
		l = len(x)
	}
	for i := k; i < len(x); {
		i += f32.Above(x[i:], vals[k-1]) // skip whole vectors not above the k-th best
		end := min(i+l, len(x))
		for ; i < end; i++ {
			if ranksBefore(x[i], i, vals[k-1], idx[k-1]) {
				insertRanked(vals, idx, x[i], i)
			}
		}
	}
}

// insertRanked puts (v, i) in its place in the ranked vals and idx, dropping their last
// entry (the caller knows (v, i) ranks before it, or the last slot is the new one).
func insertRanked(vals []float32, idx []int, v float32, i int) {
	p := len(vals) - 1
	for ; p > 0 && ranksBefore(v, i, vals[p-1], idx[p-1]); p-- {
		vals[p], idx[p] = vals[p-1], idx[p-1]
	}
	vals[p], idx[p] = v, i
}

// reference sorts every line whole (a stable sort by the top-k order) and keeps the first k.
func (op *TopKFwd) reference(values, indices, x *Tensor) error {
	axis, err := normAxis("reference", op.Dim, len(x.Shape))
	if err != nil {
		return err
	}
	v := viewAlong(x.Shape, axis)
	type elem struct {
		v float32
		i int
	}
	line := make([]elem, v.n)
	for o := range v.outer {
		for in := range v.inner {
			for j := range line {
				line[j] = elem{x.Data[(o*v.n+j)*v.inner+in], j}
			}
			slices.SortStableFunc(line, func(a, b elem) int {
				switch {
				case ranksBefore(a.v, a.i, b.v, b.i):
					return -1
				case ranksBefore(b.v, b.i, a.v, a.i):
					return 1
				}
				return 0
			})
			for j := range op.K {
				off := (o*op.K+j)*v.inner + in
				values.Data[off], indices.Data[off] = line[j].v, float32(line[j].i)
			}
		}
	}
	return nil
}
