package ops

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/ropgen/ropgen/internal/asm/f32"
	"github.com/ropgen/ropgen/perf/formulas"
)

// Reductions over a list of axes: sum, mean and amax, with torch's dim and keepdim (and
// var and logsumexp, statistics.go). An empty dim is torch's dim=None: every axis. Their
// roofline is func mode (formulas.Sum, Mean, Amax, Var, Logsumexp: the reduced size is a
// product over a list of axes); ReductionShape hands the formula the bound shape and the
// dim param as given, so the formula validates the axes on its own.
//
// Sums accumulate in float64: a float32 sum of 128256 logits loses about three digits, and
// on a memory-bound kernel the wider adds cost nothing measurable.

// axisGroup is a maximal run of adjacent dims that are all reduced or all kept, merged into
// one dim. Size-1 dims are dropped: they change neither the traversal nor the result.
type axisGroup struct {
	size    int
	reduced bool
}

// axisGroups collapses shape under the (normalized) reduced axes.
func axisGroups(shape, axes []int) []axisGroup {
	var gs []axisGroup
	for i, n := range shape {
		if n == 1 {
			continue
		}
		red := slices.Contains(axes, i)
		if k := len(gs) - 1; k >= 0 && gs[k].reduced == red {
			gs[k].size *= n
			continue
		}
		gs = append(gs, axisGroup{n, red})
	}
	return gs
}

// reducer is one reduction's arithmetic, in the three forms the traversals need.
type reducer struct {
	identity float64
	// row reduces a contiguous run to one value.
	row func(x []float32) float64
	// cols folds a contiguous run into acc elementwise (acc[i] ∘= x[i]).
	cols func(acc []float64, x []float32)
	// fold folds one element into an accumulator.
	fold func(acc float64, v float32) float64
	// merge combines the accumulators of two runs (row's results).
	merge func(a, b float64) float64
	// finish turns the accumulator of n reduced elements into the output value.
	finish func(acc float64, n int) float32
}

