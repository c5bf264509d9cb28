//go:build amd64 && !purego

package f32

import (
	"unsafe"

	"github.com/ropgen/ropgen/internal/simd"
	"github.com/ropgen/ropgen/internal/stream"
)

// The Go side of the generated kernels (internal/asm/f32/simd_amd64.s; conventions in
// internal/asm/asmgen): the entry points that pick the width and finish each vector a kernel
// leaves out (a lane outside its fast range) with the Go element function.

// Lanes returns the vector width of the level in use, 0 for simd.Go.
func Lanes() int {
	switch simd.Level() {
	case simd.AVX512:
		return 16
	case simd.AVX2:
		return 8
	}
	return 0
}

// pick returns the kernel of the level in use and its width (nil, 0 for simd.Go).
func pick[F any](avx2, avx512 F) (F, int) {
	switch simd.Level() {
	case simd.AVX512:
		return avx512, 16
	case simd.AVX2:
		return avx2, 8
	}
	var none F
	return none, 0
}

type unaryKernel = func(y, x []float32, nt int) int

var unaryKernels = [NUnary][2]unaryKernel{
	UnaryExp: {ExpAVX2, ExpAVX512}, UnarySigmoid: {SigmoidAVX2, SigmoidAVX512}, UnarySilu: {SiluAVX2, SiluAVX512},
	UnaryTanh: {TanhAVX2, TanhAVX512}, UnaryGelu: {GeluAVX2, GeluAVX512}, UnaryGeluErf: {GeluErfAVX2, GeluErfAVX512},
	UnarySoftplus: {SoftplusAVX2, SoftplusAVX512}, UnaryMish: {MishAVX2, MishAVX512},
	UnaryHardswish: {HardswishAVX2, HardswishAVX512}, UnaryRelu: {ReluAVX2, ReluAVX512},
}

// Unary computes unary k over the full vectors of x into y, each vector the kernel leaves
// out (a lane outside its fast range) with f, the Go element function.
func Unary(k int, y, x []float32, f func(float32) float32) int { return unaryNT(k, y, x, 0, f) }

func unaryNT(k int, y, x []float32, nt int, f func(float32) float32) int {
	kern, l := pick(unaryKernels[k][0], unaryKernels[k][1])
	if l == 0 {
		return 0
	}
	return blocks(len(x), l, func(i, n int) int { return kern(y[i:n], x[i:n], nt) }, func(i int) { y[i] = f(x[i]) })
}

// UnaryNT streams unary k into the aligned span of y (stream.Span) and returns it, as
// Unary; nothing at simd.Go.
func UnaryNT(k int, y, x []float32, f func(float32) float32) (s, e int) {
	if simd.Level() < simd.AVX2 {
		return 0, 0
	}
	return ntStream(y, func(s, e int) { unaryNT(k, y[s:e], x[s:e], 1, f) })
}

// Relu computes y = max(x, 0) over the full vectors of x.
func Relu(y, x []float32) int { return Unary(UnaryRelu, y, x, relu) }

// Elu computes elu(x) with alpha over the full vectors of x into y, each vector the kernel
// leaves out with elu, the Go element function.
func Elu(y, x []float32, alpha float32, elu func(x, alpha float32) float32) int {
	return eluNT(y, x, alpha, 0, elu)
}

func eluNT(y, x []float32, alpha float32, nt int, elu func(x, alpha float32) float32) int {
	kern, l := pick(EluAVX2, EluAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(x), l, func(i, n int) int { return kern(y[i:n], x[i:n], nt, alpha) }, func(i int) { y[i] = elu(x[i], alpha) })
}

// EluNT streams elu(x) with alpha into the aligned span of y (stream.Span) and returns it,
// as UnaryNT.
func EluNT(y, x []float32, alpha float32, elu func(x, alpha float32) float32) (s, e int) {
	if simd.Level() < simd.AVX2 {
		return 0, 0
	}
	return ntStream(y, func(s, e int) { eluNT(y[s:e], x[s:e], alpha, 1, elu) })
}

func LeakyRelu(y, x []float32, s float32) int {
	kern, l := pick(LeakyReluAVX2, LeakyReluAVX512)
	if l == 0 {
		return 0
	}
	return kern(y, x, 0, s) // exact for every lane: it never stops early
}

