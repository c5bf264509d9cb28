//go:build !(goexperiment.simd && amd64)

package ops

// Without GOEXPERIMENT=simd on amd64 there are no 8-lane reductions (reduce_vec.go).

func vecSum(x []float32) (int, float64)              { return 0, 0 }
func vecSumSq(x []float32, m float64) (int, float64) { return 0, 0 }
func vecMax(x []float32) (n int, m float32, ok bool) { return 0, 0, true }
func vecSumCols(acc []float64, x []float32) int      { return 0 }
func vecMaxCols(acc []float64, x []float32) int      { return 0 }