func sumRow(x []float32) float64 {
	i, s0 := f32.Sum(x)
	var s1, s2, s3 float64 // four chains hide the add latency
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i])
		s1 += float64(x[i+1])
		s2 += float64(x[i+2])
		s3 += float64(x[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func sumCols(acc []float64, x []float32) {
	k := f32.SumCols(acc, x)
	acc, x = acc[k:len(x)], x[k:]
	for i, v := range x {
		acc[i] += float64(v)
	}
}

func maxRow(x []float32) float64 {
	m := float32(math.Inf(-1))
	k, vm, ok := f32.Max(x)
	if ok && k > 0 {
		m = vm
	} else {
		k = 0 // a NaN: the scalar max keeps it
	}
	for _, v := range x[k:] {
		m = max(m, v) // max propagates NaN, as torch.amax does
	}
	return float64(m)
}

var (
	sumReducer = reducer{
		row:    sumRow,
		cols:   sumCols,
		fold:   func(acc float64, v float32) float64 { return acc + float64(v) },
		merge:  func(a, b float64) float64 { return a + b },
		finish: func(acc float64, _ int) float32 { return float32(acc) },
	}
	meanReducer = reducer{
		row:    sumRow,
		cols:   sumCols,
		fold:   sumReducer.fold,
		merge:  sumReducer.merge,
		finish: func(acc float64, n int) float32 { return float32(acc / float64(n)) },
	}
	maxReducer = reducer{
		identity: math.Inf(-1),
		row:      maxRow,
		cols: func(acc []float64, x []float32) {
			k := f32.MaxCols(acc, x)
			acc, x = acc[k:len(x)], x[k:]
			for i, v := range x {
				acc[i] = max(acc[i], float64(v))
			}
		},
		fold:   func(acc float64, v float32) float64 { return max(acc, float64(v)) },
		merge:  func(a, b float64) float64 { return max(a, b) }, // NaN, if either is
		finish: func(acc float64, _ int) float32 { return float32(acc) },
	}
)

// colChunk is how many output columns one unit of a column reduction accumulates: 8 KiB of
// float64 accumulators, which stay in L1 while the rows stream past.
const colChunk = 1024

// reduceKernel reduces x over axes (normalized, sorted) into out, which holds the kept
// elements in row-major order.
func reduceKernel(r reducer, x, out []float32, shape, axes []int) {
	n := 1
	for _, a := range axes {
		n *= shape[a]
	}
	gs := axisGroups(shape, axes)
	nred := 0
	for _, g := range gs {
		if g.reduced {
			nred++
		}
	}
	last := len(gs) - 1
	switch {
	case nred == 1 && gs[last].reduced && n >= 2*grainElems && len(out) < runtime.GOMAXPROCS(0):
		// Fewer runs than cores, each long: every run is cut into a piece per core (whole
		// 64-byte lines but the last), reduced side by side and merged in order.
		parts := min(runtime.GOMAXPROCS(0), n/grainElems)
		partial := make([]float64, parts)
		for k := range out {
			run := x[k*n : (k+1)*n]
			parallelFor(parts, 1, func(lo, hi int) {
				for p := lo; p < hi; p++ {
					s, e := p*n/parts&^15, (p+1)*n/parts&^15
					if p == parts-1 {
						e = n
					}
					partial[p] = r.row(run[s:e])
				}
			})
			acc := partial[0]
			for _, v := range partial[1:] {
				acc = r.merge(acc, v)
			}
			out[k] = r.finish(acc, n)
		}
	case nred == 1 && gs[last].reduced: // [kept..., R]: one contiguous run per output
		parallelFor(len(out), max(1, grainElems/n), func(lo, hi int) {
			for k := lo; k < hi; k++ {
				out[k] = r.finish(r.row(x[k*n:(k+1)*n]), n)
			}
		})
	case nred == 1 && last >= 1 && gs[last-1].reduced: // [kept..., R, K]: columns
		k2 := gs[last].size
		chunks := (k2 + colChunk - 1) / colChunk
		parallelFor(len(out)/k2*chunks, max(1, grainElems/(n*min(k2, colChunk))), func(lo, hi int) {
			acc := make([]float64, min(k2, colChunk))
			for u := lo; u < hi; u++ {
				k1, c0 := u/chunks, u%chunks*colChunk
				c1 := min(c0+colChunk, k2)
				a := acc[:c1-c0]
				for i := range a {
					a[i] = r.identity
				}
				base := k1 * n * k2
				for j := range n {
					r.cols(a, x[base+j*k2+c0:base+j*k2+c1])
				}
				for i, v := range a {
					out[k1*k2+c0+i] = r.finish(v, n)
				}
			}
		})
	default: // any other pattern, or nothing to reduce: one serial pass in input order
		reduceStrided(r, x, out, shape, axes, n)
	}
}

// reduceStrided folds every input element into its output in one row-major pass, with an
// odometer over the input dims giving the output offset (reduced dims have stride 0).
func reduceStrided(r reducer, x, out []float32, shape, axes []int, n int) {
	ostride := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		if !slices.Contains(axes, i) {
			ostride[i] = s
			s *= shape[i]
		}
	}
	acc := make([]float64, len(out))
	for i := range acc {
		acc[i] = r.identity
	}
	idx := make([]int, len(shape))
	o := 0
	for _, v := range x {
		acc[o] = r.fold(acc[o], v)
		for d := len(shape) - 1; d >= 0; d-- { // advance the odometer
			idx[d]++
			o += ostride[d]
			if idx[d] < shape[d] {
				break
			}
			o -= idx[d] * ostride[d]
			idx[d] = 0
		}
	}
	for i, a := range acc {
		out[i] = r.finish(a, n)
	}
}

// keptStrides are the strides of an output over axes of shape: for each dim of shape, the
// output stride of its coordinate, 0 for a reduced dim (the output keeps the kept dims in
// order, row-major). The references index their outputs with it.
func keptStrides(shape, axes []int) []int {
	kept := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		if !slices.Contains(axes, d) {
			kept[d] = s
			s *= shape[d]
		}
	}
	return kept
}

// reduceReference is the plain reference: for every input element, its coordinates, the
// output index made of the kept coordinates, and a float64 fold.
func reduceReference(out, x *Tensor, axes []int, fold func(acc, v float64) float64, identity float64, mean bool) {
	acc := make([]float64, len(out.Data))
	for i := range acc {
		acc[i] = identity
	}
	keptStride := keptStrides(x.Shape, axes)
	for i, v := range x.Data {
		o, rest := 0, i
		for d := len(x.Shape) - 1; d >= 0; d-- {
			o += rest % x.Shape[d] * keptStride[d]
			rest /= x.Shape[d]
		}
		acc[o] = fold(acc[o], float64(v))
	}
	n := len(x.Data) / len(acc)
	for i, a := range acc {
		if mean {
			a /= float64(n)
		}
		out.Data[i] = float32(a)
	}
}

// reduction is the state sum, mean and amax share. Each op type declares the fields itself
// (docs/binding.md) and passes them here.
type reduction struct {
	name    string
	dt      DType
	dim     []int
	keepdim bool
	xshape  *[]int
}

func newReduction(name string, dim []int, dt DType) error {
	return checkDType(name, dt, floatDTypes...)
}