func Clamp(y, x []float32, lo, hi float32) int {
	kern, l := pick(ClampAVX2, ClampAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(x), l, func(i, n int) int { return kern(y[i:n], x[i:n], 0, lo, hi) }, func(i int) { y[i] = min(max(x[i], lo), hi) })
}

// ExpSum writes exp(x - m) into y (y may be nil: only sum) for the full vectors of x and
// returns how many elements it did and their sum, accumulated in float64. It prefetches
// next (nil: nothing), the row its caller reads after x, one line per vector of x: a row op
// whose first pass over a row only reads (a max) then finds the row in cache, its memory
// time spent while this pass computes.
func ExpSum(y, x []float32, m float32, next []float32, exp func(float32) float32) (int, float64) {
	kern, l := pick(ExpSumAVX2, ExpSumAVX512)
	if l == 0 {
		return 0, 0
	}
	if len(next) < len(x) {
		next = x // prefetching x itself costs a cache hit per line
	}
	return expSumBlocks(y, x, m, l, func(out, xs []float32, i, store int) (int, float64) {
		return kern(out, xs, m, store, &next[i])
	}, nil, exp)
}

// FusedRowsOK says whether softmax's and log_softmax's fused row kernel (ExpSumOut)
// runs on the rows of n elements of y: at AVX-512, whose exp never stops (AVX2's would
// leave the output pass half done), where FusedNormsOK.
func FusedRowsOK(y []float32, n int) bool { return simd.Level() >= simd.AVX512 && FusedNormsOK(y, n) }

// FusedNormsOK says whether the norms' fused row kernels (NormVarOut, ScaleSumSqOut)
// run on the rows of n elements of y: at a SIMD level, y 64-byte aligned and n a whole
// number of its lines, so that every row's output is streamed whole.
func FusedNormsOK(y []float32, n int) bool {
	s, _ := stream.Span(y)
	return simd.Level() >= simd.AVX2 && n%16 == 0 && s == 0 && len(y) >= 16
}

// ExpSumOut is ExpSum(e, x, m, next) with the output pass of the row before
// alongside, streamed into y: y = a * c where e is not nil (softmax: e may be a, whose
// vectors are read before e's are written), y = a - c where it is (log_softmax). It does
// the full vectors of x, the same operations as ExpSum and as Scale or Normalize
// (with r = 1) would, bit for bit; the caller checks FusedRowsOK and fences.
func ExpSumOut(y, a []float32, c float32, e, x []float32, m float32, next []float32, exp func(float32) float32) (int, float64) {
	if len(next) < len(x) {
		next = x
	}
	mode := b2i(e == nil)
	return expSumBlocks(e, x, m, 16, func(out, xs []float32, i, _ int) (int, float64) {
		return ExpSumOutAVX512(y[i:], a[i:], c, mode, out, xs, m, &next[i])
	}, func(i int) {
		if e == nil {
			y[i] = a[i] - c
		} else {
			y[i] = a[i] * c
		}
	}, exp)
}

// NormVarOut is VarRow(x, x0) with layer norm's output pass of the row before
// alongside, streamed into y: y = (a - m) * r, times w and plus b where they are not nil,
// the same operations as VarRow and Normalize, bit for bit, over the full vectors of
// x; pf (nil: none) is prefetched alongside x. The caller checks FusedNormsOK and fences.
func NormVarOut(y, a, w, b []float32, m, r float32, x []float32, x0 float64, pf []float32) (int, float64, float64) {
	mode := b2i(w != nil) | b2i(b != nil)<<1
	if w == nil {
		w = a
	}
	if b == nil {
		b = a
	}
	kern, _ := pick(NormVarOutAVX2, NormVarOutAVX512)
	return kern(y, a, w, b, m, r, mode, x, x0, &prefetchOr(pf, x)[0])
}

// ScaleSumSqOut is SumSq(x) with rms_norm's output pass of the row before alongside,
// streamed into y: y = a * s, times w where it is not nil, the same operations as SumSq
// and Scale, bit for bit, over the full vectors of x; pf (nil: none) is prefetched
// alongside x. The caller checks FusedNormsOK and fences.
func ScaleSumSqOut(y, a, w []float32, s float32, x, pf []float32) (int, float64) {
	mode := b2i(w != nil)
	if w == nil {
		w = a
	}
	kern, _ := pick(ScaleSumSqOutAVX2, ScaleSumSqOutAVX512)
	return kern(y, a, w, s, mode, x, &prefetchOr(pf, x)[0])
}

