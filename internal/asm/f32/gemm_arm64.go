//go:build arm64 && !purego

package f32

// The NEON GEMM micro-kernel of gemm_arm64.s, 8×12: ops' Goto loop nest calls it at level
// NEON.

// GemmMicro8x12 computes one 8×12 tile of c = a·b over kc steps of k from packed panels: a
// holds, for each p, the 8 values a[i, p] of the tile's rows, b the 12 values b[p, j] of
// its columns; the accumulators start from c's tile when load != 0 and from zero
// otherwise, one fused multiply-add per element and step, p = 0, 1, ..., kc-1 in order. c
// is row-major, ldc float32 between rows (gemm_arm64.s's micro-kernel header).
//
//go:noescape
func GemmMicro8x12(kc int, a, b, c *float32, ldc, load int)
