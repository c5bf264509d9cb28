//go:build arm64 && !purego

package f32

import (
	"math"

	"github.com/ropgen/ropgen/internal/simd"
)

// The Go side of the NEON kernels (simd_arm64.s). Advanced SIMD is part of the arm64
// baseline: every arm64 CPU runs simd.NEON, no feature test needed. The kernels arm64 has no
// NEON version of do nothing there (dispatch_other.go), and the Go loops do their elements.

// Lanes returns the vector width of the level in use (4 float32 at simd.NEON), 0 for simd.Go.
func Lanes() int {
	if simd.Level() >= simd.NEON {
		return 4
	}
	return 0
}

// Sum returns how many elements of x it summed (the full vectors) and their sum in
// float64.
func Sum(x []float32) (int, float64) {
	if simd.Level() < simd.NEON {
		return 0, 0
	}
	return SumNEON(x)
}

// SumSq returns how many elements of x it did and the sum of x² in float64.
func SumSq(x []float32) (int, float64) {
	if simd.Level() < simd.NEON {
		return 0, 0
	}
	return SumSqNEON(x)
}

// Max returns how many elements of x it did and their maximum; ok is false when x holds
// a NaN in them (the caller then takes the Go loop, which keeps it).
func Max(x []float32) (n int, m float32, ok bool) {
	if simd.Level() < simd.NEON || len(x) < 4 {
		return 0, 0, true
	}
	return MaxNEON(x)
}

var arithNEON = [...]func(y, a, b []float32, mode int) int{ArithAdd: AddNEON, ArithSub: SubNEON, ArithMul: MulNEON, ArithDiv: DivNEON}

// Arith computes y = a ∘ b over the full vectors of y, where a and b are each either as
// long as y or a single broadcast element (arithMode); bit-identical to the Go loops.
func Arith(op int, y, a, b []float32) int {
	if simd.Level() < simd.NEON || len(y) < 4 {
		return 0
	}
	mode := arithMode(y, a, b)
	n := len(y) &^ 3
	if mode != 1 {
		_ = a[n-1] // the kernel reads every full vector of a full input
	}
	if mode != 2 {
		_ = b[n-1]
	}
	return arithNEON[op](y, a, b, mode)
}

// Relu computes y = max(x, 0) over the full vectors of x.
func Relu(y, x []float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return ReluNEON(y[:len(x)], x)
}

// LeakyRelu computes y = x * s where x's sign bit is set, x * 1 elsewhere, over the full
// vectors of x: ops.LeakyReluFwd's Go loop bit for bit.
func LeakyRelu(y, x []float32, s float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return LeakyReluNEON(y[:len(x)], x, s)
}

// Clamp computes y = min(max(x, lo), hi) over the full vectors of x, bit for bit Go's
// min and max (NaN and signed zeros included).
func Clamp(y, x []float32, lo, hi float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return ClampNEON(y[:len(x)], x, lo, hi)
}

// VarCols adds d = row[i] - x0[i] into s1[i] and d² into s2[i] (float64) over the full
// vectors of row, bit for bit the Go loop as Go compiles it on arm64 (d*d + s2 fused).
func VarCols(s1, s2, x0 []float64, row []float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	n := len(row)
	return VarColsNEON(s1[:n], s2[:n], x0[:n], row)
}

// ExpSumCols adds exp(row[i] - sh[i]) into s[i] (float64) over the full vectors of row,
// a vector with a lane outside expf's fast range (-87 < row - sh < 88) with exp: bit for
// bit the Go loop on arm64, as ExpSum.
func ExpSumCols(s []float64, sh, row []float32, exp func(float32) float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	n := len(row)
	s, sh = s[:n], sh[:n]
	return blocks(n, 4, func(i, e int) int { return ExpSumColsNEON(s[i:e], sh[i:e], row[i:e], -87, 88, &neonExpConsts) },
		func(i int) { s[i] += float64(exp(row[i] - sh[i])) })
}

// SumCols adds x into acc elementwise (acc[i] += x[i] in float64) over the full vectors
// of x, bit for bit the Go loop.
func SumCols(acc []float64, x []float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return SumColsNEON(acc[:len(x)], x)
}

