package ops

import (
	"math"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// Ops along one dim of a tensor of any rank: softmax, log_softmax and cumsum. Each views x
// as [outer, n, inner] around the (normalized) dim. When the dim is the last (inner = 1)
// every row is contiguous; otherwise a unit of work is a block of up to colChunk adjacent
// inner columns, walked down the n rows with per-column accumulators.

// alongDim is the [outer, n, inner] view of a shape around axis.
type alongDim struct{ outer, n, inner int }

func viewAlong(shape []int, axis int) alongDim {
	v := alongDim{outer: 1, n: shape[axis], inner: 1}
	for _, d := range shape[:axis] {
		v.outer *= d
	}
	for _, d := range shape[axis+1:] {
		v.inner *= d
	}
	return v
}

// eachRow runs row over every contiguous row (inner == 1) in parallel.
func (v alongDim) eachRow(row func(lo, hi int)) {
	parallelFor(v.outer, max(1, grainElems/v.n), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row(r*v.n, (r+1)*v.n)
		}
	})
}

// eachRowBuf is eachRow with a scratch row of v.n elements per worker, whose workers fence
// their streamed stores.
func (v alongDim) eachRowBuf(row func(lo, hi int, buf []float32)) {
	parallelFor(v.outer, max(1, grainElems/v.n), func(lo, hi int) {
		defer f32.Fence()
		buf := make([]float32, v.n)
		for r := lo; r < hi; r++ {
			row(r*v.n, (r+1)*v.n, buf)
		}
	})
}

// eachRowStreamed is eachRow whose workers fence their streamed stores when stream.
func (v alongDim) eachRowStreamed(stream bool, row func(lo, hi int)) {
	v.eachRangeStreamed(stream, func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			row(r*v.n, (r+1)*v.n)
		}
	})
}

// eachRangeStreamed runs rows over each worker's rows [r0, r1) (eachRow's split), and the
// worker fences its streamed stores when stream.
func (v alongDim) eachRangeStreamed(stream bool, rows func(r0, r1 int)) {
	parallelFor(v.outer, max(1, grainElems/v.n), func(lo, hi int) {
		if stream {
			defer f32.Fence()
		}
		rows(lo, hi)
	})
}

// expSumRow returns the float64 sum of e = exp(x - m) over the row x, writing e into y
// where y is not nil: the vector kernel's blocks (prefetching next), then expf in order.
// The softmax family's row passes all sum this way, so a row's sum is the same bits in each.
func expSumRow(y, x []float32, m float32, next []float32) float64 {
	k, s := f32.ExpSum(y, x, m, next, expf)
	for i := k; i < len(x); i++ {
		e := expf(x[i] - m)
		if y != nil {
			y[i] = e
		}
		s += float64(e)
	}
	return s
}

// eachRowFused is the walk of the fused row passes (f32.ExpSumOut, f32.NormVarOut,
// f32.ScaleSumSqOut), whose kernels write one row's output while they read the next row:
// each worker makes its own state with newWorker, runs row(r, first) over its rows in order
// (first: its first row, with no row before it to write; row r's output is written by the
// call for row r+1) and then last(), which writes its last row's output, and fences.
func (v alongDim) eachRowFused(newWorker func() (row func(r int, first bool), last func())) {
	parallelFor(v.outer, max(1, grainElems/v.n), func(lo, hi int) {
		if lo >= hi {
			return
		}
		defer f32.Fence()
		row, last := newWorker()
		for r := lo; r < hi; r++ {
			row(r, r == lo)
		}
		last()
	})
}

// cumsumRow writes the running sum of x into y in float64 (rounded to float32 per element):
// the vector steps where SIMD is on (their in-register prefix sums add in another order
// than the Go loop, so an element may differ from it in the last float64 bits, which
// float32 rounding hides but at a rounding boundary), streamed when stream, prefetching pf
// (the next row, nil: none; see prefetchNext) alongside.
func cumsumRow(y, x, pf []float32, stream bool) {
	i, s := f32.Cumsum(y, x, pf, stream)
	for ; i < len(x); i++ {
		s += float64(x[i])
		y[i] = float32(s)
	}
}