// Arith computes y = a ∘ b over the full vectors of y, where a and b are each either as
// long as y or a single broadcast element; bit-identical to the Go loops.
func Arith(op int, y, a, b []float32) int {
	var kern func(y, a, b []float32, mode int) int
	var l int
	switch op {
	case ArithAdd:
		kern, l = pick(AddAVX2, AddAVX512)
	case ArithSub:
		kern, l = pick(SubAVX2, SubAVX512)
	case ArithMul:
		kern, l = pick(MulAVX2, MulAVX512)
	default:
		kern, l = pick(DivAVX2, DivAVX512)
	}
	if l == 0 || len(y) < l { // the kernel reads a[0] and b[0]
		return 0
	}
	return kern(y, a, b, arithMode(y, a, b))
}

// Scale computes y = x * s, and y = x * s * w when w is not nil, streaming y when nt,
// and prefetches pf (nil: none) alongside x (see ops' prefetchNext).
func Scale(y, x, w, pf []float32, s float32, nt bool) int {
	kern, l := pick(ScaleAVX2, ScaleAVX512)
	if l == 0 {
		return 0
	}
	hw := b2i(w != nil)
	if w == nil {
		w = x // never read
	}
	return kern(y, x, w, prefetchOr(pf, x), s, hw, b2i(nt))
}

// Normalize computes y = (x - m) * r, times w and plus b where they are not nil: the
// layer-norm output pass, in the Go loop's order of operations; streaming y when nt, and
// prefetching pf (nil: none) alongside x.
func Normalize(y, x, w, b, pf []float32, m, r float32, nt bool) int {
	kern, l := pick(NormalizeAVX2, NormalizeAVX512)
	if l == 0 {
		return 0
	}
	mode := b2i(w != nil) | b2i(b != nil)<<1 | b2i(nt)<<2
	if w == nil {
		w = x
	}
	if b == nil {
		b = x
	}
	return kern(y, x, w, b, prefetchOr(pf, x), m, r, mode)
}

