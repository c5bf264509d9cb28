//go:build (!amd64 && !arm64) || purego

package f32

// Architectures with neither amd64's nor arm64's kernels, and the purego build: the level is
// simd.Go and every entry point does nothing, so the caller's Go loop does every element.
// This file has the entry points arm64 has in NEON (dispatch_arm64.go), dispatch_other.go
// the rest.

func Lanes() int { return 0 }

func Relu(y, x []float32) int                                  { return 0 }
func Arith(op int, y, a, b []float32) int                      { return 0 }
func Scale(y, x, w, pf []float32, s float32, nt bool) int      { return 0 }
func Sum(x []float32) (int, float64)                           { return 0, 0 }
func SumSq(x []float32) (int, float64)                         { return 0, 0 }
func Max(x []float32) (n int, m float32, ok bool)              { return 0, 0, true }
func Unary(k int, y, x []float32, f func(float32) float32) int { return 0 }
func ExpSum(y, x []float32, m float32, next []float32, exp func(float32) float32) (int, float64) {
	return 0, 0
}
func Normalize(y, x, w, b, pf []float32, m, r float32, nt bool) int             { return 0 }
func VarRow(x []float32, x0 float64) (int, float64, float64)                    { return 0, 0, 0 }
func Elu(y, x []float32, alpha float32, elu func(x, alpha float32) float32) int { return 0 }
func LeakyRelu(y, x []float32, s float32) int                                   { return 0 }
func Clamp(y, x []float32, lo, hi float32) int                                  { return 0 }
func SumCols(acc []float64, x []float32) int                                    { return 0 }
func MaxCols(acc []float64, x []float32) int                                    { return 0 }
func MaxInto(m, row []float32) int                                              { return 0 }
func ExpSumCols(s []float64, sh, row []float32, exp func(float32) float32) int  { return 0 }
func VarCols(s1, s2, x0 []float64, row []float32) int                           { return 0 }
func Above(x []float32, t float32) int                                          { return 0 }
func Transpose(y, x []float32, ys, xs, i0, i1, j0, j1 int, stream bool, transposeTile func(y, x []float32, ys, xs, i0, i1, j0, j1 int)) bool {
	return false
}
func Cumsum(y, x, pf []float32, stream bool) (int, float64) { return 0, 0 }
func Cumsum4(y, x, pf []float32, n int, stream bool) bool   { return false }
func Rope(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int     { return 0 }