// eachBlock runs block over every (outer index, column range) unit in parallel: base is the
// offset of the unit's first row, [c0, c1) its columns; row j of the unit starts at
// base + j*inner.
func (v alongDim) eachBlock(block func(base, c0, c1 int)) {
	chunks := (v.inner + colChunk - 1) / colChunk
	parallelFor(v.outer*chunks, max(1, grainElems/(v.n*min(v.inner, colChunk))), func(lo, hi int) {
		for u := lo; u < hi; u++ {
			o, c0 := u/chunks, u%chunks*colChunk
			block(o*v.n*v.inner, c0, min(c0+colChunk, v.inner))
		}
	})
}

// dimCore is the state softmax, log_softmax and cumsum share; each op type declares the
// fields itself (docs/binding.md).
type dimCore struct {
	name   string
	dt     DType
	dim    int
	xshape *[]int
}

func newDimOp(name string, dt DType) error { return checkDType(name, dt, floatDTypes...) }

// bind checks x and dim, records x's shape and returns the view around dim.
func (c dimCore) bind(x *Tensor) (alongDim, error) {
	if err := checkInput(c.name, "x", x, c.dt); err != nil {
		return alongDim{}, err
	}
	axis, err := normAxis(c.name, c.dim, len(x.Shape))
	if err != nil {
		return alongDim{}, err
	}
	bindShape(c.xshape, x.Shape)
	return viewAlong(x.Shape, axis), nil
}

// prepare binds and checks the tensors of a Forward.
func (c dimCore) prepare(out, x *Tensor) (alongDim, error) {
	v, err := c.bind(x)
	if err != nil {
		return v, err
	}
	if err := x.checkData(c.name, "x"); err != nil {
		return v, err
	}
	return v, checkOutput(c.name, out, c.dt, x.Shape)
}

// referenceAlong is the plain reference shape: for every (outer, inner) line along the dim,
// gather it into float64, apply f, scatter the result.
func referenceAlong(out, x *Tensor, dim int, f func(line []float64)) error {
	axis, err := normAxis("reference", dim, len(x.Shape))
	if err != nil {
		return err
	}
	v := viewAlong(x.Shape, axis)
	line := make([]float64, v.n)
	for o := range v.outer {
		for i := range v.inner {
			for j := range line {
				line[j] = float64(x.Data[(o*v.n+j)*v.inner+i])
			}
			f(line)
			for j, l := range line {
				out.Data[(o*v.n+j)*v.inner+i] = float32(l)
			}
		}
	}
	return nil
}

// SoftmaxFwd is torch.softmax(x, dim): exp(x - max) / sum(exp(x - max)) along dim.
type SoftmaxFwd struct {
	DType  DType
	Dim    int
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewSoftmaxFwd returns a softmax along dim (negative counts from the end) over dtype dt.
// The dim is checked against the input's rank by Bind.
func NewSoftmaxFwd(dim int, dt DType) (*SoftmaxFwd, error) {
	if err := newDimOp("SoftmaxFwd", dt); err != nil {
		return nil, err
	}
	return &SoftmaxFwd{DType: dt, Dim: dim}, nil
}

func (op *SoftmaxFwd) core() dimCore { return dimCore{"SoftmaxFwd", op.DType, op.Dim, &op.XShape} }

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *SoftmaxFwd) Bind(x *Tensor) ([]int, error) {
	_, err := op.core().bind(x)
	return x.Shape, err
}

