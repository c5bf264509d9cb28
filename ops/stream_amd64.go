//go:build amd64

package ops

import "unsafe"

// The streaming kernels of stream_amd64.s: the large-output path of relu and of the
// same-shape add, sub and mul (see streamMinBytes). They write with non-temporal stores,
// which skip the read-for-ownership an ordinary store pays for each output line, and
// issue a line's loads and stores back to back, which a Go loop does not: on the
// reference host they move 0.7-0.9 of a copy's GB/s where the Go loops move about half.
// They are SSE only, the amd64 baseline, so they need no CPU feature check and serve both
// the scalar and the GOEXPERIMENT=simd build.

// reluNT, addNT, subNT and mulNT compute y = f(x) or y = a ∘ b over len(y) &^ 15
// elements; y must be 64-byte aligned and the inputs at least as long as y.
//
//go:noescape
func reluNT(y, x []float32)

//go:noescape
func addNT(y, a, b []float32)

//go:noescape
func subNT(y, a, b []float32)

//go:noescape
func mulNT(y, a, b []float32)

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

// ntRelu streams relu(x) into the aligned span of y and returns it (ntSpan).
func ntRelu(y, x []float32) (s, e int) {
	s, e = ntSpan(y)
	if e > s {
		reluNT(y[s:e], x[s:e])
	}
	return s, e
}

// ntArith streams a ∘ b (op is opAdd, opSub or opMul; a and b as long as y) into the
// aligned span of y and returns it (ntSpan).
func ntArith(op int, y, a, b []float32) (s, e int) {
	s, e = ntSpan(y)
	if e == s {
		return 0, 0
	}
	y, a, b = y[s:e], a[s:e], b[s:e]
	switch op {
	case opAdd:
		addNT(y, a, b)
	case opSub:
		subNT(y, a, b)
	default:
		mulNT(y, a, b)
	}
	return s, e
}
