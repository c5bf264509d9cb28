//go:build arm64

package ops

// The Go side of the NEON kernels (simd_arm64.s). Advanced SIMD is part of the arm64
// baseline: every arm64 CPU runs SIMDNEON, no feature test needed. The kernels arm64 has no
// NEON version of do nothing there (simd_other.go), and the Go loops do their elements.

const cpuSIMD = SIMDNEON

// lanes returns the vector width of the level in use (4 float32 at SIMDNEON), 0 for SIMDGo.
func lanes() int {
	if simdLevel >= SIMDNEON {
		return 4
	}
	return 0
}

// cumsumAVX2 is the vector steps' running sum, which cumsumRow calls at every vector level:
// arm64 has no vector version, so it is the Go loop's, in its order.
func cumsumAVX2(y, x, pf []float32, carry float64, nt int) float64 {
	y = y[:len(x)]
	for i, v := range x {
		carry += float64(v)
		y[i] = float32(carry)
	}
	return carry
}