// MaxCols folds x into acc elementwise with Go's max (in float64) over the full vectors
// of x, bit for bit the Go loop, NaN and signed zeros included.
func MaxCols(acc []float64, x []float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return MaxColsNEON(acc[:len(x)], x)
}

// MaxInto folds row into m elementwise with Go's max over the full vectors of row, bit
// for bit the Go loop, NaN and signed zeros included.
func MaxInto(m, row []float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return MaxIntoNEON(m[:len(row)], row)
}

// The exp-based kernels (UNARY in simd_arm64.s): y = f(x) over the full vectors of x until
// a vector with a lane outside (lo, hi); p and q are the kernel's two parameters (elu's alpha,
// mish's and gelu's constants), unused by exp, sigmoid and silu.

// The constants of the Go element functions the NEON kernels must equal bit for bit
// (ops/elementwise_math.go, ops/activation_math.go), which the kernels take as arguments:
// expf's range reduction and polynomial, gelu's tanh-approximation constants and softplus's
// threshold. ops' kernel tests compare every kernel with its Go function at each level.
const (
	log2e      = 1.44269504088896341
	ln2hi      = 0.693359375
	ln2lo      = -2.12194440e-4
	roundShift = 0x1.8p23
	expC6      = 1.381461275741458e-3
	expC5      = 8.368710055947304e-3
	expC4      = 4.166838899254799e-2
	expC3      = 1.666652113199234e-1
	expC2      = 4.999999403953552e-1
	geluC0     = 0.7978845608028654
	geluC1     = geluC0 * 0.044715

	softplusThreshold = 20
)

// neonExpConsts are the constants of expf's steps, in the order the exp kernels load them.
var neonExpConsts = [10]float32{log2e, roundShift, ln2hi, ln2lo, expC6, expC5, expC4, expC3, expC2, 1}

// neonUnary is an exp-based NEON kernel, the range (lo, hi) it computes and its parameters.
type neonUnary struct {
	kern         func(y, x []float32, lo, hi, p, q float32, c *[10]float32) int
	lo, hi, p, q float32
}

// neonNoHi is the hi of the kernels with no upper limit: +Inf itself goes to the Go function.
var neonNoHi = float32(math.Inf(1))

// neonUnaries are the exp-based NEON kernels by unary. Each range is where expf takes its fast
// path on the kernel's exponent (-87 < x < 88; for the sigmoids -87 < -x < 88; elu's,
// mish's and softplus's exponents min(x, 0), min(x, 20) and min(x, 20) are below 88 for every
// x; gelu's -2z is within it for |x| < 9.8, asmgen's range), outside which the vector goes to
// the Go function. mish's p and q are its cap 20 and 2, gelu's the constants of -2z =
// x*(p*x² + q), softplus's its threshold 20 (above it x itself) and logf's 0.5. Exact
// gelu's range is on z = x*p, p = sqrt(1/2), not x: -1 < z < 1 is erf1p's polynomial branch
// (beyond it erfc's, the Go function's); q is its 0.5.
var neonUnaries = [NUnary]neonUnary{
	UnaryExp:      {ExpNEON, -87, 88, 0, 0},
	UnarySigmoid:  {SigmoidNEON, -88, 87, 0, 0},
	UnarySilu:     {SiluNEON, -88, 87, 0, 0},
	UnaryMish:     {MishNEON, -87, neonNoHi, 20, 2},
	UnaryGelu:     {GeluNEON, -9.8, 9.8, -2 * geluC1, -2 * geluC0},
	UnarySoftplus: {softplusLogNEON, -87, neonNoHi, softplusThreshold, 0.5},
	UnaryGeluErf:  {geluErfPolyNEON, -1, 1, math.Sqrt2 / 2, 0.5},
}

// neonLogConsts are SoftplusNEON's constants of logf's steps (elementwise_math.go), in the
// order it loads them: the polynomial's coefficients from f**8's, those logf subtracts
// negated, then logf's sqrt(1/2); two lanes unused.
var neonLogConsts = [12]float32{7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
	1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1, 0.70710678}

