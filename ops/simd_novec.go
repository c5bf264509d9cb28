//go:build !amd64 && !arm64

package ops

// Architectures without vector kernels: the Go loops run everywhere (simd_other.go has the
// kernels that do nothing, these are the ones arm64 has in NEON).

const cpuSIMD = SIMDGo

func lanes() int { return 0 }

func cumsumAVX2(y, x, pf []float32, carry float64, nt int) float64 { return carry }
