//go:build !amd64 || purego

package ops

// The kernels only amd64 has in assembly: elsewhere (arm64 included; its NEON kernels are in
// simd_arm64.go, the rest of the kernels of other architectures in simd_novec.go) every vecXxx
// here does nothing and the Go loop does every element.

func fusedRowsOK(y []float32, n int) bool                                           { return false }
func fusedNormsOK(y []float32, n int) bool                                          { return false }
func vecScaleSumSqOut(y, a, w []float32, s float32, x, pf []float32) (int, float64) { return 0, 0 }
func vecNormVarOut(y, a, w, b []float32, m, r float32, x []float32, x0 float64, pf []float32) (int, float64, float64) {
	return 0, 0, 0
}
func vecExpSumOut(y, a []float32, c float32, e, x []float32, m float32, next []float32) (int, float64) {
	return 0, 0
}

func ntUnary(k int, y, x []float32) (s, e int)       { return 0, 0 }
func ntElu(y, x []float32, alpha float32) (s, e int) { return 0, 0 }

func fence() {}
