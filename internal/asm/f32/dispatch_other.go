//go:build !amd64 || purego

package f32

// The entry points only amd64 has kernels for: elsewhere (arm64 included; its NEON kernels
// are in dispatch_arm64.go, the other architectures' stubs in dispatch_novec.go) each does
// nothing and the caller's Go loop does every element.

func FusedRowsOK(y []float32, n int) bool                                        { return false }
func FusedNormsOK(y []float32, n int) bool                                       { return false }
func ScaleSumSqOut(y, a, w []float32, s float32, x, pf []float32) (int, float64) { return 0, 0 }
func NormVarOut(y, a, w, b []float32, m, r float32, x []float32, x0 float64, pf []float32) (int, float64, float64) {
	return 0, 0, 0
}
func ExpSumOut(y, a []float32, c float32, e, x []float32, m float32, next []float32, exp func(float32) float32) (int, float64) {
	return 0, 0
}

func UnaryNT(k int, y, x []float32, f func(float32) float32) (s, e int)                  { return 0, 0 }
func EluNT(y, x []float32, alpha float32, elu func(x, alpha float32) float32) (s, e int) { return 0, 0 }

func Fence() {}

// RawUnary and RawExpSum are nil: the NEON kernels take their range as arguments, and other
// architectures have none.
func RawUnary(k int) func(y, x []float32, nt int) int { return nil }
func RawExpSum() func(y, x []float32, m float32, store int, next *float32) (int, float64) {
	return nil
}
