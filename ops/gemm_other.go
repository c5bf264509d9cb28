//go:build !amd64 || purego

package ops

// The few-row and packing kernels only amd64 has in assembly (gemm_amd64.s): elsewhere the
// Go loops of gemmSmall, packA and packB do that work (arm64's micro-kernel is in
// gemm_arm64.go, the other architectures' in gemm_novec.go).

func gemvRows(x []float32, b mat, c []float32) int { return 0 }

func dotRows(x []float32, b mat, c []float32) int { return 0 }

func packAFast(kc, mr int, a mat, panel []float32) bool { return false }

func packBFast(kc, nr int, b mat, panel []float32) bool { return false }
