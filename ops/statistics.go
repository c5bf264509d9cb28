package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/ropgen/ropgen/internal/asm/f32"
	"github.com/ropgen/ropgen/perf/formulas"
)

// Statistics reduced over a list of axes: logsumexp and variance, with torch's dim (empty:
// dim=None, every axis) and keepdim. Both bind through reduction (reduce.go), view x as
// [outer, n, inner] with the reduced elements of each output in the middle (statLayout), and
// read it once: a contiguous line (inner = 1) per output, or blocks of up to colChunk
// adjacent columns walked down the n rows with per-column accumulators. Accumulators are
// float64.

// prepareStat binds x, checks the tensors of a Forward and returns the data and view the
// kernels read (statLayout).
func prepareStat(r reduction, out, x *Tensor) ([]float32, alongDim, error) {
	axes, shape, err := r.bind(x)
	if err != nil {
		return nil, alongDim{}, err
	}
	if err := x.checkData(r.name, "x"); err != nil {
		return nil, alongDim{}, err
	}
	if err := checkOutput(r.name, out, r.dt, shape); err != nil {
		return nil, alongDim{}, err
	}
	data, v := statLayout(x.Data, x.Shape, axes)
	return data, v, nil
}

// statLayout returns x's data and its [outer, n, inner] view with the n reduced elements of
// each output along the middle: x itself when the reduced axes are one run of adjacent dims
// once size-1 dims are dropped (one axis, a trailing or a leading block, every axis), else
// a copy with the kept axes first and the reduced axes last (inner = 1), in which the
// kept elements keep their row-major order, as the output's do.
func statLayout(x []float32, shape, axes []int) ([]float32, alongDim) {
	gs := axisGroups(shape, axes)
	nred := 0
	v := alongDim{outer: 1, n: 1, inner: 1}
	for _, g := range gs {
		switch {
		case g.reduced:
			nred++
			v.n *= g.size
		case nred == 0:
			v.outer *= g.size
		default:
			v.inner *= g.size
		}
	}
	if nred <= 1 {
		return x, v
	}
	// The copy walks the merged groups with an odometer, in runs of the innermost group
	// when it is reduced (contiguous in x and in the copy), else element by element.
	var perm []int // group indices: kept, then reduced, each in order
	for pass := range 2 {
		for i, g := range gs {
			if g.reduced == (pass == 1) {
				perm = append(perm, i)
			}
		}
	}
	src := make([]int, len(gs)) // row-major strides of the groups in x
	for i, st := len(gs)-1, 1; i >= 0; i-- {
		src[i] = st
		st *= gs[i].size
	}
	dst := make([]int, len(gs)) // and in the copy
	for k, st := len(perm)-1, 1; k >= 0; k-- {
		dst[perm[k]] = st
		st *= gs[perm[k]].size
	}
	dims := len(gs)
	run := 1
	if gs[dims-1].reduced {
		dims, run = dims-1, gs[dims-1].size
	}
	y := make([]float32, len(x))
	idx := make([]int, dims)
	for so, do := 0, 0; ; {
		copy(y[do:do+run], x[so:so+run])
		d := dims - 1
		for ; d >= 0; d-- { // advance the odometer
			idx[d]++
			so += src[d]
			do += dst[d]
			if idx[d] < gs[d].size {
				break
			}
			so -= idx[d] * src[d]
			do -= idx[d] * dst[d]
			idx[d] = 0
		}
		if d < 0 {
			break
		}
	}
	return y, alongDim{outer: v.outer * v.inner, n: v.n, inner: 1}
}

// referenceStat is the plain reference of a statistic over axes: the elements of each output
// gathered into float64 in input order (the output index made of the kept coordinates),
// reduced by f, written at the output's position.
func referenceStat(out, x *Tensor, axes []int, f func(line []float64) float64) {
	lines := make([][]float64, len(out.Data))
	keptStride := keptStrides(x.Shape, axes)
	eachIndex(x.Shape, func(i int, idx []int) {
		o := 0
		for d, c := range idx {
			o += c * keptStride[d]
		}
		lines[o] = append(lines[o], float64(x.Data[i]))
	})
	for o, l := range lines {
		out.Data[o] = float32(f(l))
	}
}

