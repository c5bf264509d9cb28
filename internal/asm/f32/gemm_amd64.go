//go:build amd64 && !purego

package f32

// The GEMM micro-kernels, gemv and dot kernels and panel packers of gemm_amd64.s (each
// one's operation is in its comment there): ops' Goto loop nest (ops/gemm_kernel.go) calls
// them at levels AVX2 (6×16, gemv, dot, packing) and AVX512 (12×32).

// GemmMicro12x32 computes one 12×32 tile of c = a·b over kc steps of k from packed panels:
// a holds, for each p, the 12 values a[i, p] of the tile's rows, b the 32 values b[p, j]
// of its columns; the accumulators start from c's tile when load != 0 and from zero
// otherwise, one fused multiply-add per element and step, p = 0, 1, ..., kc-1 in order. c
// is row-major, ldc float32 between rows (gemm_amd64.s's micro-kernel header).
//
//go:noescape
func GemmMicro12x32(kc int, a, b, c *float32, ldc, load int)

// GemmMicro12x32Rows is GemmMicro12x32 with a's 12 rows read in place, lda float32 apart:
// step p reads a[i*lda + p] of row i (gemm_amd64.s).
//
//go:noescape
func GemmMicro12x32Rows(kc int, a *float32, lda int, b, c *float32, ldc, load int)

// GemmMicro6x16 computes one 6×16 tile of c = a·b over kc steps of k from packed panels: a
// holds, for each p, the 6 values a[i, p] of the tile's rows, b the 16 values b[p, j] of
// its columns; the accumulators start from c's tile when load != 0 and from zero
// otherwise, one fused multiply-add per element and step, p = 0, 1, ..., kc-1 in order. c
// is row-major, ldc float32 between rows (gemm_amd64.s's micro-kernel header).
//
//go:noescape
func GemmMicro6x16(kc int, a, b, c *float32, ldc, load int)

// GemmMicro6x16Rows is GemmMicro6x16 with a's 6 rows read in place, lda float32 apart
// (gemm_amd64.s).
//
//go:noescape
func GemmMicro6x16Rows(kc int, a *float32, lda int, b, c *float32, ldc, load int)

// GemvAcc4: c[j] = fma(x3, b3[j], fma(x2, b2[j], fma(x1, b1[j], fma(x0, b0[j], c[j]))))
// for j < n, where b_r is the row b + r·ldb: four steps of the running sum, in order. n is
// a multiple of 32 (Go does the tail). (gemm_amd64.s)
//
//go:noescape
func GemvAcc4(n int, x, b *float32, ldb int, c *float32)

// GemvAcc1: c[j] = fma(x, b[j], c[j]) for j < n, n a multiple of 32: one step of the
// running sum. (gemm_amd64.s)
//
//go:noescape
func GemvAcc1(n int, x, b, c *float32)

// Dot4: out[r] = Σ_p x[p]·w[r·ldw + p] for r < 4 and p < k, k a multiple of 16: the
// product of a row vector with four rows of a transposed matrix (linear's weight), reading
// each row once. Each row keeps 16 partial sums (two ymm) that are added pairwise at the
// end. (gemm_amd64.s)
//
//go:noescape
func Dot4(k int, x, w *float32, ldw int, out *float32)

// PackA12: dst[12p + i] = a[i·lda + p] for i < 12, p < kc: twelve rows of a interleaved,
// the order the 12×32 micro-kernel broadcasts them. Rows are addressed from three bases
// (rows 0, 3, 6) with index lda or 3·lda. (gemm_amd64.s)
//
//go:noescape
func PackA12(kc int, a *float32, lda int, dst *float32)

// PackA6: dst[6p + i] = a[i·lda + p] for i < 6, p < kc (the 6×16 micro-kernel's order).
// (gemm_amd64.s)
//
//go:noescape
func PackA6(kc int, a *float32, lda int, dst *float32)

// PackB32: dst[32p + j] = b[p·ldb + j] for j < 32, p < kc: a column panel of row-major b
// (AVX). (gemm_amd64.s)
//
//go:noescape
func PackB32(kc int, b *float32, ldb int, dst *float32)

// PackB16: dst[16p + j] = b[p·ldb + j] for j < 16, p < kc (AVX). (gemm_amd64.s)
//
//go:noescape
func PackB16(kc int, b *float32, ldb int, dst *float32)
