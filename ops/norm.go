package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// Normalizations over the trailing dims given by normalized_shape: rms_norm and layer_norm.
// x is viewed as rows of n = product(normalized_shape) contiguous elements; weight and bias
// (optional) have shape normalized_shape. Row statistics accumulate in float64.

// normCore is the state both norms share; each op type declares the fields itself
// (docs/binding.md).
type normCore struct {
	name            string
	dt              DType
	normalizedShape []int
	xshape          *[]int
}

func newNorm(name string, normalizedShape []int, dt DType) error {
	if err := checkDType(name, dt, floatDTypes...); err != nil {
		return err
	}
	if len(normalizedShape) == 0 {
		return fmt.Errorf("%s: normalized_shape is empty; give the trailing dims to normalize over", name)
	}
	for _, d := range normalizedShape {
		if d < 1 {
			return fmt.Errorf("%s: normalized_shape %v: dims must be positive", name, normalizedShape)
		}
	}
	return nil
}

// bind checks x and the affine params (weight, bias: nil when absent) and records x's shape.
func (c normCore) bind(x *Tensor, affine ...Arg) error {
	if err := checkInput(c.name, "x", x, c.dt); err != nil {
		return err
	}
	k := len(c.normalizedShape)
	if len(x.Shape) < k || !slices.Equal(x.Shape[len(x.Shape)-k:], c.normalizedShape) {
		return fmt.Errorf("%s: input x %v does not end in normalized_shape %v", c.name, x, c.normalizedShape)
	}
	for _, a := range affine {
		if a.T == nil {
			continue
		}
		if err := checkInput(c.name, a.Name, a.T, c.dt); err != nil {
			return err
		}
		if !slices.Equal(a.T.Shape, c.normalizedShape) {
			return fmt.Errorf("%s: %s is %v; its shape must be normalized_shape %v", c.name, a.Name, a.T, c.normalizedShape)
		}
	}
	bindShape(c.xshape, x.Shape)
	return nil
}

// bindOptional records an optional input's shape: nil when absent, as the generated
// EvalRoofline's `weight != nil` expects.
func bindOptional(field *[]int, t *Tensor) {
	if t == nil {
		*field = nil
		return
	}
	bindShape(field, t.Shape)
}

// checkAll checks that every present tensor holds data.
func checkAll(op string, ts ...Arg) error {
	for _, a := range ts {
		if a.T == nil {
			continue
		}
		if err := a.T.checkData(op, a.Name); err != nil {
			return err
		}
	}
	return nil
}

// dataOf returns t's data, nil for an absent tensor.
func dataOf(t *Tensor) []float32 {
	if t == nil {
		return nil
	}
	return t.Data
}

