//go:build arm64 && !purego

package ops

import "github.com/ropgen/ropgen/internal/asm/f32"

// The NEON GEMM micro-kernel of internal/asm/f32/gemm_arm64.s. Advanced SIMD is part of the arm64 baseline,
// so it is the kernel of SIMDNEON on every arm64 CPU. The few-row paths and the packing stay
// the Go loops (gemm_other.go).

// archKernels returns the NEON micro-kernel, 8×12, at SIMDNEON.
func archKernels() map[int]*microKernel {
	return map[int]*microKernel{SIMDNEON: vecKernel("neon", 8, 12, tile8x12)}
}

func tile8x12(kc int, a, b, c []float32, ldc int, load bool) {
	_, _, _ = a[kc*8-1], b[kc*12-1], c[7*ldc+11] // the whole tile and both panels
	f32.GemmMicro8x12(kc, &a[0], &b[0], &c[0], ldc, b2i(load))
}
