//go:build arm64 && !purego

package f32

import "github.com/ropgen/ropgen/internal/simd"

// The NEON GEMM micro-kernel of gemm_arm64.s. Advanced SIMD is part of the arm64 baseline,
// so it is the kernel of simd.NEON on every arm64 CPU. The few-row paths and the packing stay
// the Go loops (gemm_dispatch_other.go).

// GemmTiles returns the NEON micro-kernel, 8×12, at simd.NEON.
func GemmTiles() map[int]GemmTile {
	return map[int]GemmTile{simd.NEON: {"neon", 8, 12, tile8x12, nil}}
}

func tile8x12(kc int, a, b, c []float32, ldc int, load bool) {
	_, _, _ = a[kc*8-1], b[kc*12-1], c[7*ldc+11] // the whole tile and both panels
	GemmMicro8x12(kc, &a[0], &b[0], &c[0], ldc, b2i(load))
}