// RMSNormFwd is torch.nn.functional.rms_norm: y = x / sqrt(mean(x²) + eps) * weight over
// the trailing normalized_shape dims.
type RMSNormFwd struct {
	DType           DType
	NormalizedShape []int
	Eps             *float64
	XShape          []int
	WeightShape     []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewRMSNormFwd returns an rms_norm over the trailing dims normalizedShape of a tensor of
// dtype dt. A nil eps is torch's default, the machine epsilon of dt.
func NewRMSNormFwd(normalizedShape []int, eps *float64, dt DType) (*RMSNormFwd, error) {
	if err := newNorm("RMSNormFwd", normalizedShape, dt); err != nil {
		return nil, err
	}
	if eps != nil && !(*eps >= 0) {
		return nil, fmt.Errorf("RMSNormFwd: eps %v must be a non-negative number", *eps)
	}
	return &RMSNormFwd{DType: dt, NormalizedShape: slices.Clone(normalizedShape), Eps: eps}, nil
}

func (op *RMSNormFwd) core() normCore {
	return normCore{"RMSNormFwd", op.DType, op.NormalizedShape, &op.XShape}
}

// eps returns the eps in use: the given one, or the machine epsilon of the dtype.
func (op *RMSNormFwd) eps() float64 {
	if op.Eps != nil {
		return *op.Eps
	}
	switch op.DType {
	case Float16:
		return 0x1p-10
	case BFloat16:
		return 0x1p-7
	}
	return 0x1p-23
}

// Bind checks x and weight (nil when absent), records their shapes for EvalRoofline and
// returns the output shape.
func (op *RMSNormFwd) Bind(x, weight *Tensor) ([]int, error) {
	if err := op.core().bind(x, Arg{"weight", weight}); err != nil {
		return nil, err
	}
	bindOptional(&op.WeightShape, weight)
	return x.Shape, nil
}

// Forward computes out = rms_norm(x) * weight; weight may be nil.
func (op *RMSNormFwd) Forward(out, x, weight *Tensor) error {
	if _, err := op.Bind(x, weight); err != nil {
		return err
	}
	if err := checkAll("RMSNormFwd", Arg{"x", x}, Arg{"weight", weight}); err != nil {
		return err
	}
	if err := checkOutput("RMSNormFwd", out, op.DType, x.Shape); err != nil {
		return err
	}
	n, eps, w := shapeNumel(op.NormalizedShape), op.eps(), dataOf(weight)
	v := alongDim{outer: len(x.Data) / n, n: n, inner: 1}
	stream := streams(len(out.Data)) // the output pass streams (see streamRow)
	if stream && f32.FusedNormsOK(out.Data, n) {
		// A large output (at a SIMD level): each row's statistics pass runs alongside the
		// streamed output pass of the row before (f32.ScaleSumSqOut), as LayerNormFwd's;
		// the same operations as below, bit for bit.
		v.eachRowFused(func() (func(int, bool), func()) {
			var prevX, prevY []float32 // the row before and its output
			var r float32
			return func(row int, first bool) {
				xs := x.Data[row*n : (row+1)*n]
				var i int
				var s0 float64
				if first {
					i, s0 = f32.SumSq(xs)
				} else {
					i, s0 = f32.ScaleSumSqOut(prevY, prevX, w, r, xs, prefetchNext(x.Data, row*n, (row+1)*n))
				}
				r = float32(1 / math.Sqrt(sumSqRest(xs, i, s0)/float64(n)+eps))
				prevX, prevY = xs, out.Data[row*n:(row+1)*n]
			}, func() { scaleRow(prevY, prevX, w, nil, r, true) }
		})
		return nil
	}
	v.eachRowStreamed(stream, func(lo, hi int) {
		xs, ys := x.Data[lo:hi], out.Data[lo:hi]
		i, s0 := f32.SumSq(xs)
		r := float32(1 / math.Sqrt(sumSqRest(xs, i, s0)/float64(n)+eps))
		scaleRow(ys, xs, w, prefetchNext(x.Data, lo, hi), r, stream)
	})
	return nil
}

// sumSqRest finishes the sum of squares of x in float64 from the vector kernel's: it did
// x[:i], summing s0; the rest in two chains.
func sumSqRest(x []float32, i int, s0 float64) float64 {
	var s1 float64
	for ; i+2 <= len(x); i += 2 {
		s0 += float64(x[i]) * float64(x[i])
		s1 += float64(x[i+1]) * float64(x[i+1])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(x[i])
	}
	return s0 + s1
}

func (op *RMSNormFwd) reference(out, x, weight *Tensor) {
	n := shapeNumel(op.NormalizedShape)
	for r := 0; r < len(x.Data)/n; r++ {
		row := x.Data[r*n : (r+1)*n]
		ss := 0.0
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		rstd := 1 / math.Sqrt(ss/float64(n)+op.eps())
		for i, v := range row {
			y := float64(v) * rstd
			if weight != nil {
				y *= float64(weight.Data[i])
			}
			out.Data[r*n+i] = float32(y)
		}
	}
}

// LayerNormFwd is torch.nn.functional.layer_norm: y = (x - mean) / sqrt(var + eps) * weight
// + bias over the trailing normalized_shape dims (biased variance, as torch).
type LayerNormFwd struct {
	DType           DType
	NormalizedShape []int
	Eps             float64
	XShape          []int
	WeightShape     []int
	BiasShape       []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewLayerNormFwd returns a layer_norm over the trailing dims normalizedShape of a tensor of
// dtype dt.
func NewLayerNormFwd(normalizedShape []int, eps float64, dt DType) (*LayerNormFwd, error) {
	if err := newNorm("LayerNormFwd", normalizedShape, dt); err != nil {
		return nil, err
	}
	if !(eps >= 0) {
		return nil, fmt.Errorf("LayerNormFwd: eps %v must be a non-negative number", eps)
	}
	return &LayerNormFwd{DType: dt, NormalizedShape: slices.Clone(normalizedShape), Eps: eps}, nil
}

func (op *LayerNormFwd) core() normCore {
	return normCore{"LayerNormFwd", op.DType, op.NormalizedShape, &op.XShape}
}

// Bind checks x, weight and bias (each may be nil), records their shapes for EvalRoofline
// and returns the output shape.
func (op *LayerNormFwd) Bind(x, weight, bias *Tensor) ([]int, error) {
	if err := op.core().bind(x, Arg{"weight", weight}, Arg{"bias", bias}); err != nil {
		return nil, err
	}
	bindOptional(&op.WeightShape, weight)
	bindOptional(&op.BiasShape, bias)
	return x.Shape, nil
}

// Forward computes out = layer_norm(x) * weight + bias; weight and bias may be nil.
func (op *LayerNormFwd) Forward(out, x, weight, bias *Tensor) error {
	if _, err := op.Bind(x, weight, bias); err != nil {
		return err
	}
	if err := checkAll("LayerNormFwd", Arg{"x", x}, Arg{"weight", weight}, Arg{"bias", bias}); err != nil {
		return err
	}
	if err := checkOutput("LayerNormFwd", out, op.DType, x.Shape); err != nil {
		return err
	}
	n := shapeNumel(op.NormalizedShape)
	w, bs := dataOf(weight), dataOf(bias)
	v := alongDim{outer: len(x.Data) / n, n: n, inner: 1}
	stream := streams(len(out.Data))
	stats := func(xs []float32, s1, s2 float64) (m, r float32) { // varRow's shifted sums of xs
		mean := float64(xs[0]) + s1/float64(n)
		return float32(mean), float32(1 / math.Sqrt(shiftedSquares(s1, s2, n)/float64(n)+op.Eps))
	}
	if stream && f32.FusedNormsOK(out.Data, n) {
		// A large output (at a SIMD level): as below, but each row's statistics pass runs
		// alongside the streamed output pass of the row before (f32.NormVarOut), so that
		// its arithmetic overlaps the memory traffic of the other; the same operations,
		// bit for bit.
		v.eachRowFused(func() (func(int, bool), func()) {
			var prevX, prevY []float32 // the row before and its output
			var m, r float32
			return func(row int, first bool) {
				xs := x.Data[row*n : (row+1)*n]
				var s1, s2 float64
				if first {
					s1, s2 = varRow(xs)
				} else {
					x0 := float64(xs[0])
					i, a0, a1 := f32.NormVarOut(prevY, prevX, w, bs, m, r, xs, x0, prefetchNext(x.Data, row*n, (row+1)*n))
					s1, s2 = varRowRest(xs, x0, i, a0, a1)
				}
				m, r = stats(xs, s1, s2)
				prevX, prevY = xs, out.Data[row*n:(row+1)*n]
			}, func() { normalizeRow(prevY, prevX, w, bs, nil, m, r, true) }
		})
		return nil
	}
	v.eachRowStreamed(stream, func(lo, hi int) {
		xs, ys := x.Data[lo:hi], out.Data[lo:hi]
		// One pass of shifted sums, as VarFwd's (varRow, shiftedSquares): in float64, the
		// shift by the row's first element keeps s2 and s1²/n from cancelling; the
		// variance's relative error is at most about n² * 2**-53 even where that element
		// lies far out (n = 4096: 2e-9), with less arithmetic per row than a two-pass form
		// (the mean, then the squared deviations).
		s1, s2 := varRow(xs)
		m, r := stats(xs, s1, s2)
		normalizeRow(ys, xs, w, bs, prefetchNext(x.Data, lo, hi), m, r, stream)
	})
	return nil
}

func (op *LayerNormFwd) reference(out, x, weight, bias *Tensor) {
	n := shapeNumel(op.NormalizedShape)
	for r := 0; r < len(x.Data)/n; r++ {
		row := x.Data[r*n : (r+1)*n]
		mean := 0.0
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(n)
		vr := 0.0
		for _, v := range row {
			vr += (float64(v) - mean) * (float64(v) - mean)
		}
		rstd := 1 / math.Sqrt(vr/float64(n)+op.Eps)
		for i, v := range row {
			y := (float64(v) - mean) * rstd
			if weight != nil {
				y *= float64(weight.Data[i])
			}
			if bias != nil {
				y += float64(bias.Data[i])
			}
			out.Data[r*n+i] = float32(y)
		}
	}
}

// normTol: float32 products of the normalized value with rstd and weight round two or three
// times where the float64 reference rounds once; outputs are of order 1 (plus the bias).
var normTol = Tol{Abs: 5e-7, Rel: 1e-6}

// streamRow computes one output row y (of input x, and of the per-element w and b where
// the piece function reads them) with piece(y, x, w, b, pf, nt): when stream is set, the
// row's 64-byte-aligned whole lines (ntSpan) with non-temporal stores, which skip the
// read-for-ownership of lines the row pass would otherwise fetch only to overwrite, and
// the at most 15 elements either side with ordinary stores. The row itself is in cache
// from the statistics pass; only its output goes to memory. pf (nil: none) is the next
// row, prefetched alongside (prefetchNext). The streamed stores are not fenced: the
// caller's worker fences after its last row (eachRowStreamed).
func streamRow(y, x, w, b, pf []float32, stream bool, piece func(y, x, w, b, pf []float32, nt bool)) {
	s, e := 0, 0
	if stream && simdLevel() >= SIMDAVX2 {
		s, e = ntSpan(y)
	}
	if e == s {
		piece(y, x, w, b, pf, false)
		return
	}
	sub := func(v []float32, i, j int) []float32 {
		if len(v) < j {
			return nil
		}
		return v[i:j]
	}
	piece(y[:s], x[:s], sub(w, 0, s), sub(b, 0, s), sub(pf, 0, s), false)
	piece(y[s:e], x[s:e], sub(w, s, e), sub(b, s, e), sub(pf, s, e), true)
	piece(y[e:], x[e:len(y)], sub(w, e, len(y)), sub(b, e, len(y)), sub(pf, e, len(y)), false)
}

// prefetchNext returns the row after [lo, hi) of data, for the output pass of row [lo, hi)
// to prefetch while it writes: the statistics pass of that next row then reads it from
// cache, and the core's reads and streamed writes overlap as in a copy. Row by row without
// it, each row's reads wait for the previous row's writes and the pair falls well short of
// a copy's bandwidth. nil past the last row.
func prefetchNext(data []float32, lo, hi int) []float32 {
	if n := hi - lo; hi+n <= len(data) {
		return data[hi : hi+n]
	}
	return nil
}

// scaleRow computes y = x * r (* w where w is not nil), streaming y when stream and
// prefetching pf alongside.
func scaleRow(y, x, w, pf []float32, r float32, stream bool) {
	streamRow(y, x, w, nil, pf, stream, func(y, x, w, _, pf []float32, nt bool) {
		k := f32.Scale(y, x, w, pf, r, nt)
		if w == nil {
			for i, e := range x[k:len(y)] {
				y[k+i] = e * r
			}
			return
		}
		w = w[:len(y)]
		for i := k; i < len(y); i++ {
			y[i] = x[i] * r * w[i]
		}
	})
}

// normalizeRow computes y = (x - m) * r (* w) (+ b), streaming y when stream and
// prefetching pf alongside.
func normalizeRow(y, x, w, b, pf []float32, m, r float32, stream bool) {
	streamRow(y, x, w, b, pf, stream, func(ys, xs, w, bs, pf []float32, nt bool) {
		k := f32.Normalize(ys, xs, w, bs, pf, m, r, nt)
		xs, ys = xs[k:len(ys)], ys[k:]
		if w != nil {
			w = w[k:]
		}
		if bs != nil {
			bs = bs[k:]
		}
		switch {
		case w != nil && bs != nil:
			w, bs := w[:len(xs)], bs[:len(xs)]
			for i, e := range xs {
				ys[i] = (e-m)*r*w[i] + bs[i]
			}
		case w != nil:
			w := w[:len(xs)]
			for i, e := range xs {
				ys[i] = (e - m) * r * w[i]
			}
		case bs != nil:
			bs := bs[:len(xs)]
			for i, e := range xs {
				ys[i] = (e-m)*r + bs[i]
			}
		default:
			for i, e := range xs {
				ys[i] = (e - m) * r
			}
		}
	})
}