// LogsumexpFwd is torch.logsumexp(x, dim, keepdim): log(sum(exp(x))) over the axes dim,
// computed as max + log(sum(exp(x - max))) so that no exp overflows.
type LogsumexpFwd struct {
	DType   DType
	Dim     []int
	Keepdim bool
	XShape  []int
}

// NewLogsumexpFwd returns a logsumexp over the axes dim (negative axes count from the end;
// none: every axis) over dtype dt; keepdim keeps the reduced axes as size 1. The axes are
// checked against the input's rank by Bind.
func NewLogsumexpFwd(dim []int, keepdim bool, dt DType) (*LogsumexpFwd, error) {
	if err := newReduction("LogsumexpFwd", dim, dt); err != nil {
		return nil, err
	}
	return &LogsumexpFwd{DType: dt, Dim: slices.Clone(dim), Keepdim: keepdim}, nil
}

func (op *LogsumexpFwd) red() reduction {
	return reduction{"LogsumexpFwd", op.DType, op.Dim, op.Keepdim, &op.XShape}
}

// ReductionShape is what formulas.Logsumexp reads.
func (op *LogsumexpFwd) ReductionShape() (formulas.ReductionShape, error) { return op.red().shape() }

// Bind checks x and dim, records x's shape for EvalRoofline and returns the output shape.
func (op *LogsumexpFwd) Bind(x *Tensor) ([]int, error) {
	_, shape, err := op.red().bind(x)
	return shape, err
}

// lseChunk is how many elements a line's running max covers at a time: 16 KiB of float32,
// read once for the chunk's max and again, from L1, for its exps. The running sum is
// rescaled when a chunk raises the max, so the line is read from memory once.
const lseChunk = 4096

// lseColChunk is how many elements of a block of columns logsumexp reads between updates
// of the running maxes: 128 KiB, in L2 from the max pass to the exp pass. The update is
// scalar per column, so it must be rare: 32 rows of 1024 columns.
const lseColChunk = 1 << 15

// lseShift is the value a running sum is taken relative to: the max, or 0 while the max is
// still -inf (every element so far -inf, each contributing exp(-inf) = 0), so that no
// -inf - -inf makes a NaN.
func lseShift(m float32) float32 {
	if m > float32(math.Inf(-1)) {
		return m
	}
	return 0
}

// lseRescale folds a chunk's max mc into the running max m and rescales the running sum s
// (of exp(x - lseShift(m))) to the new shift. A NaN max sticks.
func lseRescale(m float32, s float64, mc float32) (float32, float64) {
	m2 := max(m, mc) // NaN if either is
	if m2 != m {
		if s != 0 {
			s *= float64(expf(lseShift(m) - lseShift(m2)))
		}
		m = m2
	}
	return m, s
}

// lseFinish returns max + log(sum); an infinite or NaN max is the result itself, as in torch
// (a line of -inf gives -inf, one holding +inf gives +inf).
func lseFinish(m float32, s float64) float32 {
	if m != m || math.IsInf(float64(m), 0) {
		return m
	}
	return float32(float64(m) + math.Log(s))
}

// expSum returns sum(exp(x - sh)) in float64: the vector kernel's blocks (prefetching
// next), then two chains to hide the add latency.
func expSum(x []float32, sh float32, next []float32) float64 {
	i, s0 := f32.ExpSum(nil, x, sh, next, expf)
	var s1 float64
	for ; i+2 <= len(x); i += 2 {
		s0 += float64(expf(x[i] - sh))
		s1 += float64(expf(x[i+1] - sh))
	}
	if i < len(x) {
		s0 += float64(expf(x[i] - sh))
	}
	return s0 + s1
}

// lseRow is logsumexp of one contiguous line, chunk by chunk; next is the line read after
// it (nil: none), whose first chunk the last chunk's exp pass prefetches.
func lseRow(x, next []float32) float32 {
	m, s := float32(math.Inf(-1)), 0.0
	for c := 0; c < len(x); c += lseChunk {
		xs := x[c:min(c+lseChunk, len(x))]
		m, s = lseRescale(m, s, float32(maxRow(xs)))
		ahead := next
		if c+lseChunk < len(x) {
			ahead = x[c+lseChunk:]
		}
		s += expSum(xs, lseShift(m), ahead)
	}
	return lseFinish(m, s)
}

