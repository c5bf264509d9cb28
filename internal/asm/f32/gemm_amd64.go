//go:build amd64 && !purego

package f32

// The GEMM micro-kernels, gemv and dot kernels and panel packers of gemm_amd64.s (each
// one's operation is in its comment there): ops' Goto loop nest (ops/gemm_kernel.go) calls
// them at levels AVX2 (6×16, gemv, dot, packing) and AVX512 (12×32).

//go:noescape
func GemmMicro12x32(kc int, a, b, c *float32, ldc, load int)

//go:noescape
func GemmMicro6x16(kc int, a, b, c *float32, ldc, load int)

//go:noescape
func GemvAcc4(n int, x, b *float32, ldb int, c *float32)

//go:noescape
func GemvAcc1(n int, x, b, c *float32)

//go:noescape
func Dot4(k int, x, w *float32, ldw int, out *float32)

//go:noescape
func PackA12(kc int, a *float32, lda int, dst *float32)

//go:noescape
func PackA6(kc int, a *float32, lda int, dst *float32)

//go:noescape
func PackB32(kc int, b *float32, ldb int, dst *float32)

//go:noescape
func PackB16(kc int, b *float32, ldb int, dst *float32)
