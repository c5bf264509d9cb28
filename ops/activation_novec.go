//go:build !(goexperiment.simd && amd64)

package ops

// Without GOEXPERIMENT=simd on amd64 there are no 8-lane activation, logsumexp and
// variance kernels (activation_vec.go): every vecXxx does nothing and the scalar loops do
// all the work.

func vecGeluErf(y, x []float32) int                             { return 0 }
func vecSoftplus(y, x []float32) int                            { return 0 }
func vecMish(y, x []float32) int                                { return 0 }
func vecElu(y, x []float32, alpha float32) int                  { return 0 }
func vecHardswish(y, x []float32) int                           { return 0 }
func vecMaxInto(m, row []float32) int                           { return 0 }
func vecExpSumCols(s []float64, sh, row []float32) int          { return 0 }
func vecVarCols(s1, s2, x0 []float64, row []float32) int        { return 0 }
func vecVarRow(x []float32, x0 float64) (int, float64, float64) { return 0, 0, 0 }