// Forward computes out = logsumexp(x, dim, keepdim).
func (op *LogsumexpFwd) Forward(out, x *Tensor) error {
	xd, v, err := prepareStat(op.red(), out, x)
	if err != nil {
		return err
	}
	if v.inner == 1 {
		v.eachRow(func(lo, hi int) { out.Data[lo/v.n] = lseRow(xd[lo:hi], prefetchNext(xd, lo, hi)) })
		return nil
	}
	v.eachBlock(func(base, c0, c1 int) {
		m, s := colExpStats(xd, v, base, c0, c1)
		o := base / v.n // = outer index * inner
		for i := range m {
			out.Data[o+c0+i] = lseFinish(m[i], s[i])
		}
	})
	return nil
}

// colExpStats returns, for each column c0..c1 of the unit of v at base, its max m and the
// sum s of exp(x - lseShift(m)) over its v.n rows, in one read of the unit: chunks of
// lseColChunk elements, each chunk's max taken from memory and its exps from cache, the
// running sums rescaled when a chunk raises a column's max.
func colExpStats(xd []float32, v alongDim, base, c0, c1 int) ([]float32, []float64) {
	w := c1 - c0
	m, mc, sh, s := make([]float32, w), make([]float32, w), make([]float32, w), make([]float64, w)
	for i := range m {
		m[i] = float32(math.Inf(-1))
	}
	rows := max(1, lseColChunk/w)
	for j0 := 0; j0 < v.n; j0 += rows {
		j1 := min(j0+rows, v.n)
		copy(mc, xd[base+j0*v.inner+c0:base+j0*v.inner+c1])
		for j := j0 + 1; j < j1; j++ {
			row := xd[base+j*v.inner+c0 : base+j*v.inner+c1]
			for i := f32.MaxInto(mc, row); i < len(row); i++ {
				mc[i] = max(mc[i], row[i])
			}
		}
		for i := range m {
			m[i], s[i] = lseRescale(m[i], s[i], mc[i])
			sh[i] = lseShift(m[i])
		}
		for j := j0; j < j1; j++ {
			row := xd[base+j*v.inner+c0 : base+j*v.inner+c1]
			for i := f32.ExpSumCols(s, sh, row, expf); i < len(row); i++ {
				s[i] += float64(expf(row[i] - sh[i]))
			}
		}
	}
	return m, s
}

func (op *LogsumexpFwd) reference(out, x *Tensor) {
	axes, _ := reduceAxes("LogsumexpFwd", op.Dim, len(x.Shape)) // validated by Bind
	referenceStat(out, x, axes, func(l []float64) float64 {
		m := math.Inf(-1)
		for _, v := range l {
			m = max(m, v)
		}
		if math.IsInf(m, 0) || math.IsNaN(m) {
			return m
		}
		s := 0.0
		for _, v := range l {
			s += math.Exp(v - m)
		}
		return m + math.Log(s)
	})
}

// VarFwd is torch.var(x, dim, correction, keepdim): sum((x - mean)²) / (n - correction)
// over the axes dim (n elements per output); correction 1 is the unbiased (Bessel)
// estimate, 0 the biased one.
type VarFwd struct {
	DType      DType
	Dim        []int
	Correction int
	Keepdim    bool
	XShape     []int
}

// NewVarFwd returns a variance over the axes dim over dtype dt (see NewLogsumexpFwd).
// correction must not be negative; Bind refuses axes whose size leaves no degrees of
// freedom, where torch returns inf or NaN with a warning.
func NewVarFwd(dim []int, correction int, keepdim bool, dt DType) (*VarFwd, error) {
	if err := newReduction("VarFwd", dim, dt); err != nil {
		return nil, err
	}
	if correction < 0 {
		return nil, fmt.Errorf("VarFwd: correction %d is negative", correction)
	}
	return &VarFwd{DType: dt, Dim: slices.Clone(dim), Correction: correction, Keepdim: keepdim}, nil
}

func (op *VarFwd) red() reduction {
	return reduction{"VarFwd", op.DType, op.Dim, op.Keepdim, &op.XShape}
}

// ReductionShape is what formulas.Var reads.
func (op *VarFwd) ReductionShape() (formulas.ReductionShape, error) { return op.red().shape() }

// Bind checks x, dim and correction, records x's shape for EvalRoofline and returns the
// output shape.
func (op *VarFwd) Bind(x *Tensor) ([]int, error) {
	axes, shape, err := op.red().bind(x)
	if err != nil {
		return nil, err
	}
	n := 1
	for _, a := range axes {
		n *= x.Shape[a]
	}
	return shape, op.checkDOF(x, n)
}

