//go:build (!amd64 && !arm64) || purego

package ops

// Architectures with neither amd64's nor arm64's kernels: the level is SIMDGo and every
// vecXxx does nothing. This file has the level and the kernels arm64 has in NEON
// (simd_arm64.go), simd_other.go the rest.

func lanes() int { return 0 }

func vecRelu(y, x []float32) int                                                { return 0 }
func vecArith(op int, y, a, b []float32) int                                    { return 0 }
func vecScale(y, x, w, pf []float32, s float32, nt bool) int                    { return 0 }
func vecSum(x []float32) (int, float64)                                         { return 0, 0 }
func vecSumSq(x []float32) (int, float64)                                       { return 0, 0 }
func vecMax(x []float32) (n int, m float32, ok bool)                            { return 0, 0, true }
func vecUnary(k int, y, x []float32) int                                        { return 0 }
func vecExp(y, x []float32) int                                                 { return 0 }
func vecSigmoid(y, x []float32) int                                             { return 0 }
func vecSilu(y, x []float32) int                                                { return 0 }
func vecExpSum(y, x []float32, m float32, next []float32) (int, float64)        { return 0, 0 }
func vecNormalize(y, x, w, b, pf []float32, m, r float32, nt bool) int          { return 0 }
func vecVarRow(x []float32, x0 float64) (int, float64, float64)                 { return 0, 0, 0 }
func vecTanh(y, x []float32) int                                                { return 0 }
func vecGelu(y, x []float32) int                                                { return 0 }
func vecElu(y, x []float32, alpha float32) int                                  { return 0 }
func vecLeakyRelu(y, x []float32, s float32) int                                { return 0 }
func vecClamp(y, x []float32, lo, hi float32) int                               { return 0 }
func vecSumCols(acc []float64, x []float32) int                                 { return 0 }
func vecMaxCols(acc []float64, x []float32) int                                 { return 0 }
func vecMaxInto(m, row []float32) int                                           { return 0 }
func vecExpSumCols(s []float64, sh, row []float32) int                          { return 0 }
func vecVarCols(s1, s2, x0 []float64, row []float32) int                        { return 0 }
func vecAbove(x []float32, t float32) int                                       { return 0 }
func vecTranspose(y, x []float32, ys, xs, i0, i1, j0, j1 int, stream bool) bool { return false }
func vecCumsum(y, x, pf []float32, stream bool) (int, float64)                  { return 0, 0 }
func vecCumsum4(y, x, pf []float32, n int, stream bool) bool                    { return false }
func vecRope(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int                      { return 0 }