// reduceAxes returns the normalized, sorted axes of dim for a tensor of rank ndim: every
// axis when dim is empty (torch's dim=None), else normAxes's.
func reduceAxes(op string, dim []int, ndim int) ([]int, error) {
	if len(dim) == 0 {
		all := make([]int, ndim)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	return normAxes(op, dim, ndim)
}

// bind checks x, validates dim against its rank, records its shape and returns the
// normalized axes and the output shape.
func (r reduction) bind(x *Tensor) (axes, shape []int, err error) {
	if err := checkInput(r.name, "x", x, r.dt); err != nil {
		return nil, nil, err
	}
	axes, err = reduceAxes(r.name, r.dim, len(x.Shape))
	if err != nil {
		return nil, nil, err
	}
	shape = []int{}
	for i, n := range x.Shape {
		switch {
		case !slices.Contains(axes, i):
			shape = append(shape, n)
		case r.keepdim:
			shape = append(shape, 1)
		}
	}
	bindShape(r.xshape, x.Shape)
	return axes, shape, nil
}

func (r reduction) forward(out, x *Tensor, red reducer) error {
	axes, shape, err := r.bind(x)
	if err != nil {
		return err
	}
	if err := x.checkData(r.name, "x"); err != nil {
		return err
	}
	if err := checkOutput(r.name, out, r.dt, shape); err != nil {
		return err
	}
	reduceKernel(red, x.Data, out.Data, x.Shape, axes)
	return nil
}

func (r reduction) shape() (formulas.ReductionShape, error) {
	if *r.xshape == nil {
		return formulas.ReductionShape{}, fmt.Errorf("%s: input x not bound: call Forward (or Bind) first", r.name)
	}
	return formulas.ReductionShape{X: *r.xshape, Dims: r.dim, ElemBytes: r.dt.Size()}, nil
}

// SumFwd is torch.sum(x, dim, keepdim).
type SumFwd struct {
	DType   DType
	Dim     []int
	Keepdim bool
	XShape  []int
}

// NewSumFwd returns a sum over the axes dim (negative axes count from the end; none: every
// axis) of a tensor of dtype dt; keepdim keeps the reduced axes as size 1.
func NewSumFwd(dim []int, keepdim bool, dt DType) (*SumFwd, error) {
	if err := newReduction("SumFwd", dim, dt); err != nil {
		return nil, err
	}
	return &SumFwd{DType: dt, Dim: slices.Clone(dim), Keepdim: keepdim}, nil
}

func (op *SumFwd) core() reduction {
	return reduction{"SumFwd", op.DType, op.Dim, op.Keepdim, &op.XShape}
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *SumFwd) Bind(x *Tensor) ([]int, error) {
	_, shape, err := op.core().bind(x)
	return shape, err
}

// Forward computes out = sum(x, dim, keepdim).
func (op *SumFwd) Forward(out, x *Tensor) error { return op.core().forward(out, x, sumReducer) }

// ReductionShape is what formulas.Sum reads.
func (op *SumFwd) ReductionShape() (formulas.ReductionShape, error) { return op.core().shape() }

// MeanFwd is torch.mean(x, dim, keepdim).
type MeanFwd struct {
	DType   DType
	Dim     []int
	Keepdim bool
	XShape  []int
}

// NewMeanFwd returns a mean over the axes dim of a tensor of dtype dt (see NewSumFwd).
func NewMeanFwd(dim []int, keepdim bool, dt DType) (*MeanFwd, error) {
	if err := newReduction("MeanFwd", dim, dt); err != nil {
		return nil, err
	}
	return &MeanFwd{DType: dt, Dim: slices.Clone(dim), Keepdim: keepdim}, nil
}

func (op *MeanFwd) core() reduction {
	return reduction{"MeanFwd", op.DType, op.Dim, op.Keepdim, &op.XShape}
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *MeanFwd) Bind(x *Tensor) ([]int, error) {
	_, shape, err := op.core().bind(x)
	return shape, err
}

// Forward computes out = mean(x, dim, keepdim).
func (op *MeanFwd) Forward(out, x *Tensor) error { return op.core().forward(out, x, meanReducer) }

// ReductionShape is what formulas.Mean reads.
func (op *MeanFwd) ReductionShape() (formulas.ReductionShape, error) { return op.core().shape() }

// AmaxFwd is torch.amax(x, dim, keepdim): the maximum over the axes, NaN if any is NaN.
type AmaxFwd struct {
	DType   DType
	Dim     []int
	Keepdim bool
	XShape  []int
}

// NewAmaxFwd returns a max over the axes dim of a tensor of dtype dt (see NewSumFwd).
func NewAmaxFwd(dim []int, keepdim bool, dt DType) (*AmaxFwd, error) {
	if err := newReduction("AmaxFwd", dim, dt); err != nil {
		return nil, err
	}
	return &AmaxFwd{DType: dt, Dim: slices.Clone(dim), Keepdim: keepdim}, nil
}

func (op *AmaxFwd) core() reduction {
	return reduction{"AmaxFwd", op.DType, op.Dim, op.Keepdim, &op.XShape}
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *AmaxFwd) Bind(x *Tensor) ([]int, error) {
	_, shape, err := op.core().bind(x)
	return shape, err
}

// Forward computes out = amax(x, dim, keepdim).
func (op *AmaxFwd) Forward(out, x *Tensor) error { return op.core().forward(out, x, maxReducer) }

// ReductionShape is what formulas.Amax reads.
func (op *AmaxFwd) ReductionShape() (formulas.ReductionShape, error) { return op.core().shape() }

// sumTol: float64 sums in another order round to the same float32 but for rare ties.
var sumTol = Tol{Abs: 1e-6, Rel: 1e-6}
