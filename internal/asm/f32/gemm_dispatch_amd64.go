//go:build amd64 && !purego

package f32

import "github.com/ropgen/ropgen/internal/simd"

// The Go side of the GEMM kernels of gemm_amd64.s, chosen at run time from the CPU's
// features: the AVX-512F 12×32 micro-kernel where the CPU has AVX-512, the AVX2+FMA 6×16 one
// where it has AVX2 and FMA, and the gemv kernels (AVX2+FMA) with either.

// hasAVX2FMA and hasAVX512 are the CPU's features, as the SIMD levels read them
// (internal/simd: CPUID and the OS's saved register state).
var (
	hasAVX2FMA = simd.Best() >= simd.AVX2
	hasAVX512  = simd.Best() >= simd.AVX512
)

// GemmTiles returns the vector micro-kernels this CPU can run, by SIMD level.
func GemmTiles() map[int]GemmTile {
	ks := map[int]GemmTile{}
	if hasAVX2FMA {
		ks[simd.AVX2] = GemmTile{"avx2", 6, 16, tile6x16, tile6x16Rows}
	}
	if hasAVX512 {
		ks[simd.AVX512] = GemmTile{"avx512", 12, 32, tile12x32, tile12x32Rows}
	}
	return ks
}

func tile12x32(kc int, a, b, c []float32, ldc int, load bool) {
	_, _, _ = a[kc*12-1], b[kc*32-1], c[11*ldc+31] // the whole tile and both panels
	GemmMicro12x32(kc, &a[0], &b[0], &c[0], ldc, b2i(load))
}

func tile12x32Rows(kc int, a []float32, lda int, b, c []float32, ldc int, load bool) {
	_, _, _ = a[11*lda+kc-1], b[kc*32-1], c[11*ldc+31] // the last row's last step, both tiles
	GemmMicro12x32Rows(kc, &a[0], lda, &b[0], &c[0], ldc, b2i(load))
}

func tile6x16Rows(kc int, a []float32, lda int, b, c []float32, ldc int, load bool) {
	_, _, _ = a[5*lda+kc-1], b[kc*16-1], c[5*ldc+15]
	GemmMicro6x16Rows(kc, &a[0], lda, &b[0], &c[0], ldc, b2i(load))
}

func tile6x16(kc int, a, b, c []float32, ldc int, load bool) {
	_, _, _ = a[kc*6-1], b[kc*16-1], c[5*ldc+15]
	GemmMicro6x16(kc, &a[0], &b[0], &c[0], ldc, b2i(load))
}

// GemvRows computes c[j] = Σ_p x[p]·b[p, j] for j below the returned count (len(c)
// rounded down to 32), p in order as the reference sums, reading each row of b once;
// b[p, j] is b[p*rs + j] (rows rs apart, each contiguous) and c is zero on entry. It
// returns 0 at simd.Go.
func GemvRows(x, b []float32, rs int, c []float32) int {
	n, k := len(c)&^31, len(x)
	if simd.Level() < simd.AVX2 || n == 0 || k == 0 {
		return 0
	}
	_ = b[(k-1)*rs+n-1] // the last row's last element: every row read is below it
	p := 0
	for ; p+4 <= k; p += 4 {
		GemvAcc4(n, &x[p], &b[p*rs], rs, &c[0])
	}
	for ; p < k; p++ {
		GemvAcc1(n, &x[p], &b[p*rs], &c[0])
	}
	return n
}

// DotRows computes c[j] = Σ_p x[p]·b[p, j] for j below the returned count (len(c) rounded
// down to 4) where b[p, j] is b[j*cs + p] (columns cs apart, each contiguous: a transposed
// row-major matrix, linear's weight), four columns at a time, reading each once. The first len(x) rounded
// down to 16 terms are summed in 16 partial sums per column, the rest after them in order.
// It returns 0 at simd.Go.
func DotRows(x, b []float32, cs int, c []float32) int {
	n, k := len(c)&^3, len(x)
	k16 := k &^ 15
	if simd.Level() < simd.AVX2 || n == 0 || k16 == 0 {
		return 0
	}
	_ = b[(n-1)*cs+k-1]
	var out [4]float32
	for j := 0; j < n; j += 4 {
		Dot4(k16, &x[0], &b[j*cs], cs, &out[0])
		for r := range 4 {
			s := out[r]
			w := b[(j+r)*cs : (j+r)*cs+k]
			for p := k16; p < k; p++ {
				s += x[p] * w[p]
			}
			c[j+r] = s
		}
	}
	return n
}

// PackA packs one whole panel of mr contiguous rows of a, rs apart, with the assembly
// loop of that width, reporting false where there is none.
func PackA(kc, mr int, a []float32, rs int, panel []float32) bool {
	if kc == 0 || (mr != 12 && mr != 6) {
		return false
	}
	_, _ = a[(mr-1)*rs+kc-1], panel[mr*kc-1]
	if mr == 12 {
		PackA12(kc, &a[0], rs, &panel[0])
	} else {
		PackA6(kc, &a[0], rs, &panel[0])
	}
	return true
}

// PackB packs one whole panel of nr columns of row-major b, rows rs apart, with the
// assembly loop of that width, reporting false where there is none.
func PackB(kc, nr int, b []float32, rs int, panel []float32) bool {
	if kc == 0 || !hasAVX2FMA || (nr != 32 && nr != 16) {
		return false
	}
	_, _ = b[(kc-1)*rs+nr-1], panel[nr*kc-1]
	if nr == 32 {
		PackB32(kc, &b[0], rs, &panel[0])
	} else {
		PackB16(kc, &b[0], rs, &panel[0])
	}
	return true
}