// Forward computes out = softmax(x, dim).
func (op *SoftmaxFwd) Forward(out, x *Tensor) error {
	v, err := op.core().prepare(out, x)
	if err != nil {
		return err
	}
	if v.inner == 1 && streams(len(out.Data)) && f32.FusedRowsOK(out.Data, v.n) {
		// A large output on AVX-512: as below, but each row's exp pass runs alongside the
		// streamed output pass of the row before (f32.ExpSumOut), so that the reads and
		// arithmetic of the one overlap the writes of the other, and the scratch row
		// holds the previous row's exps until the same step overwrites them with this
		// row's. The same operations as below, bit for bit.
		n := v.n
		v.eachRowFused(func() (func(int, bool), func()) {
			buf := make([]float32, n)
			var prev []float32 // the output row buf holds the exps of
			var inv float32
			return func(r int, first bool) {
				xs := x.Data[r*n : (r+1)*n]
				m := float32(maxRow(xs))
				pf := prefetchNext(x.Data, r*n, (r+1)*n)
				var s float64
				if first {
					s = expSumRow(buf, xs, m, pf)
				} else {
					_, s = f32.ExpSumOut(prev, buf, inv, buf, xs, m, pf, expf) // every element: n is whole vectors
				}
				prev, inv = out.Data[r*n:(r+1)*n], float32(1/s)
			}, func() { scaleRow(prev, buf, nil, nil, inv, true) }
		})
		return nil
	}
	if v.inner == 1 && streams(len(out.Data)) && simdLevel() >= SIMDAVX2 {
		// A large output: e**(x - m) goes to a scratch row that stays in L1, and the
		// scaled row is streamed from it (scaleRow), so y's lines are written once and
		// never read; the same operations as below, bit for bit.
		v.eachRowBuf(func(lo, hi int, buf []float32) {
			xs, ys := x.Data[lo:hi], out.Data[lo:hi]
			m := float32(maxRow(xs))
			s := expSumRow(buf, xs, m, prefetchNext(x.Data, lo, hi))
			// the exp pass prefetched the next row already, during its arithmetic: a
			// second prefetch here only adds work (ropbench ab found no gain from it, nor
			// from prefetching here alone: docs/history.md)
			scaleRow(ys, buf, nil, nil, float32(1/s), true)
		})
		return nil
	}
	if v.inner == 1 {
		v.eachRow(func(lo, hi int) {
			xs, ys := x.Data[lo:hi], out.Data[lo:hi]
			m := float32(maxRow(xs))
			s := expSumRow(ys, xs, m, prefetchNext(x.Data, lo, hi))
			inv := float32(1 / s)
			for i := f32.Scale(ys, ys, nil, nil, inv, false); i < len(ys); i++ {
				ys[i] *= inv
			}
		})
		return nil
	}
	// Along a dim with elements after it: a unit is a block of columns. One read of it gives
	// each column's max and sum of e**(x - max) (colExpStats, logsumexp's column pass); a
	// second computes each row's e**(x - max) with the vector kernels across the columns
	// into a scratch row in L1, and streams y = that / sum from it where the output is
	// large (the exps computed again rather than stored and read back). A small unit takes
	// the Go loops (colsGo).
	stream := streams(len(out.Data))
	v.eachBlock(func(base, c0, c1 int) {
		if colsGo(v, c0, c1) {
			softmaxColsGo(out.Data, x.Data, v, base, c0, c1)
			return
		}
		m, s := colExpStats(x.Data, v, base, c0, c1)
		r, buf := make([]float32, c1-c0), make([]float32, c1-c0)
		for i := range r {
			r[i] = float32(1 / s[i])
		}
		for j := range v.n {
			off := base + j*v.inner
			row, ys := x.Data[off+c0:off+c1], out.Data[off+c0:off+c1]
			for i := f32.Arith(opSub, buf, row, m); i < len(buf); i++ {
				buf[i] = row[i] - m[i]
			}
			for i := f32.Unary(uExp, buf, buf, expf); i < len(buf); i++ {
				buf[i] = expf(buf[i])
			}
			scaleRow(ys, buf, r, nil, 1, stream) // buf · 1 · r, exactly buf · r
		}
		if stream {
			f32.Fence()
		}
	})
	return nil
}

// colsGoElems is the size of a unit of columns (its rows times its columns) below which
// softmax and log_softmax along a dim with elements after it take the Go loops: the vector
// path's kernel calls a row and its scratch are a fixed cost, paid cold, that a small unit's
// arithmetic does not repay (docs/history.md has the A/B).
const colsGoElems = 2048

// colsGo reports whether a unit of columns c0..c1 of v takes the Go loops: it is small,
// or narrower than one vector.
func colsGo(v alongDim, c0, c1 int) bool {
	return c1-c0 < f32.Lanes() || v.n*(c1-c0) < colsGoElems
}

// colMaxGo returns the max of each column c0..c1 of the unit at base over its v.n rows, in Go.
func colMaxGo(x []float32, v alongDim, base, c0, c1 int) []float32 {
	m := make([]float32, c1-c0)
	for i := range m {
		m[i] = float32(math.Inf(-1))
	}
	for j := range v.n {
		for i, e := range x[base+j*v.inner+c0 : base+j*v.inner+c1] {
			m[i] = max(m[i], e)
		}
	}
	return m
}

