//go:build !(goexperiment.simd && amd64)

package ops

// Without GOEXPERIMENT=simd on amd64 there are no 8-lane kernels (elementwise_vec.go): every
// vecXxx does nothing and the scalar loops do all the work.

func vecExp(y, x []float32) int                            { return 0 }
func vecSigmoid(y, x []float32) int                        { return 0 }
func vecSilu(y, x []float32) int                           { return 0 }
func vecTanh(y, x []float32) int                           { return 0 }
func vecGelu(y, x []float32) int                           { return 0 }
func vecExpSum(y, x []float32, m float32) (int, float64)   { return 0, 0 }
func vecRelu(y, x []float32) int                           { return 0 }
func vecLeakyRelu(y, x []float32, s float32) int           { return 0 }
func vecClamp(y, x []float32, lo, hi float32) int          { return 0 }
func vecArith(op int, y, a, b []float32) int               { return 0 }
func vecScale(y, x, w []float32, s float32) int            { return 0 }
func vecNormalize(y, x, w, b []float32, m, r float32) int  { return 0 }
func vecRope(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int { return 0 }
