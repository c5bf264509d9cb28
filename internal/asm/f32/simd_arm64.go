//go:build arm64 && !purego

package f32

// The NEON kernels of simd_arm64.s (their conventions and each kernel's operation are in
// its comments): ops' simd_arm64.go wraps them, picking them at level NEON and finishing
// what they leave with its Go element functions. Advanced SIMD is in the arm64 baseline, so
// no feature test guards them.

// SumNEON returns how many elements of x it summed (its full vectors) and their sum in
// float64: each vector widened to two float64 pairs and added into four pairs of partial
// sums (simd_arm64.s, "Row sums").
//
//go:noescape
func SumNEON(x []float32) (n int, s float64)

// SumSqNEON returns how many elements of x it did (its full vectors) and the sum of x² in
// float64, x² exact in float64 and fused into the partial sums (simd_arm64.s, "Row sums").
//
//go:noescape
func SumSqNEON(x []float32) (n int, s float64)

// MaxNEON: the max of the full vectors of x (at least one) with FMAX, which keeps a NaN
// and takes +0 over -0 as Go's max does; ok is false when the max is NaN (x held one).
// (simd_arm64.s)
//
//go:noescape
func MaxNEON(x []float32) (n int, m float32, ok bool)

// AddNEON computes y = a + b over the full vectors of y (mode 1: a is one element, 2: b
// is) and returns how many elements it did (simd_arm64.s, "Elementwise").
//
//go:noescape
func AddNEON(y, a, b []float32, mode int) int

// SubNEON computes y = a - b over the full vectors of y (mode 1: a is one element, 2: b
// is) and returns how many elements it did (simd_arm64.s, "Elementwise").
//
//go:noescape
func SubNEON(y, a, b []float32, mode int) int

// MulNEON computes y = a * b over the full vectors of y (mode 1: a is one element, 2: b
// is) and returns how many elements it did (simd_arm64.s, "Elementwise").
//
//go:noescape
func MulNEON(y, a, b []float32, mode int) int

// DivNEON computes y = a / b over the full vectors of y (mode 1: a is one element, 2: b
// is) and returns how many elements it did (simd_arm64.s, "Elementwise").
//
//go:noescape
func DivNEON(y, a, b []float32, mode int) int

// ReluNEON: y = max(x, 0) over the full vectors of x with FMAX: NaN kept, -0 to +0, as
// Go's max. (simd_arm64.s)
//
//go:noescape
func ReluNEON(y, x []float32) int

// LeakyReluNEON: y = x * f, f = s where x's sign bit is set (NaN and -0 included) and 1
// elsewhere, over the full vectors of x: the Go loop's x * factor[sign bit], x the first
// operand of the multiply as there (which NaN a two-NaN product keeps). (simd_arm64.s)
//
//go:noescape
func LeakyReluNEON(y, x []float32, s float32) int

// ClampNEON: y = min(max(x, lo), hi) over the full vectors of x: FMAX then FMIN with the
// Go builtins' operands in Go's order (FMAXS and FMINS on arm64), so NaN, the NaN kept of
// two and the signed zeros are Go's, bit for bit. (simd_arm64.s)
//
//go:noescape
func ClampNEON(y, x []float32, lo, hi float32) int

// HardswishNEON: y = x * min(max(x + 3, 0), 6) / 6 over the full vectors of x, hardswish's
// operations in its order and with its operands as Go compiles it on arm64 (FADDS, FMAXS,
// FMINS, FMULS with x first, FDIVS): bit for bit, NaN and infinities included.
// (simd_arm64.s)
//
//go:noescape
func HardswishNEON(y, x []float32) int

// ScaleNEON: y = x * s, and y = (x * s) * w when hasW != 0, over the full vectors of x:
// the Go loop's order of operations. (simd_arm64.s)
//
//go:noescape
func ScaleNEON(y, x, w []float32, s float32, hasW int) int

// ExpNEON computes y = exp(x) over the full vectors of x until the first vector with a
// lane outside (lo, hi) (NaN included), and returns how many elements it did; p and q are
// unused (simd_arm64.s, "exp and the activations built on it").
//
//go:noescape
func ExpNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

// SigmoidNEON computes y = sigmoid(x) as ExpNEON does exp (simd_arm64.s, "exp and the
// activations built on it").
//
//go:noescape
func SigmoidNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

// SiluNEON computes y = silu(x) as ExpNEON does exp (simd_arm64.s, "exp and the
// activations built on it").
//
//go:noescape
func SiluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

// EluNEON: y = elu(x) with alpha = p; q = 0. (simd_arm64.s)
//
//go:noescape
func EluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

// MishNEON: y = mish(x); p = 20, q = 2. (simd_arm64.s)
//
//go:noescape
func MishNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

// GeluNEON: y = gelu(x), tanh form; p = -2c1, q = -2c0. (simd_arm64.s)
//
//go:noescape
func GeluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int

// SoftplusNEON: y = softplus(x); p = 20, q = 0.5, l the log constants (neonLogConsts).
// (simd_arm64.s)
//
//go:noescape
func SoftplusNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32, l *[12]float32) int

