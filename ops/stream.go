package ops

import "github.com/ropgen/ropgen/internal/stream"

// The streaming kernels (internal/stream's XxxNT, which calibration's copy_nt mix runs
// too): the large-output path of copy, relu, leaky relu, clamp and the add, sub, mul and
// div of same-shape operands or of a row and a scalar (see streamMinBytes). They write with
// non-temporal stores over the aligned span of the output (stream.Span, empty where there are
// none: another architecture, the purego build), which skip the read-for-ownership an
// ordinary store pays for each output line; the Go loops do the rest.

// ntSame, ntRight and ntLeft are the streaming kernels of each operand form, indexed by
// opAdd..opDiv. A scalar left operand of the commutative add and mul takes the
// right-scalar kernel: the IEEE result is the same either way (which NaN comes out of two
// NaNs depends on operand order, in Go code too).
var (
	ntSame  = [...]func(y, a, b []float32){opAdd: stream.AddNT, opSub: stream.SubNT, opMul: stream.MulNT, opDiv: stream.DivNT}
	ntRight = [...]func(y, a []float32, s float32){opAdd: stream.AddSNT, opSub: stream.SubSNT, opMul: stream.MulSNT, opDiv: stream.DivSNT}
	ntLeft  = [...]func(y, a []float32, s float32){opAdd: stream.AddSNT, opSub: stream.RsubSNT, opMul: stream.MulSNT, opDiv: stream.RdivSNT}
)

// ntSpan returns the part [s, e) of y that the streaming kernels can write (stream.Span).
func ntSpan(y []float32) (s, e int) { return stream.Span(y) }

// ntStream runs kern over the aligned span of y (ntSpan), when it holds a line, and
// returns the span: the shape of every one-input streaming helper.
func ntStream(y []float32, kern func(s, e int)) (s, e int) {
	s, e = ntSpan(y)
	if e > s {
		kern(s, e)
	}
	return s, e
}

// ntRelu streams relu(x) into the aligned span of y and returns it (ntSpan).
func ntRelu(y, x []float32) (s, e int) {
	return ntStream(y, func(s, e int) { stream.ReluNT(y[s:e], x[s:e]) })
}

// ntLeakyRelu streams leaky_relu(x) with slope sl into the aligned span of y and returns
// it (ntSpan).
func ntLeakyRelu(y, x []float32, sl float32) (s, e int) {
	return ntStream(y, func(s, e int) { stream.LeakyReluNT(y[s:e], x[s:e], sl) })
}

// ntClamp streams min(max(x, lo), hi) into the aligned span of y and returns it (ntSpan).
func ntClamp(y, x []float32, lo, hi float32) (s, e int) {
	return ntStream(y, func(s, e int) { stream.ClampNT(y[s:e], x[s:e], lo, hi) })
}

// ntArith streams a ∘ b (op is opAdd..opDiv) into the aligned span of y and returns it
// (ntSpan). As for f32.Arith, a and b are each either as long as y or a single broadcast
// element, but not both single.
func ntArith(op int, y, a, b []float32) (s, e int) {
	s, e = ntSpan(y)
	if e == s { // fewer than 16 elements: a one-element input is as long as y
		return 0, 0
	}
	switch {
	case len(b) == 1:
		ntRight[op](y[s:e], a[s:e], b[0])
	case len(a) == 1:
		ntLeft[op](y[s:e], b[s:e], a[0])
	default:
		ntSame[op](y[s:e], a[s:e], b[s:e])
	}
	return s, e
}

// ntCopy streams x into the aligned span of y and returns it (ntSpan).
func ntCopy(y, x []float32) (s, e int) {
	return ntStream(y, func(s, e int) { stream.CopyNT(y[s:e], x[s:e]) })
}
