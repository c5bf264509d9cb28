//go:build amd64

package ops

import "unsafe"

// The streaming kernels of stream_amd64.s: the large-output path of copy, relu, leaky relu,
// clamp and the add, sub, mul and div of same-shape operands or of a row and a scalar
// (see streamMinBytes). They write with non-temporal stores, which skip the
// read-for-ownership an ordinary store pays for each output line, issue their loads and
// stores back to back, which a Go loop does not, and walk 8 (two inputs: 4) pages of their
// range at once, which keeps the hardware prefetcher that many streams ahead. Each step
// loads the line of every page of a group (SSE 2 pages, copy 4; AVX2 4, copy 8) before it
// stores any, which keeps more loads in flight than one line's. The SSE forms are the amd64
// baseline, the kernels of SIMDGo (no CPU feature check); at SIMDAVX2 and above
// (ROPGEN_SIMD, SetSIMD) the AVX2 forms run, element for element the same operations.
//
// Measured on a 2-vCPU Ice Lake-SP VM over 64 MiB (4096² float32), 21 interleaved rounds
// in one process, each round's GB/s against the one-line-at-a-time SSE kernels this
// replaced (and AVX2 against grouped SSE), median [min-max], on one thread and on two:
//
//	          grouped SSE, 1 / 2 threads          AVX2, 1 / 2 threads                 AVX2/SSE
//	copy      1.25 [1.16-1.41]  1.08 [0.93-1.25]  1.30 [1.22-1.36]  1.15 [1.08-1.26]  1.04  1.04
//	relu      1.49 [1.30-1.62]  1.39 [1.22-1.47]  1.69 [1.61-1.85]  1.63 [1.31-1.72]  1.13  1.16
//	add       1.06 [0.93-1.09]  1.01 [0.96-1.18]  1.09 [0.94-1.13]  1.06 [0.98-1.63]  1.04  1.03
//	row * s   1.29 [1.14-1.32]  1.20 [0.80-1.56]  1.41 [1.26-1.58]  1.24 [0.85-1.45]  1.10  1.02
//
// The two-input kernels gain least, as calibrate's triad, which gained nothing from the
// grouping.

// reluNT, leakyReluNT, clampNT, addNT, subNT, mulNT and divNT compute y = f(x) or
// y = a ∘ b over len(y) &^ 15 elements; y must be 64-byte aligned and the inputs at least
// as long as y. The AVX2 forms (suffix AVX2) are the same.
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

// copyNT copies x into y over len(y) &^ 15 elements; y must be 64-byte aligned and x at
// least as long as y.
//
//go:noescape
func copyNT(y, x []float32)

//go:noescape
func copyNTAVX2(y, x []float32)

//go:noescape
func reluNTAVX2(y, x []float32)

//go:noescape
func leakyReluNTAVX2(y, x []float32, s float32)

//go:noescape
func clampNTAVX2(y, x []float32, lo, hi float32)

//go:noescape
func addNTAVX2(y, a, b []float32)

//go:noescape
func subNTAVX2(y, a, b []float32)

//go:noescape
func mulNTAVX2(y, a, b []float32)

//go:noescape
func divNTAVX2(y, a, b []float32)

//go:noescape
func addSNTAVX2(y, a []float32, s float32)

//go:noescape
func subSNTAVX2(y, a []float32, s float32)

//go:noescape
func mulSNTAVX2(y, a []float32, s float32)

//go:noescape
func divSNTAVX2(y, a []float32, s float32)

//go:noescape
func rsubSNTAVX2(y, a []float32, s float32)

//go:noescape
func rdivSNTAVX2(y, a []float32, s float32)

// ntKernels are the streaming kernels of one instruction set. same, right and left are the
// kernels of each operand form, indexed by opAdd..opDiv. A scalar left operand of the
// commutative add and mul takes the right-scalar kernel: the IEEE result is the same
// either way (which NaN comes out of two NaNs depends on operand order, in Go code too).
type ntKernels struct {
	copy, relu  func(y, x []float32)
	leakyRelu   func(y, x []float32, s float32)
	clamp       func(y, x []float32, lo, hi float32)
	same        [opDiv + 1]func(y, a, b []float32)
	right, left [opDiv + 1]func(y, a []float32, s float32)
}

var (
	ntSSE = ntKernels{
		copy: copyNT, relu: reluNT, leakyRelu: leakyReluNT, clamp: clampNT,
		same:  [...]func(y, a, b []float32){opAdd: addNT, opSub: subNT, opMul: mulNT, opDiv: divNT},
		right: [...]func(y, a []float32, s float32){opAdd: addSNT, opSub: subSNT, opMul: mulSNT, opDiv: divSNT},
		left:  [...]func(y, a []float32, s float32){opAdd: addSNT, opSub: rsubSNT, opMul: mulSNT, opDiv: rdivSNT},
	}
	ntAVX2 = ntKernels{
		copy: copyNTAVX2, relu: reluNTAVX2, leakyRelu: leakyReluNTAVX2, clamp: clampNTAVX2,
		same:  [...]func(y, a, b []float32){opAdd: addNTAVX2, opSub: subNTAVX2, opMul: mulNTAVX2, opDiv: divNTAVX2},
		right: [...]func(y, a []float32, s float32){opAdd: addSNTAVX2, opSub: subSNTAVX2, opMul: mulSNTAVX2, opDiv: divSNTAVX2},
		left:  [...]func(y, a []float32, s float32){opAdd: addSNTAVX2, opSub: rsubSNTAVX2, opMul: mulSNTAVX2, opDiv: rdivSNTAVX2},
	}
)

// nt returns the streaming kernels of the SIMD level in use: AVX2 at SIMDAVX2 and above
// (cpuSIMD is at least SIMDAVX2 only where the CPU and the OS have AVX2), SSE at SIMDGo.
func nt() *ntKernels {
	if simdLevel >= SIMDAVX2 {
		return &ntAVX2
	}
	return &ntSSE
}

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
	return ntStream(y, func(s, e int) { nt().relu(y[s:e], x[s:e]) })
}

// ntLeakyRelu streams leaky_relu(x) with slope sl into the aligned span of y and returns
// it (ntSpan).
func ntLeakyRelu(y, x []float32, sl float32) (s, e int) {
	return ntStream(y, func(s, e int) { nt().leakyRelu(y[s:e], x[s:e], sl) })
}

// ntClamp streams min(max(x, lo), hi) into the aligned span of y and returns it (ntSpan).
func ntClamp(y, x []float32, lo, hi float32) (s, e int) {
	return ntStream(y, func(s, e int) { nt().clamp(y[s:e], x[s:e], lo, hi) })
}

// ntArith streams a ∘ b (op is opAdd..opDiv) into the aligned span of y and returns it
// (ntSpan). As for vecArith, a and b are each either as long as y or a single broadcast
// element, but not both single.
func ntArith(op int, y, a, b []float32) (s, e int) {
	s, e = ntSpan(y)
	if e == s { // fewer than 16 elements: a one-element input is as long as y
		return 0, 0
	}
	k := nt()
	switch {
	case len(b) == 1:
		k.right[op](y[s:e], a[s:e], b[0])
	case len(a) == 1:
		k.left[op](y[s:e], b[s:e], a[0])
	default:
		k.same[op](y[s:e], a[s:e], b[s:e])
	}
	return s, e
}

// ntCopy streams x into the aligned span of y and returns it (ntSpan).
func ntCopy(y, x []float32) (s, e int) {
	return ntStream(y, func(s, e int) { nt().copy(y[s:e], x[s:e]) })
}