// softmaxColsGo is softmax over the v.n rows of columns c0..c1 of the unit at base, in Go:
// the max, the exps and their sum, the scaling, one walk down the rows each.
func softmaxColsGo(y, x []float32, v alongDim, base, c0, c1 int) {
	m, s := colMaxGo(x, v, base, c0, c1), make([]float64, c1-c0)
	for j := range v.n {
		off := base + j*v.inner
		row, ys := x[off+c0:off+c1], y[off+c0:off+c1]
		for i, e := range row {
			p := expf(e - m[i])
			ys[i] = p
			s[i] += float64(p)
		}
	}
	for j := range v.n {
		ys := y[base+j*v.inner+c0 : base+j*v.inner+c1]
		for i := range ys {
			ys[i] *= float32(1 / s[i])
		}
	}
}

// colExpStatsGo is colExpStats in Go, for small units: each column's max, then its sum of
// exp(x - max), one walk down the rows each (a column all -inf sums NaN where colExpStats
// sums 0; log_softmax is NaN there either way).
func colExpStatsGo(x []float32, v alongDim, base, c0, c1 int) ([]float32, []float64) {
	m, s := colMaxGo(x, v, base, c0, c1), make([]float64, c1-c0)
	for j := range v.n {
		for i, e := range x[base+j*v.inner+c0 : base+j*v.inner+c1] {
			s[i] += float64(expf(e - m[i]))
		}
	}
	return m, s
}

func (op *SoftmaxFwd) reference(out, x *Tensor) error {
	return referenceAlong(out, x, op.Dim, func(l []float64) {
		m := math.Inf(-1)
		for _, v := range l {
			m = max(m, v)
		}
		s := 0.0
		for i, v := range l {
			l[i] = math.Exp(v - m)
			s += l[i]
		}
		for i := range l {
			l[i] /= s
		}
	})
}