// checkDOF refuses axes of n elements per output that the correction leaves without
// degrees of freedom.
func (op *VarFwd) checkDOF(x *Tensor, n int) error {
	if n <= op.Correction {
		return fmt.Errorf("VarFwd: dim %v of x %v has %d elements per output; correction %d leaves no degrees of freedom", op.Dim, x, n, op.Correction)
	}
	return nil
}

// varFinish turns the shifted sums s1 = Σd, s2 = Σd² (d = x - x0) of n elements into the
// variance: (s2 - s1²/n) / (n - c). The shift by the line's first element keeps s2 and
// s1²/n from cancelling when the mean is large against the spread; a rounding below 0 is
// clamped.
func varFinish(s1, s2 float64, n, c int) float32 {
	return float32(shiftedSquares(s1, s2, n) / float64(n-c))
}

// shiftedSquares is Σ(x - mean)² from the shifted sums of n elements (varFinish).
func shiftedSquares(s1, s2 float64, n int) float64 { return max(0, s2-s1*s1/float64(n)) }

// varRow returns the shifted sums of one contiguous line: the vector kernel's blocks, then
// two chains each.
func varRow(x []float32) (s1, s2 float64) {
	x0 := float64(x[0])
	i, a0, a1 := f32.VarRow(x, x0)
	return varRowRest(x, x0, i, a0, a1)
}

// varRowRest finishes varRow's sums from the kernel's: it did x[:i], with sums a0 and a1.
func varRowRest(x []float32, x0 float64, i int, a0, a1 float64) (s1, s2 float64) {
	var b0, b1 float64
	for ; i+2 <= len(x); i += 2 {
		d0, d1 := float64(x[i])-x0, float64(x[i+1])-x0
		a0 += d0
		a1 += d0 * d0
		b0 += d1
		b1 += d1 * d1
	}
	if i < len(x) {
		d := float64(x[i]) - x0
		a0 += d
		a1 += d * d
	}
	return a0 + b0, a1 + b1
}

// Forward computes out = var(x, dim, correction, keepdim) in one pass over x.
func (op *VarFwd) Forward(out, x *Tensor) error {
	xd, v, err := prepareStat(op.red(), out, x)
	if err != nil {
		return err
	}
	if err := op.checkDOF(x, v.n); err != nil {
		return err
	}
	n, c := v.n, op.Correction
	if v.inner == 1 {
		v.eachRow(func(lo, hi int) {
			s1, s2 := varRow(xd[lo:hi])
			out.Data[lo/n] = varFinish(s1, s2, n, c)
		})
		return nil
	}
	v.eachBlock(func(base, c0, c1 int) {
		w := c1 - c0
		x0, s1, s2 := make([]float64, w), make([]float64, w), make([]float64, w)
		for i, e := range xd[base+c0 : base+c1] {
			x0[i] = float64(e)
		}
		for j := range n {
			row := xd[base+j*v.inner+c0 : base+j*v.inner+c1]
			for i := f32.VarCols(s1, s2, x0, row); i < len(row); i++ {
				d := float64(row[i]) - x0[i]
				s1[i] += d
				s2[i] += d * d
			}
		}
		o := base / n
		for i := range s1 {
			out.Data[o+c0+i] = varFinish(s1[i], s2[i], n, c)
		}
	})
	return nil
}

// reference is the two-pass textbook form: the mean, then the squared deviations from it.
func (op *VarFwd) reference(out, x *Tensor) {
	axes, _ := reduceAxes("VarFwd", op.Dim, len(x.Shape)) // validated by Bind
	referenceStat(out, x, axes, func(l []float64) float64 {
		mean := 0.0
		for _, v := range l {
			mean += v
		}
		mean /= float64(len(l))
		ss := 0.0
		for _, v := range l {
			ss += (v - mean) * (v - mean)
		}
		return ss / float64(len(l)-op.Correction)
	})
}

// statTol: a statistic rounds once to float32 from float64 accumulators; logsumexp's result
// is of order log(n) plus the max, so its absolute error is a few ulp of that.
var (
	lseTol = Tol{Abs: 1e-6, Rel: 1e-6}
	varTol = Tol{Abs: 1e-7, Rel: 1e-6}
)
