//go:build !amd64

package ops

// Other architectures have no vector GEMM kernels yet (gemm_amd64.s): the pure-Go
// micro-kernel and few-row loops compute every product.

func archKernels() map[int]*microKernel { return nil }

func gemvRows(x []float32, b mat, c []float32) int { return 0 }

func dotRows(x []float32, b mat, c []float32) int { return 0 }

func packAFast(kc, mr int, a mat, panel []float32) bool { return false }

func packBFast(kc, nr int, b mat, panel []float32) bool { return false }
