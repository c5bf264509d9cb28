//go:build (!amd64 && !arm64) || purego

package f32

// Architectures without vector GEMM kernels (gemm_amd64.s, gemm_arm64.s), and the purego
// build: the caller's pure-Go micro-kernel computes every product.

func GemmTiles() map[int]GemmTile { return nil }
