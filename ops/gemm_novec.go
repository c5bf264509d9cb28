//go:build (!amd64 && !arm64) || purego

package ops

// Architectures without vector GEMM kernels (gemm_amd64.s, gemm_arm64.s): the pure-Go
// micro-kernel computes every product.

func archKernels() map[int]*microKernel { return nil }