// LogSoftmaxFwd is torch.log_softmax(x, dim): x - max - log(sum(exp(x - max))) along dim.
type LogSoftmaxFwd struct {
	DType  DType
	Dim    int
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewLogSoftmaxFwd returns a log_softmax along dim over dtype dt (see NewSoftmaxFwd).
func NewLogSoftmaxFwd(dim int, dt DType) (*LogSoftmaxFwd, error) {
	if err := newDimOp("LogSoftmaxFwd", dt); err != nil {
		return nil, err
	}
	return &LogSoftmaxFwd{DType: dt, Dim: dim}, nil
}

func (op *LogSoftmaxFwd) core() dimCore {
	return dimCore{"LogSoftmaxFwd", op.DType, op.Dim, &op.XShape}
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *LogSoftmaxFwd) Bind(x *Tensor) ([]int, error) {
	_, err := op.core().bind(x)
	return x.Shape, err
}

// Forward computes out = log_softmax(x, dim).
func (op *LogSoftmaxFwd) Forward(out, x *Tensor) error {
	v, err := op.core().prepare(out, x)
	if err != nil {
		return err
	}
	stream := streams(len(out.Data))
	if v.inner == 1 && stream && f32.FusedRowsOK(out.Data, v.n) {
		// A large output on AVX-512: as below, but each row's exp pass runs alongside the
		// streamed output pass of the row before (f32.ExpSumOut; see SoftmaxFwd), the
		// same operations, bit for bit.
		n := v.n
		v.eachRowFused(func() (func(int, bool), func()) {
			var prevX, prevY []float32 // the row before and its output
			var c float32
			return func(r int, first bool) {
				xs := x.Data[r*n : (r+1)*n]
				m := float32(maxRow(xs))
				pf := prefetchNext(x.Data, r*n, (r+1)*n)
				var s float64
				if first {
					s = expSumRow(nil, xs, m, pf)
				} else {
					_, s = f32.ExpSumOut(prevY, prevX, c, nil, xs, m, pf, expf) // every element: n is whole vectors
				}
				prevX, prevY, c = xs, out.Data[r*n:(r+1)*n], m+logf(float32(s))
			}, func() { normalizeRow(prevY, prevX, nil, nil, nil, c, 1, true) }
		})
		return nil
	}
	if v.inner == 1 {
		v.eachRowStreamed(stream, func(lo, hi int) {
			xs, ys := x.Data[lo:hi], out.Data[lo:hi]
			m := float32(maxRow(xs))
			s := expSumRow(nil, xs, m, prefetchNext(x.Data, lo, hi))
			// y = (x - c) * 1, which is x - c bit for bit, through the row ops' output pass:
			// a large output streams and its worker fences once (the two-input streaming
			// kernel fenced every row; the exp pass prefetched the next row already)
			normalizeRow(ys, xs, nil, nil, nil, m+logf(float32(s)), 1, stream)
		})
		return nil
	}
	v.eachBlock(func(base, c0, c1 int) { // as softmax's columns
		stats, goLoops := colExpStats, colsGo(v, c0, c1)
		if goLoops {
			stats = colExpStatsGo
		}
		m, s := stats(x.Data, v, base, c0, c1)
		for i := range m {
			m[i] += logf(float32(s[i])) // m now holds max + log(sum)
		}
		for j := range v.n {
			off := base + j*v.inner
			row, ys := x.Data[off+c0:off+c1], out.Data[off+c0:off+c1]
			k := 0
			if !goLoops {
				k = f32.Arith(opSub, ys, row, m)
			}
			for i := k; i < len(ys); i++ {
				ys[i] = row[i] - m[i]
			}
		}
	})
	return nil
}

func (op *LogSoftmaxFwd) reference(out, x *Tensor) error {
	return referenceAlong(out, x, op.Dim, func(l []float64) {
		m := math.Inf(-1)
		for _, v := range l {
			m = max(m, v)
		}
		s := 0.0
		for _, v := range l {
			s += math.Exp(v - m)
		}
		lse := m + math.Log(s)
		for i := range l {
			l[i] -= lse
		}
	})
}

// CumsumFwd is torch.cumsum(x, dim): inclusive running sums along dim, accumulated in
// float64.
type CumsumFwd struct {
	DType  DType
	Dim    int
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewCumsumFwd returns a cumsum along dim over dtype dt (see NewSoftmaxFwd).
func NewCumsumFwd(dim int, dt DType) (*CumsumFwd, error) {
	if err := newDimOp("CumsumFwd", dt); err != nil {
		return nil, err
	}
	return &CumsumFwd{DType: dt, Dim: dim}, nil
}

func (op *CumsumFwd) core() dimCore { return dimCore{"CumsumFwd", op.DType, op.Dim, &op.XShape} }

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *CumsumFwd) Bind(x *Tensor) ([]int, error) {
	_, err := op.core().bind(x)
	return x.Shape, err
}

// Forward computes out = cumsum(x, dim).
func (op *CumsumFwd) Forward(out, x *Tensor) error {
	v, err := op.core().prepare(out, x)
	if err != nil {
		return err
	}
	if v.inner == 1 {
		stream := streams(len(out.Data))
		n := v.n
		v.eachRangeStreamed(stream, func(lo, hi int) {
			r := lo
			for ; r+4 <= hi; r += 4 { // four rows at once where the kernel takes them
				a, b := r*n, (r+4)*n
				if !f32.Cumsum4(out.Data[a:b], x.Data[a:b], prefetchNext(x.Data, a, b), n, stream) {
					break
				}
			}
			for ; r < hi; r++ {
				a, b := r*n, (r+1)*n
				cumsumRow(out.Data[a:b], x.Data[a:b], prefetchNext(x.Data, a, b), stream)
			}
		})
		return nil
	}
	v.eachBlock(func(base, c0, c1 int) {
		s := make([]float64, c1-c0)
		for j := range v.n {
			off := base + j*v.inner
			row, ys := x.Data[off+c0:off+c1], out.Data[off+c0:off+c1]
			for i, e := range row {
				s[i] += float64(e)
				ys[i] = float32(s[i])
			}
		}
	})
	return nil
}

func (op *CumsumFwd) reference(out, x *Tensor) error {
	return referenceAlong(out, x, op.Dim, func(l []float64) {
		for i := 1; i < len(l); i++ {
			l[i] += l[i-1]
		}
	})
}
