//go:build amd64 && !purego

package stream

import (
	"unsafe"

	"github.com/ropgen/ropgen/internal/simd"
)

// The streaming kernels of stream_amd64.s: the large-output path of the catalog's copy,
// relu, leaky relu, clamp and arithmetic (package ops), and calibration's copy_nt mix (the
// same CopyNT). They write with non-temporal stores, which skip the read-for-ownership an
// ordinary store pays for each output line, issue their loads and stores back to back,
// which a Go loop does not, and walk 8 (two inputs: 4) pages of their range at once, which
// keeps the hardware prefetcher that many streams ahead. The SSE forms are the amd64
// baseline, the kernels of level Go (no CPU feature check); at AVX2 and above (ROPGEN_SIMD,
// SetLevel) the AVX2 forms run, element for element the same operations.
//
// Each XxxNT computes over y, which must be a span of Span (64-byte aligned, a multiple of
// 16 elements long); its inputs must be at least as long as y. It equals xxxGo (stream.go)
// element for element.

// CopyNT computes y = x: copyGo in the SSE (copyNTSSE) or AVX2 (copyNTAVX2) kernel.
func CopyNT(y, x []float32) {
	x = x[:len(y)]
	if simd.Level() >= simd.AVX2 {
		copyNTAVX2(y, x)
	} else {
		copyNTSSE(y, x)
	}
}

//go:noescape
func copyNTSSE(y, x []float32)

//go:noescape
func copyNTAVX2(y, x []float32)

// ReluNT computes y = max(x, 0) (reluGo): reluGo in the SSE (reluNTSSE) or AVX2 (reluNTAVX2) kernel.
func ReluNT(y, x []float32) {
	x = x[:len(y)]
	if simd.Level() >= simd.AVX2 {
		reluNTAVX2(y, x)
	} else {
		reluNTSSE(y, x)
	}
}

//go:noescape
func reluNTSSE(y, x []float32)

//go:noescape
func reluNTAVX2(y, x []float32)

// LeakyReluNT computes y = leaky_relu(x) with slope s (leakyReluGo): leakyReluGo in the SSE (leakyReluNTSSE) or AVX2 (leakyReluNTAVX2) kernel.
func LeakyReluNT(y, x []float32, s float32) {
	x = x[:len(y)]
	if simd.Level() >= simd.AVX2 {
		leakyReluNTAVX2(y, x, s)
	} else {
		leakyReluNTSSE(y, x, s)
	}
}

//go:noescape
func leakyReluNTSSE(y, x []float32, s float32)

//go:noescape
func leakyReluNTAVX2(y, x []float32, s float32)

// ClampNT computes y = min(max(x, lo), hi): clampGo in the SSE (clampNTSSE) or AVX2 (clampNTAVX2) kernel.
func ClampNT(y, x []float32, lo, hi float32) {
	x = x[:len(y)]
	if simd.Level() >= simd.AVX2 {
		clampNTAVX2(y, x, lo, hi)
	} else {
		clampNTSSE(y, x, lo, hi)
	}
}

//go:noescape
func clampNTSSE(y, x []float32, lo, hi float32)

//go:noescape
func clampNTAVX2(y, x []float32, lo, hi float32)

// AddNT computes y = a + b: addGo in the SSE (addNTSSE) or AVX2 (addNTAVX2) kernel.
func AddNT(y, a, b []float32) {
	a = a[:len(y)]
	b = b[:len(y)]
	if simd.Level() >= simd.AVX2 {
		addNTAVX2(y, a, b)
	} else {
		addNTSSE(y, a, b)
	}
}

//go:noescape
func addNTSSE(y, a, b []float32)

//go:noescape
func addNTAVX2(y, a, b []float32)

// SubNT computes y = a - b: subGo in the SSE (subNTSSE) or AVX2 (subNTAVX2) kernel.
func SubNT(y, a, b []float32) {
	a = a[:len(y)]
	b = b[:len(y)]
	if simd.Level() >= simd.AVX2 {
		subNTAVX2(y, a, b)
	} else {
		subNTSSE(y, a, b)
	}
}

//go:noescape
func subNTSSE(y, a, b []float32)

//go:noescape
func subNTAVX2(y, a, b []float32)

