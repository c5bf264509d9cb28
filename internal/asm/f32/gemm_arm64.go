//go:build arm64 && !purego

package f32

// The NEON GEMM micro-kernel of gemm_arm64.s, 8×12: ops' Goto loop nest calls it at level
// NEON.

//go:noescape
func GemmMicro8x12(kc int, a, b, c *float32, ldc, load int)