// neonErfConsts are GeluErfNEON's constants: erf1p's polynomial's coefficients
// (activation_math.go) from s**6's, those erf1p subtracts negated, then 1.
var neonErfConsts = [8]float32{7.853861353153693e-5, -8.010193625184903e-4, 5.188327685732524e-3, -2.685381193529856e-2,
	1.128358514861418e-1, -3.761262582423300e-1, 1.128379165726710, 1}

// geluErfPolyNEON is GeluErfNEON with erf1p's constants, a neonUnary kernel (it needs none of
// exp's constants c).
func geluErfPolyNEON(y, x []float32, lo, hi, p, q float32, _ *[10]float32) int {
	return GeluErfNEON(y, x, lo, hi, p, q, &neonErfConsts)
}

// softplusLogNEON is SoftplusNEON with logf's constants, a neonUnary kernel.
func softplusLogNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int {
	return SoftplusNEON(y, x, lo, hi, p, q, c, &neonLogConsts)
}

// run computes u over the full vectors of x into y, each vector the kernel leaves out with f.
func (u neonUnary) run(y, x []float32, f func(float32) float32) int {
	y = y[:len(x)]
	return blocks(len(x), 4, func(i, n int) int { return u.kern(y[i:n], x[i:n], u.lo, u.hi, u.p, u.q, &neonExpConsts) }, func(i int) { y[i] = f(x[i]) })
}

// Unary computes unary k over the full vectors of x into y: relu, exp, sigmoid, silu, tanh,
// gelu (both forms), mish, softplus and hardswish on arm64, each vector the kernel leaves out with the Go
// function; the other unaries do nothing (their Go functions do every element).
func Unary(k int, y, x []float32, f func(float32) float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	switch k {
	case UnaryRelu:
		return Relu(y, x)
	case UnaryTanh: // every lane in the kernel
		return TanhNEON(y[:len(x)], x, &neonTanhConsts)
	case UnaryHardswish: // every lane in the kernel
		return HardswishNEON(y[:len(x)], x)
	}
	u := neonUnaries[k]
	if u.kern == nil {
		return 0
	}
	return u.run(y, x, f)
}

// Elu computes elu(x) with alpha over the full vectors of x into y, a vector with a lane
// at or below -87 (or NaN, or +Inf) with the Go function.
func Elu(y, x []float32, alpha float32, elu func(x, alpha float32) float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return neonUnary{EluNEON, -87, neonNoHi, alpha, 0}.run(y, x, func(v float32) float32 { return elu(v, alpha) })
}

// neonTanhConsts are TanhNEON's constants in the order it loads them: exp's reduction, the
// expm1 polynomial's coefficients (asmgen's tanh), the cap 9.02, 1 and 2.
var neonTanhConsts = [13]float32{log2e, roundShift, ln2hi, ln2lo,
	1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1,
	9.02, 1, 2}

// Scale computes y = x * s, and y = x * s * w when w is not nil, over the full vectors
// of the shorter of x and y. Neither prefetch (pf) nor streaming (nt) on arm64: stream.Span is
// empty there, so no caller asks to stream.
func Scale(y, x, w, pf []float32, s float32, nt bool) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	n := min(len(x), len(y))
	y, x = y[:n], x[:n]
	if w != nil {
		w = w[:n]
	}
	return ScaleNEON(y, x, w, s, b2i(w != nil))
}

// ExpSum writes exp(x - m) into y (y may be nil: only sum) for the full vectors of x and
// returns how many elements it did and their sum, accumulated in float64; m is at least
// every element of x in the callers. A vector with a lane outside expf's fast range
// (-87 < x - m < 88) is done by exp. next (the row the caller reads after x) is not
// prefetched: there is no arm64 machine to tune a prefetch distance on.
func ExpSum(y, x []float32, m float32, next []float32, exp func(float32) float32) (int, float64) {
	if simd.Level() < simd.NEON {
		return 0, 0
	}
	return expSumBlocks(y, x, m, 4, func(out, xs []float32, _, store int) (int, float64) {
		return ExpSumNEON(out, xs, m, -87, 88, store, &neonExpConsts)
	}, nil, exp)
}

