//go:build arm64 && !purego

package f32

// The NEON kernels of simd_arm64.s (their conventions and each kernel's operation are in
// its comments): ops' simd_arm64.go wraps them, picking them at level NEON and finishing
// what they leave with its Go element functions. Advanced SIMD is in the arm64 baseline, so
// no feature test guards them.

//go:noescape
func SumNEON(x []float32) (n int, s float64)

//go:noescape
func SumSqNEON(x []float32) (n int, s float64)

//go:noescape
func MaxNEON(x []float32) (n int, m float32, ok bool)

//go:noescape
func AddNEON(y, a, b []float32, mode int) int

//go:noescape
func SubNEON(y, a, b []float32, mode int) int

//go:noescape
func MulNEON(y, a, b []float32, mode int) int

//go:noescape
func DivNEON(y, a, b []float32, mode int) int

//go:noescape
func ReluNEON(y, x []float32) int

//go:noescape
func LeakyReluNEON(y, x []float32, s float32) int

//go:noescape
func ClampNEON(y, x []float32, lo, hi float32) int

//go:noescape
func HardswishNEON(y, x []float32) int

//go:noescape
func ScaleNEON(y, x, w []float32, s float32, hasW int) int

//go:noescape
func ExpNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

//go:noescape
func SigmoidNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

//go:noescape
func SiluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

//go:noescape
func EluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

//go:noescape
func MishNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

//go:noescape
func GeluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

//go:noescape
func SoftplusNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32, l *[12]float32) int

//go:noescape
func GeluErfNEON(y, x []float32, lo, hi, p, q float32, l *[8]float32) int

//go:noescape
func TanhNEON(y, x []float32, c *[13]float32) int

//go:noescape
func ExpSumNEON(y, x []float32, m, lo, hi float32, store int, c *[10]float32) (n int, s float64)

//go:noescape
func NormalizeNEON(y, x, w, b []float32, m, r float32, mode int) int

//go:noescape
func VarRowNEON(x []float32, x0 float64) (n int, s1, s2 float64)

//go:noescape
func SumColsNEON(acc []float64, x []float32) int

//go:noescape
func MaxColsNEON(acc []float64, x []float32) int

//go:noescape
func VarColsNEON(s1, s2, x0 []float64, row []float32) int

//go:noescape
func ExpSumColsNEON(s []float64, sh, row []float32, lo, hi float32, c *[10]float32) int

//go:noescape
func MaxIntoNEON(m, row []float32) int

//go:noescape
func AboveNEON(x []float32, t float32) int

//go:noescape
func Transpose4NEON(y, x *float32, ys, xs, n int)

//go:noescape
func CumsumNEON(y, x []float32, carry float64) float64

//go:noescape
func RopeNEON(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int
