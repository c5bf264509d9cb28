//go:build amd64 && !purego

package stream

import "github.com/ropgen/ropgen/internal/simd"

// Calibration's memory mixes besides the streaming copy (perf/calibrate; CopyNT is its
// copy_nt): each runs its AVX2 or AVX-512 kernel of stream_amd64.s over the whole
// iterations of its slices and the Go loop over the rest, and is the Go loop alone on a CPU
// below the kernel's level (Best). The XxxNT ones take a span of Span, as CopyNT does.

// CopyAVX2 copies x into y with ymm loads and stores: copyGo.
func CopyAVX2(y, x []float32) {
	x = x[:len(y)]
	n := 0
	if simd.Best() >= simd.AVX2 {
		n = len(y) &^ 31
		copyAVX2(y[:n], x[:n])
	}
	copyGo(y[n:], x[n:])
}

// CopyAVX512 copies x into y with zmm loads and stores: copyGo.
func CopyAVX512(y, x []float32) {
	x = x[:len(y)]
	n := 0
	if simd.Best() >= simd.AVX512 {
		n = len(y) &^ 63
		copyAVX512(y[:n], x[:n])
	}
	copyGo(y[n:], x[n:])
}

// TriadAVX2 computes a = b + s*c with ymm FMA: TriadGo.
func TriadAVX2(a, b, c []float32, s float32) {
	b, c = b[:len(a)], c[:len(a)]
	n := 0
	if simd.Best() >= simd.AVX2 {
		n = len(a) &^ 31
		triadAVX2(a[:n], b[:n], c[:n], s)
	}
	TriadGo(a[n:], b[n:], c[n:], s)
}

// TriadNTAVX2 computes a = b + s*c with ymm FMA and non-temporal stores, 4 pages at once
// as the two-input streaming kernels walk them: TriadGo. a is a span of Span.
func TriadNTAVX2(a, b, c []float32, s float32) {
	b, c = b[:len(a)], c[:len(a)]
	if simd.Best() >= simd.AVX2 {
		triadNTAVX2(a, b, c, s)
		return
	}
	TriadGo(a, b, c, s)
}

// ReadAVX2 returns the sum of x, in eight ymm sums: SumGo.
func ReadAVX2(x []float32) float32 {
	n, s := 0, float32(0)
	if simd.Best() >= simd.AVX2 {
		n = len(x) &^ 63
		s = readAVX2(x[:n])
	}
	return s + SumGo(x[n:])
}

// ReadAVX512 returns the sum of x, in eight zmm sums: SumGo.
func ReadAVX512(x []float32) float32 {
	n, s := 0, float32(0)
	if simd.Best() >= simd.AVX512 {
		n = len(x) &^ 127
		s = readAVX512(x[:n])
	}
	return s + SumGo(x[n:])
}

// FillAVX2 sets every element of y to s with ymm stores: FillGo.
func FillAVX2(y []float32, s float32) {
	n := 0
	if simd.Best() >= simd.AVX2 {
		n = len(y) &^ 31
		fillAVX2(y[:n], s)
	}
	FillGo(y[n:], s)
}

// FillNTAVX2 sets every element of y to s with non-temporal stores, in order: FillGo. y is
// a span of Span.
func FillNTAVX2(y []float32, s float32) {
	if simd.Best() >= simd.AVX2 {
		fillNTAVX2(y, s)
		return
	}
	FillGo(y, s)
}

//go:noescape
func copyAVX2(y, x []float32)

//go:noescape
func copyAVX512(y, x []float32)

//go:noescape
func triadAVX2(a, b, c []float32, s float32)

//go:noescape
func triadNTAVX2(a, b, c []float32, s float32)

//go:noescape
func readAVX2(x []float32) float32

//go:noescape
func readAVX512(x []float32) float32

//go:noescape
func fillAVX2(y []float32, s float32)

//go:noescape
func fillNTAVX2(y []float32, s float32)
