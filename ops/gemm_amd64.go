//go:build amd64 && !purego

package ops

import "github.com/ropgen/ropgen/internal/asm/f32"

// The Go side of the GEMM kernels of internal/asm/f32/gemm_amd64.s, chosen at run time from
// the CPU's features: the AVX-512F 12×32 micro-kernel where the CPU has AVX-512, the
// AVX2+FMA 6×16 one where it has AVX2 and FMA, and the gemv kernels (AVX2+FMA) with either.

// hasAVX2FMA and hasAVX512 are the CPU's features, as the SIMD levels read them
// (internal/simd: CPUID and the OS's saved register state).
var (
	hasAVX2FMA = cpuSIMD >= SIMDAVX2
	hasAVX512  = cpuSIMD >= SIMDAVX512
)

// archKernels returns the vector micro-kernels this CPU can run, by SIMD level.
func archKernels() map[int]*microKernel {
	ks := map[int]*microKernel{}
	if hasAVX2FMA {
		ks[SIMDAVX2] = vecKernel("avx2", 6, 16, tile6x16)
	}
	if hasAVX512 {
		ks[SIMDAVX512] = vecKernel("avx512", 12, 32, tile12x32)
	}
	return ks
}

func tile12x32(kc int, a, b, c []float32, ldc int, load bool) {
	_, _, _ = a[kc*12-1], b[kc*32-1], c[11*ldc+31] // the whole tile and both panels
	f32.GemmMicro12x32(kc, &a[0], &b[0], &c[0], ldc, b2i(load))
}

func tile6x16(kc int, a, b, c []float32, ldc int, load bool) {
	_, _, _ = a[kc*6-1], b[kc*16-1], c[5*ldc+15]
	f32.GemmMicro6x16(kc, &a[0], &b[0], &c[0], ldc, b2i(load))
}

// gemvRows computes c[j] = Σ_p x[p]·b[p, j] for j below the returned count (len(c)
// rounded down to 32), p in order as the reference sums, reading each row of b once; b's
// rows are contiguous (b.cs == 1) and c is zero on entry. It returns 0 at SIMDGo (simd.go).
func gemvRows(x []float32, b mat, c []float32) int {
	n, k := len(c)&^31, len(x)
	if simdLevel() < SIMDAVX2 || n == 0 || k == 0 {
		return 0
	}
	_ = b.data[(k-1)*b.rs+n-1] // the last row's last element: every row read is below it
	p := 0
	for ; p+4 <= k; p += 4 {
		f32.GemvAcc4(n, &x[p], &b.data[p*b.rs], b.rs, &c[0])
	}
	for ; p < k; p++ {
		f32.GemvAcc1(n, &x[p], &b.data[p*b.rs], &c[0])
	}
	return n
}

// dotRows computes c[j] = Σ_p x[p]·b[p, j] for j below the returned count (len(c) rounded
// down to 4) where b's columns are contiguous (b.rs == 1: a transposed row-major matrix,
// linear's weight), four columns at a time, reading each once. The first len(x) rounded
// down to 16 terms are summed in 16 partial sums per column, the rest after them in order.
// It returns 0 at SIMDGo (simd.go).
func dotRows(x []float32, b mat, c []float32) int {
	n, k := len(c)&^3, len(x)
	k16 := k &^ 15
	if simdLevel() < SIMDAVX2 || n == 0 || k16 == 0 {
		return 0
	}
	_ = b.data[(n-1)*b.cs+k-1]
	var out [4]float32
	for j := 0; j < n; j += 4 {
		f32.Dot4(k16, &x[0], &b.data[j*b.cs], b.cs, &out[0])
		for r := range 4 {
			s := out[r]
			w := b.data[(j+r)*b.cs : (j+r)*b.cs+k]
			for p := k16; p < k; p++ {
				s += x[p] * w[p]
			}
			c[j+r] = s
		}
	}
	return n
}

// packAFast packs one whole panel of mr contiguous rows of a (a.cs == 1) with the assembly
// loop of that width, reporting false where there is none.
func packAFast(kc, mr int, a mat, panel []float32) bool {
	if kc == 0 || (mr != 12 && mr != 6) {
		return false
	}
	_, _ = a.data[(mr-1)*a.rs+kc-1], panel[mr*kc-1]
	if mr == 12 {
		f32.PackA12(kc, &a.data[0], a.rs, &panel[0])
	} else {
		f32.PackA6(kc, &a.data[0], a.rs, &panel[0])
	}
	return true
}

// packBFast packs one whole panel of nr columns of row-major b (b.cs == 1) with the
// assembly loop of that width, reporting false where there is none.
func packBFast(kc, nr int, b mat, panel []float32) bool {
	if kc == 0 || !hasAVX2FMA || (nr != 32 && nr != 16) {
		return false
	}
	_, _ = b.data[(kc-1)*b.rs+nr-1], panel[nr*kc-1]
	if nr == 32 {
		f32.PackB32(kc, &b.data[0], b.rs, &panel[0])
	} else {
		f32.PackB16(kc, &b.data[0], b.rs, &panel[0])
	}
	return true
}