// MulNT computes y = a * b: mulGo in the SSE (mulNTSSE) or AVX2 (mulNTAVX2) kernel.
func MulNT(y, a, b []float32) {
	a = a[:len(y)]
	b = b[:len(y)]
	if simd.Level() >= simd.AVX2 {
		mulNTAVX2(y, a, b)
	} else {
		mulNTSSE(y, a, b)
	}
}

//go:noescape
func mulNTSSE(y, a, b []float32)

//go:noescape
func mulNTAVX2(y, a, b []float32)

// DivNT computes y = a / b: divGo in the SSE (divNTSSE) or AVX2 (divNTAVX2) kernel.
func DivNT(y, a, b []float32) {
	a = a[:len(y)]
	b = b[:len(y)]
	if simd.Level() >= simd.AVX2 {
		divNTAVX2(y, a, b)
	} else {
		divNTSSE(y, a, b)
	}
}

//go:noescape
func divNTSSE(y, a, b []float32)

//go:noescape
func divNTAVX2(y, a, b []float32)

// AddSNT computes y = a + s: addSGo in the SSE (addSNTSSE) or AVX2 (addSNTAVX2) kernel.
func AddSNT(y, a []float32, s float32) {
	a = a[:len(y)]
	if simd.Level() >= simd.AVX2 {
		addSNTAVX2(y, a, s)
	} else {
		addSNTSSE(y, a, s)
	}
}

//go:noescape
func addSNTSSE(y, a []float32, s float32)

//go:noescape
func addSNTAVX2(y, a []float32, s float32)

// SubSNT computes y = a - s: subSGo in the SSE (subSNTSSE) or AVX2 (subSNTAVX2) kernel.
func SubSNT(y, a []float32, s float32) {
	a = a[:len(y)]
	if simd.Level() >= simd.AVX2 {
		subSNTAVX2(y, a, s)
	} else {
		subSNTSSE(y, a, s)
	}
}

//go:noescape
func subSNTSSE(y, a []float32, s float32)

//go:noescape
func subSNTAVX2(y, a []float32, s float32)

// MulSNT computes y = a * s: mulSGo in the SSE (mulSNTSSE) or AVX2 (mulSNTAVX2) kernel.
func MulSNT(y, a []float32, s float32) {
	a = a[:len(y)]
	if simd.Level() >= simd.AVX2 {
		mulSNTAVX2(y, a, s)
	} else {
		mulSNTSSE(y, a, s)
	}
}

//go:noescape
func mulSNTSSE(y, a []float32, s float32)

//go:noescape
func mulSNTAVX2(y, a []float32, s float32)

// DivSNT computes y = a / s: divSGo in the SSE (divSNTSSE) or AVX2 (divSNTAVX2) kernel.
func DivSNT(y, a []float32, s float32) {
	a = a[:len(y)]
	if simd.Level() >= simd.AVX2 {
		divSNTAVX2(y, a, s)
	} else {
		divSNTSSE(y, a, s)
	}
}

//go:noescape
func divSNTSSE(y, a []float32, s float32)

//go:noescape
func divSNTAVX2(y, a []float32, s float32)

// RsubSNT computes y = s - a: rsubSGo in the SSE (rsubSNTSSE) or AVX2 (rsubSNTAVX2) kernel.
func RsubSNT(y, a []float32, s float32) {
	a = a[:len(y)]
	if simd.Level() >= simd.AVX2 {
		rsubSNTAVX2(y, a, s)
	} else {
		rsubSNTSSE(y, a, s)
	}
}

//go:noescape
func rsubSNTSSE(y, a []float32, s float32)

//go:noescape
func rsubSNTAVX2(y, a []float32, s float32)

// RdivSNT computes y = s / a: rdivSGo in the SSE (rdivSNTSSE) or AVX2 (rdivSNTAVX2) kernel.
func RdivSNT(y, a []float32, s float32) {
	a = a[:len(y)]
	if simd.Level() >= simd.AVX2 {
		rdivSNTAVX2(y, a, s)
	} else {
		rdivSNTSSE(y, a, s)
	}
}

//go:noescape
func rdivSNTSSE(y, a []float32, s float32)

//go:noescape
func rdivSNTAVX2(y, a []float32, s float32)

// Span returns the part [s, e) of y that the streaming kernels can write: it starts on a
// 64-byte boundary and holds whole cache lines (16 float32). The caller computes y[:s] (at
// most 15 elements) and y[e:] (at most 15) with ordinary stores.
func Span(y []float32) (s, e int) {
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