// Normalize computes y = (x - m) * r, times w and plus b where they are not nil, over the
// full vectors of x: the layer-norm output pass, bit for bit ops' normalizeRow's Go loop as Go
// compiles it on arm64 (its adds of b fused). Neither prefetch (pf) nor streaming (nt).
func Normalize(y, x, w, b, pf []float32, m, r float32, nt bool) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	n := len(x) &^ 3
	y = y[:n]
	mode := 0
	if w != nil {
		_ = w[:n]
		mode |= 1
	}
	if b != nil {
		_ = b[:n]
		mode |= 2
	}
	return NormalizeNEON(y, x[:n], w, b, m, r, mode)
}

// VarRow returns how many elements of x it did (the full vectors) and their shifted sums
// Σ(x - x0) and Σ(x - x0)² in float64, in one pass.
func VarRow(x []float32, x0 float64) (int, float64, float64) {
	if simd.Level() < simd.NEON {
		return 0, 0, 0
	}
	return VarRowNEON(x, x0)
}

// Above returns the offset of the first full vector of x holding an element above t or
// a NaN; len(x) rounded down to whole vectors when there is none, and 0 at simd.Go (the
// caller's Go loop then tests every element).
func Above(x []float32, t float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	return AboveNEON(x, t)
}

// Transpose moves the block [i0, i1) x [j0, j1) of single elements, y[j*ys + i] =
// x[i*xs + j]: 4 x rows at a time, each strip's whole 4x4 tiles with Transpose4NEON, the
// block's ragged edges with transposeTile; false (nothing done) at simd.Go. Never streamed:
// arm64 has no non-temporal stores here (stream is ignored, fence does nothing).
func Transpose(y, x []float32, ys, xs, i0, i1, j0, j1 int, stream bool, transposeTile func(y, x []float32, ys, xs, i0, i1, j0, j1 int)) bool {
	if simd.Level() < simd.NEON {
		return false
	}
	iv, jv := i0+(i1-i0)&^3, j0+(j1-j0)&^3
	if iv == i0 || jv == j0 {
		iv, jv = i0, j0 // no whole tile: transposeTile does the block
	}
	for i := i0; i < iv; i += 4 {
		_ = x[(i+3)*xs+jv-1] // the kernel reads x rows i..i+3, columns j0..jv-1
		_ = y[(jv-1)*ys+i+3] // and writes y rows j0..jv-1, columns i..i+3
		Transpose4NEON(&y[j0*ys+i], &x[i*xs+j0], ys, xs, jv-j0)
	}
	if iv < i1 {
		transposeTile(y, x, ys, xs, iv, i1, j0, jv)
	}
	if jv < j1 {
		transposeTile(y, x, ys, xs, i0, i1, jv, j1)
	}
	return true
}

// Cumsum is ops' cumsumRow's vector steps: the running sum of x into y over the full vectors of
// x (CumsumNEON), from 0. It returns how many elements it did and the running sum after them:
// 0, 0 at simd.Go. Neither prefetch (pf) nor streaming (stream: arm64 has no non-temporal
// stores here).
func Cumsum(y, x, pf []float32, stream bool) (int, float64) {
	if simd.Level() < simd.NEON {
		return 0, 0
	}
	k := len(x) &^ 3
	return k, CumsumNEON(y[:k], x[:k], 0)
}

// Cumsum4 reports false: arm64 has no four-row kernel, and ops' cumsumRow takes every row.
func Cumsum4(y, x, pf []float32, n int, stream bool) bool { return false }

// Rope computes one rotate-half row: y1 = x1*c1 - x2*s1 and y2 = x2*c2 + x1*s2, all
// slices of the half length, over the full vectors of x1: bit for bit rope's Go loop on
// arm64 (each second product fused as Go fuses it).
func Rope(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int {
	if simd.Level() < simd.NEON {
		return 0
	}
	n := len(x1)
	return RopeNEON(y1[:n], y2[:n], x1, x2[:n], c1[:n], c2[:n], s1[:n], s2[:n])
}