// GeluErfNEON: y = geluErf(x) = 0.5*x * erf1p(z), z = x*p (p = sqrt(1/2), q = 0.5), over
// the full vectors of x until the first vector with a lane whose z is outside (lo, hi) =
// (-1, 1) (NaN included): erf1p's branch there is erfc's, which the Go function does.
// Inside, erf1p's odd polynomial as Go compiles it on arm64: s = z², Horner's steps from
// c6 (each an FMLA into a copy of the coefficient, the subtracted ones stored negated, as
// Go's FNMSUBS rounds), then 1 + z*p fused. l holds c6, -c5, c4, -c3, c2, -c1, c0 and 1
// (neonErfConsts), in V16-V23. (simd_arm64.s)
//
//go:noescape
func GeluErfNEON(y, x []float32, lo, hi, p, q float32, l *[8]float32) int

// TanhNEON: y = tanh(x) over the full vectors of x: every lane (no range stop).
// (simd_arm64.s)
//
//go:noescape
func TanhNEON(y, x []float32, c *[13]float32) int

// ExpSumNEON: e = exp(x - m) into y when store != 0 (else y is never written), each
// vector's four e widened to float64 and added into two pairs of partial sums (V30, V31):
// s is their sum. (simd_arm64.s)
//
//go:noescape
func ExpSumNEON(y, x []float32, m, lo, hi float32, store int, c *[10]float32) (n int, s float64)

// NormalizeNEON: y = (x - m) * r, times w (mode&1), plus b (mode&2), over the full vectors
// of x, in normalizeRow's order of operations as Go compiles it on arm64: the add of b
// fused with the multiply before it (FMLA; FMADD in the Go loop), so (x - m)*r*w + b
// rounds once after (x - m)*r, and (x - m)*r + b once after x - m. (simd_arm64.s)
//
//go:noescape
func NormalizeNEON(y, x, w, b []float32, m, r float32, mode int) int

// VarRowNEON: the shifted sums Σ(x - x0) and Σ(x - x0)² of the full vectors of x, in
// float64. (simd_arm64.s)
//
//go:noescape
func VarRowNEON(x []float32, x0 float64) (n int, s1, s2 float64)

// SumColsNEON: acc[i] += float64(x[i]) over the full vectors of x. (simd_arm64.s)
//
//go:noescape
func SumColsNEON(acc []float64, x []float32) int

// MaxColsNEON: acc[i] = max(acc[i], float64(x[i])) over the full vectors of x.
// (simd_arm64.s)
//
//go:noescape
func MaxColsNEON(acc []float64, x []float32) int

// VarColsNEON: d = float64(row[i]) - x0[i], s1[i] += d and s2[i] += d*d (one FMLA, as Go
// fuses the Go loop's d*d + s2 on arm64; its add d + s1 with d first) over the full
// vectors of row. (simd_arm64.s)
//
//go:noescape
func VarColsNEON(s1, s2, x0 []float64, row []float32) int

// ExpSumColsNEON: s[i] += float64(exp(row[i] - sh[i])) over the full vectors of row until
// the first vector whose d = row - sh has a lane outside (lo, hi) (NaN included), where it
// stops, as UNARY; e**d by EXP, widened (exact) and added with s first as in the Go loop.
// (simd_arm64.s)
//
//go:noescape
func ExpSumColsNEON(s []float64, sh, row []float32, lo, hi float32, c *[10]float32) int

// MaxIntoNEON: m[i] = max(m[i], row[i]) over the full vectors of row, m the first operand
// of FMAX as of Go's FMAXS. (simd_arm64.s)
//
//go:noescape
func MaxIntoNEON(m, row []float32) int

// AboveNEON: the offset of the first full vector of x with a lane above t or NaN (not x <=
// t: FCMGE t >= x is all ones in a lane that is neither, -0 and +0 equal as in Go's
// compare), or the full-vector length when none has. (simd_arm64.s)
//
//go:noescape
func AboveNEON(x []float32, t float32) int

// Transpose4NEON: y[j*ys + i] = x[i*xs + j] for the 4 rows i of x from x and its first n
// columns (n a multiple of 4, at least 4), ys and xs in elements: each 4x4 tile (4 vectors
// of x, one per row) transposed in registers (TRN1/TRN2 of the lanes, then of the lane
// pairs) and stored as 4 vectors, one per y row. (simd_arm64.s)
//
//go:noescape
func Transpose4NEON(y, x *float32, ys, xs, n int)

// CumsumNEON: y[i] = carry + x[0] + ... + x[i] over the full vectors of x, in float64
// rounded to float32, and the carry after them. Each vector widened to two pairs a = (x0,
// x1), b = (x2, x3); each pair's prefix formed in the register (the pair plus itself moved
// up a lane, zero below: EXT with zero), b plus a's total, both plus the carry, and the
// carry plus the step's total: one add on the chain from step to step, as asmgen's cumsum.
// The sums are associated differently from the Go loop's (TestSIMDCumsum states the
// bound). (simd_arm64.s)
//
//go:noescape
func CumsumNEON(y, x []float32, carry float64) float64

// RopeNEON: One rotate-half row over the full vectors of x1: y1 = x1*c1 - x2*s1, y2 =
// x2*c2 + x1*s2, as Go compiles rope's loop on arm64: the first product rounded (FMUL),
// the second fused with the subtract or add (FMLS, FMLA; FMSUBS, FMADDS in the Go loop).
// (simd_arm64.s)
//
//go:noescape
func RopeNEON(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int