// Rope computes one rotate-half row: y1 = x1*c1 - x2*s1 and y2 = x2*c2 + x1*s2, all
// slices of the half length.
func Rope(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int {
	kern, l := pick(RopeAVX2, RopeAVX512)
	if l == 0 {
		return 0
	}
	return kern(y1, y2, x1, x2, c1, c2, s1, s2)
}

// Sum returns how many elements of x it summed (the full vectors) and their sum.
func Sum(x []float32) (int, float64) {
	kern, l := pick(SumAVX2, SumAVX512)
	if l == 0 {
		return 0, 0
	}
	return kern(x)
}

// SumSq returns how many elements of x it did and the sum of x² in float64.
func SumSq(x []float32) (int, float64) {
	kern, l := pick(SumSqAVX2, SumSqAVX512)
	if l == 0 {
		return 0, 0
	}
	return kern(x)
}

// Max returns how many elements of x it did and their maximum; ok is false when a
// vector holds a NaN (the caller then takes the Go loop, which keeps it as torch.amax does).
func Max(x []float32) (n int, m float32, ok bool) {
	kern, l := pick(MaxAVX2, MaxAVX512)
	if l == 0 || len(x) < l {
		return 0, 0, true
	}
	return kern(x)
}

// SumCols adds x into acc elementwise (acc[i] += x[i] in float64) over the full vectors.
func SumCols(acc []float64, x []float32) int {
	kern, l := pick(SumColsAVX2, SumColsAVX512)
	if l == 0 {
		return 0
	}
	return kern(acc, x)
}

// MaxCols folds x into acc elementwise with Go's max over the full vectors; a vector of
// x holding a NaN is folded by the Go max.
func MaxCols(acc []float64, x []float32) int {
	kern, l := pick(MaxColsAVX2, MaxColsAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(x), l, func(i, n int) int { return kern(acc[i:n], x[i:n]) }, func(i int) { acc[i] = max(acc[i], float64(x[i])) })
}

// MaxInto folds row into m elementwise with max over the full vectors; a vector holding
// a NaN is folded by the Go max, which keeps it.
func MaxInto(m, row []float32) int {
	kern, l := pick(MaxIntoAVX2, MaxIntoAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(row), l, func(i, n int) int { return kern(m[i:n], row[i:n]) }, func(i int) { m[i] = max(m[i], row[i]) })
}

// ExpSumCols adds exp(row[i] - sh[i]) into s[i] (float64) over the full vectors.
func ExpSumCols(s []float64, sh, row []float32, exp func(float32) float32) int {
	kern, l := pick(ExpSumColsAVX2, ExpSumColsAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(row), l, func(i, n int) int { return kern(s[i:n], sh[i:n], row[i:n]) }, func(i int) { s[i] += float64(exp(row[i] - sh[i])) })
}

// VarCols adds d = row[i] - x0[i] into s1[i] and d² into s2[i] (float64) over the full
// vectors.
func VarCols(s1, s2, x0 []float64, row []float32) int {
	kern, l := pick(VarColsAVX2, VarColsAVX512)
	if l == 0 {
		return 0
	}
	return kern(s1, s2, x0, row)
}

// VarRow returns how many elements of x it did (the full vectors) and their shifted sums
// Σ(x - x0) and Σ(x - x0)² in float64, in one pass.
func VarRow(x []float32, x0 float64) (int, float64, float64) {
	kern, l := pick(VarRowAVX2, VarRowAVX512)
	if l == 0 {
		return 0, 0, 0
	}
	return kern(x, x0)
}

// Transpose moves the block [i0, i1) x [j0, j1) of single elements, y[j*ys + i] =
// x[i*xs + j], with the 16x16 in-register kernel at AVX-512 and the 16x8 one at AVX2 (and
// for a last 8 columns), and the block's ragged edges with transposeTile; it reports false
// (nothing done) at simd.Go. With stream, a tile whose y rows start on a 64-byte boundary
// writes its lines with non-temporal stores: each kernel writes 16 elements (one line) of
// each of its y rows, so each line is written whole; the caller fences. The 16x16 kernel
// writes each line with one store; the 16x8 one in two rounds of halves, so 8 lines stay
// half-written until its end (16 for a pair), more than a core's write-combining buffers
// hold (docs/history.md, "Kernel generator choices", has the ab run).
func Transpose(y, x []float32, ys, xs, i0, i1, j0, j1 int, stream bool, transposeTile func(y, x []float32, ys, xs, i0, i1, j0, j1 int)) bool {
	if simd.Level() < simd.AVX2 {
		return false
	}
	iv, jv := i0+(i1-i0)&^15, j0+(j1-j0)&^7
	if iv == i0 {
		jv = j0 // no whole tile: transposeTile does the block
	}
	// Down x 16 rows at a time, each strip of 16 rows walked along its columns: the 16 x
	// rows are read as 16 sequential streams the hardware prefetcher follows, and each
	// kernel writes whole lines of 8 y rows (column by column down x, every line read is
	// a demand miss in its own page).
	for i := i0; i < iv; i += 16 {
		nt := 0
		if stream && ys%16 == 0 && uintptr(unsafe.Pointer(&y[j0*ys+i]))%64 == 0 {
			nt = 1 // every y row of the strip starts a line at i, as ys is whole lines
		}
		j := j0
		if simd.Level() == simd.AVX512 {
			for ; j+16 <= jv; j += 16 {
				_ = y[(j+15)*ys+i+15]
				Transpose16x16AVX512(&y[j*ys+i], &x[i*xs+j], ys, xs, nt)
			}
		}
		for ; j+16 <= jv; j += 16 { // two tiles side by side: each x line is read whole at once
			_ = y[(j+15)*ys+i+15]
			Transpose16x8AVX2(&y[j*ys+i], &x[i*xs+j], ys, xs, nt)
			Transpose16x8AVX2(&y[(j+8)*ys+i], &x[i*xs+j+8], ys, xs, nt)
		}
		for ; j < jv; j += 8 {
			_ = y[(j+7)*ys+i+15]
			Transpose16x8AVX2(&y[j*ys+i], &x[i*xs+j], ys, xs, nt)
		}
	}
	if iv < i1 {
		transposeTile(y, x, ys, xs, iv, i1, j0, jv)
	}
	if jv < j1 {
		transposeTile(y, x, ys, xs, i0, i1, jv, j1)
	}
	return true
}

// Fence orders the streamed stores of a worker before its range is reported done.
func Fence() {
	if simd.Level() >= simd.AVX2 {
		Sfence()
	}
}

// prefetchOr is the slice a kernel prefetches alongside x: pf when it is as long as x, else
// x itself, whose lines the kernel reads anyway.
func prefetchOr(pf, x []float32) []float32 {
	if len(pf) < len(x) {
		return x
	}
	return pf
}

// Cumsum is ops' cumsumRow's vector steps: the running sum of x into y from the start over
// the elements before y's first 16-byte (AVX2) or 64-byte (AVX-512) boundary, in Go and only
// when stream, then over the whole 8- or 16-element steps after them (CumsumAVX2,
// CumsumAVX512; streamed when stream), prefetching pf (nil: x itself). It returns how many
// elements it did and the running sum after them: 0, 0 at simd.Go.
func Cumsum(y, x, pf []float32, stream bool) (int, float64) {
	kern, l := pick(CumsumAVX2, CumsumAVX512)
	if l == 0 || len(x) < 2*l {
		return 0, 0
	}
	var s float64
	i, nt := 0, 0
	if stream {
		nt = 1
		align := uintptr(16) // the kernel's stores: two 16-byte halves a step on AVX2,
		if l == 16 {         // one 64-byte line on AVX-512
			align = 64
		}
		a := int(-uintptr(unsafe.Pointer(unsafe.SliceData(y))) % align / 4)
		for ; i < a; i++ {
			s += float64(x[i])
			y[i] = float32(s)
		}
	}
	k := (len(x) - i) &^ (l - 1)
	s = kern(y[i:i+k], x[i:i+k], prefetchOr(pf, x)[i:i+k], s, nt)
	return i + k, s
}

// Cumsum4 writes the running sums of the four rows of n elements of x (len 4n) into y,
// each from zero, in one kernel call that walks the four rows together (Cumsum4AVX2,
// Cumsum4AVX512; streamed when stream), prefetching pf (nil: x itself). It reports
// false, writing nothing, where it does not take the rows: at simd.Go, where n is not a
// whole number of vector steps or is below Cumsum's two, or where stream and y's rows
// do not start on the store alignment. Each row is then what ops' cumsumRow writes, whose
// vector steps are the same instructions from the same start (a NaN's payload aside).
func Cumsum4(y, x, pf []float32, n int, stream bool) bool {
	kern, l := pick(Cumsum4AVX2, Cumsum4AVX512)
	if l == 0 || n < 2*l || n%l != 0 {
		return false
	}
	nt := 0
	if stream {
		nt = 1
		if uintptr(unsafe.Pointer(unsafe.SliceData(y)))%uintptr(2*l) != 0 {
			return false
		}
	}
	kern(y[:4*n], x[:4*n], prefetchOr(pf, x)[:4*n], n, nt)
	return true
}

// Above returns the offset of the first full vector of x holding an element above t or
// a NaN; len(x) rounded down to whole vectors when there is none, and 0 at simd.Go (the
// caller's Go loop then tests every element).
func Above(x []float32, t float32) int {
	kern, l := pick(AboveAVX2, AboveAVX512)
	if l == 0 {
		return 0
	}
	return kern(x, t)
}

// relu is relu's Go element function, for the vectors a relu kernel leaves out (none: it
// never stops early).
func relu(v float32) float32 { return max(v, 0) }

// ntStream runs kern over the aligned span of y (stream.Span), when it holds a line, and
// returns the span: the shape of every one-input streaming helper.
func ntStream(y []float32, kern func(s, e int)) (s, e int) {
	s, e = stream.Span(y)
	if e > s {
		kern(s, e)
	}
	return s, e
}

// RawUnary returns the kernel of unary k at the level in use without Unary's walk: it stops
// at the first vector with a lane outside its fast range and returns how many elements it
// did, streaming y when nt is 1; nil at simd.Go. For the tests that must see where a kernel
// stops.
func RawUnary(k int) func(y, x []float32, nt int) int {
	kern, _ := pick(unaryKernels[k][0], unaryKernels[k][1])
	return kern
}

// RawExpSum returns ExpSum's kernel at the level in use, as RawUnary: it writes exp(x - m)
// into y when store is 1 and prefetches from next.
func RawExpSum() func(y, x []float32, m float32, store int, next *float32) (int, float64) {
	kern, _ := pick(ExpSumAVX2, ExpSumAVX512)
	return kern
}
