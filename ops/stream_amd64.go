//go:build amd64

package ops

import "unsafe"

// The streaming kernels of stream_amd64.s: the large-output path of copy, relu, leaky relu,
// clamp and the add, sub, mul and div of same-shape operands or of a row and a scalar
// (see streamMinBytes). They write with non-temporal stores, which skip the
// read-for-ownership an ordinary store pays for each output line, issue a line's loads and
// stores back to back, which a Go loop does not, and walk 8 (two inputs: 4) pages of their
// range at once, which keeps the hardware prefetcher that many streams ahead. They are SSE
// only, the amd64 baseline, so they need no CPU feature check and serve both the scalar
// and the GOEXPERIMENT=simd build.

// reluNT, leakyReluNT, clampNT, addNT, subNT, mulNT and divNT compute y = f(x) or
// y = a ∘ b over len(y) &^ 15 elements; y must be 64-byte aligned and the inputs at least
// as long as y.
//
//go:noescape
func reluNT(y, x []float32)

//go:noescape
func leakyReluNT(y, x []float32, s float32)

//go:noescape
func clampNT(y, x []float32, lo, hi float32)

//go:noescape
func addNT(y, a, b []float32)

//go:noescape
func subNT(y, a, b []float32)

//go:noescape
func mulNT(y, a, b []float32)

//go:noescape
func divNT(y, a, b []float32)

// addSNT, subSNT, mulSNT and divSNT compute y = a ∘ s, rsubSNT and rdivSNT y = s ∘ a, over
// len(y) &^ 15 elements, as the kernels above.
//
//go:noescape
func addSNT(y, a []float32, s float32)

//go:noescape
func subSNT(y, a []float32, s float32)

//go:noescape
func mulSNT(y, a []float32, s float32)

//go:noescape
func divSNT(y, a []float32, s float32)

//go:noescape
func rsubSNT(y, a []float32, s float32)

//go:noescape
func rdivSNT(y, a []float32, s float32)

// The kernels of each operand form, indexed by opAdd..opDiv. A scalar left operand of the
// commutative add and mul takes the right-scalar kernel: the IEEE result is the same
// either way (which NaN comes out of two NaNs depends on operand order, in Go code too).
var (
	ntSame  = [...]func(y, a, b []float32){opAdd: addNT, opSub: subNT, opMul: mulNT, opDiv: divNT}
	ntRight = [...]func(y, a []float32, s float32){opAdd: addSNT, opSub: subSNT, opMul: mulSNT, opDiv: divSNT}
	ntLeft  = [...]func(y, a []float32, s float32){opAdd: addSNT, opSub: rsubSNT, opMul: mulSNT, opDiv: rdivSNT}
)

// ntSpan returns the part [s, e) of y that the streaming kernels can write: it starts on a
// 64-byte boundary and holds whole cache lines (16 float32). The caller computes y[:s]
// (at most 15 elements) and y[e:] (at most 15) with ordinary stores.
func ntSpan(y []float32) (s, e int) {
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(y)))
	if addr%4 != 0 { // not float32-aligned (only unsafe code makes such a slice)
		return 0, 0
	}
	s = int(-addr%64) / 4
	if s >= len(y) {
		return 0, 0
	}
	return s, s + (len(y)-s)&^15
}

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
	return ntStream(y, func(s, e int) { reluNT(y[s:e], x[s:e]) })
}

// ntLeakyRelu streams leaky_relu(x) with slope sl into the aligned span of y and returns
// it (ntSpan).
func ntLeakyRelu(y, x []float32, sl float32) (s, e int) {
	return ntStream(y, func(s, e int) { leakyReluNT(y[s:e], x[s:e], sl) })
}

// ntClamp streams min(max(x, lo), hi) into the aligned span of y and returns it (ntSpan).
func ntClamp(y, x []float32, lo, hi float32) (s, e int) {
	return ntStream(y, func(s, e int) { clampNT(y[s:e], x[s:e], lo, hi) })
}

// ntArith streams a ∘ b (op is opAdd..opDiv) into the aligned span of y and returns it
// (ntSpan). As for vecArith, a and b are each either as long as y or a single broadcast
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

// copyNT copies x into y over len(y) &^ 15 elements; y must be 64-byte aligned and x at
// least as long as y.
//
//go:noescape
func copyNT(y, x []float32)

// ntCopy streams x into the aligned span of y and returns it (ntSpan).
func ntCopy(y, x []float32) (s, e int) {
	return ntStream(y, func(s, e int) { copyNT(y[s:e], x[s:e]) })
}
