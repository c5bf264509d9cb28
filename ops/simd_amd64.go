//go:build amd64 && !purego

package ops

import (
	"unsafe"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// The Go side of the generated kernels (internal/asm/f32/simd_amd64.s; conventions in
// internal/asm/asmgen): the wrappers that pick the width and finish each vector a kernel
// leaves out (a lane outside its fast range) with the Go element function.

// lanes returns the vector width of the level in use, 0 for SIMDGo.
func lanes() int {
	switch simdLevel() {
	case SIMDAVX512:
		return 16
	case SIMDAVX2:
		return 8
	}
	return 0
}

// pick returns the kernel of the level in use and its width (nil, 0 for SIMDGo).
func pick[F any](avx2, avx512 F) (F, int) {
	switch simdLevel() {
	case SIMDAVX512:
		return avx512, 16
	case SIMDAVX2:
		return avx2, 8
	}
	var none F
	return none, 0
}

type unaryKernel = func(y, x []float32, nt int) int

var unaryKernels = [nUnary][2]unaryKernel{
	uExp: {f32.ExpAVX2, f32.ExpAVX512}, uSigmoid: {f32.SigmoidAVX2, f32.SigmoidAVX512}, uSilu: {f32.SiluAVX2, f32.SiluAVX512},
	uTanh: {f32.TanhAVX2, f32.TanhAVX512}, uGelu: {f32.GeluAVX2, f32.GeluAVX512}, uGeluErf: {f32.GeluErfAVX2, f32.GeluErfAVX512},
	uSoftplus: {f32.SoftplusAVX2, f32.SoftplusAVX512}, uMish: {f32.MishAVX2, f32.MishAVX512},
	uHardswish: {f32.HardswishAVX2, f32.HardswishAVX512}, uRelu: {f32.ReluAVX2, f32.ReluAVX512},
}

// vecUnary computes unary k over the full vectors of x into y.
func vecUnary(k int, y, x []float32) int { return unaryNT(k, y, x, 0) }

func unaryNT(k int, y, x []float32, nt int) int {
	kern, l := pick(unaryKernels[k][0], unaryKernels[k][1])
	if l == 0 {
		return 0
	}
	f := unaryScalar[k]
	return blocks(len(x), l, func(i, n int) int { return kern(y[i:n], x[i:n], nt) }, func(i int) { y[i] = f(x[i]) })
}

// ntUnary streams unary k into the aligned span of y (ntSpan) and returns it; nothing at
// SIMDGo.
func ntUnary(k int, y, x []float32) (s, e int) {
	if simdLevel() < SIMDAVX2 {
		return 0, 0
	}
	return ntStream(y, func(s, e int) { unaryNT(k, y[s:e], x[s:e], 1) })
}

func vecExp(y, x []float32) int     { return vecUnary(uExp, y, x) }
func vecSigmoid(y, x []float32) int { return vecUnary(uSigmoid, y, x) }
func vecSilu(y, x []float32) int    { return vecUnary(uSilu, y, x) }
func vecTanh(y, x []float32) int    { return vecUnary(uTanh, y, x) }
func vecGelu(y, x []float32) int    { return vecUnary(uGelu, y, x) }
func vecRelu(y, x []float32) int    { return vecUnary(uRelu, y, x) }

func vecElu(y, x []float32, alpha float32) int { return eluNT(y, x, alpha, 0) }

func eluNT(y, x []float32, alpha float32, nt int) int {
	kern, l := pick(f32.EluAVX2, f32.EluAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(x), l, func(i, n int) int { return kern(y[i:n], x[i:n], nt, alpha) }, func(i int) { y[i] = elu(x[i], alpha) })
}

// ntElu streams elu(x) with alpha into the aligned span of y (ntSpan) and returns it, as
// ntUnary.
func ntElu(y, x []float32, alpha float32) (s, e int) {
	if simdLevel() < SIMDAVX2 {
		return 0, 0
	}
	return ntStream(y, func(s, e int) { eluNT(y[s:e], x[s:e], alpha, 1) })
}

func vecLeakyRelu(y, x []float32, s float32) int {
	kern, l := pick(f32.LeakyReluAVX2, f32.LeakyReluAVX512)
	if l == 0 {
		return 0
	}
	return kern(y, x, 0, s) // exact for every lane: it never stops early
}

func vecClamp(y, x []float32, lo, hi float32) int {
	kern, l := pick(f32.ClampAVX2, f32.ClampAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(x), l, func(i, n int) int { return kern(y[i:n], x[i:n], 0, lo, hi) }, func(i int) { y[i] = min(max(x[i], lo), hi) })
}

// vecExpSum writes exp(x - m) into y (y may be nil: only sum) for the full vectors of x and
// returns how many elements it did and their sum, accumulated in float64. It prefetches
// next (nil: nothing), the row its caller reads after x, one line per vector of x: a row op
// whose first pass over a row only reads (a max) then finds the row in cache, its memory
// time spent while this pass computes.
func vecExpSum(y, x []float32, m float32, next []float32) (int, float64) {
	kern, l := pick(f32.ExpSumAVX2, f32.ExpSumAVX512)
	if l == 0 {
		return 0, 0
	}
	if len(next) < len(x) {
		next = x // prefetching x itself costs a cache hit per line
	}
	return expSumBlocks(y, x, m, l, func(out, xs []float32, i, store int) (int, float64) {
		return kern(out, xs, m, store, &next[i])
	}, nil)
}

// fusedRowsOK says whether softmax's and log_softmax's fused row kernel (vecExpSumOut)
// runs on the rows of n elements of y: at AVX-512, whose exp never stops (AVX2's would
// leave the output pass half done), where fusedNormsOK.
func fusedRowsOK(y []float32, n int) bool { return simdLevel() >= SIMDAVX512 && fusedNormsOK(y, n) }

// fusedNormsOK says whether the norms' fused row kernels (vecNormVarOut, vecScaleSumSqOut)
// run on the rows of n elements of y: at a SIMD level, y 64-byte aligned and n a whole
// number of its lines, so that every row's output is streamed whole.
func fusedNormsOK(y []float32, n int) bool {
	s, _ := ntSpan(y)
	return simdLevel() >= SIMDAVX2 && n%16 == 0 && s == 0 && len(y) >= 16
}

// vecExpSumOut is vecExpSum(e, x, m, next) with the output pass of the row before
// alongside, streamed into y: y = a * c where e is not nil (softmax: e may be a, whose
// vectors are read before e's are written), y = a - c where it is (log_softmax). It does
// the full vectors of x, the same operations as vecExpSum and as vecScale or vecNormalize
// (with r = 1) would, bit for bit; the caller checks fusedRowsOK and fences.
func vecExpSumOut(y, a []float32, c float32, e, x []float32, m float32, next []float32) (int, float64) {
	if len(next) < len(x) {
		next = x
	}
	mode := b2i(e == nil)
	return expSumBlocks(e, x, m, 16, func(out, xs []float32, i, _ int) (int, float64) {
		return f32.ExpSumOutAVX512(y[i:], a[i:], c, mode, out, xs, m, &next[i])
	}, func(i int) {
		if e == nil {
			y[i] = a[i] - c
		} else {
			y[i] = a[i] * c
		}
	})
}

// vecNormVarOut is vecVarRow(x, x0) with layer norm's output pass of the row before
// alongside, streamed into y: y = (a - m) * r, times w and plus b where they are not nil,
// the same operations as vecVarRow and vecNormalize, bit for bit, over the full vectors of
// x; pf (nil: none) is prefetched alongside x. The caller checks fusedNormsOK and fences.
func vecNormVarOut(y, a, w, b []float32, m, r float32, x []float32, x0 float64, pf []float32) (int, float64, float64) {
	mode := b2i(w != nil) | b2i(b != nil)<<1
	if w == nil {
		w = a
	}
	if b == nil {
		b = a
	}
	kern, _ := pick(f32.NormVarOutAVX2, f32.NormVarOutAVX512)
	return kern(y, a, w, b, m, r, mode, x, x0, &prefetchOr(pf, x)[0])
}

// vecScaleSumSqOut is vecSumSq(x) with rms_norm's output pass of the row before alongside,
// streamed into y: y = a * s, times w where it is not nil, the same operations as vecSumSq
// and vecScale, bit for bit, over the full vectors of x; pf (nil: none) is prefetched
// alongside x. The caller checks fusedNormsOK and fences.
func vecScaleSumSqOut(y, a, w []float32, s float32, x, pf []float32) (int, float64) {
	mode := b2i(w != nil)
	if w == nil {
		w = a
	}
	kern, _ := pick(f32.ScaleSumSqOutAVX2, f32.ScaleSumSqOutAVX512)
	return kern(y, a, w, s, mode, x, &prefetchOr(pf, x)[0])
}

// vecArith computes y = a ∘ b over the full vectors of y, where a and b are each either as
// long as y or a single broadcast element; bit-identical to the Go loops.
func vecArith(op int, y, a, b []float32) int {
	var kern func(y, a, b []float32, mode int) int
	var l int
	switch op {
	case opAdd:
		kern, l = pick(f32.AddAVX2, f32.AddAVX512)
	case opSub:
		kern, l = pick(f32.SubAVX2, f32.SubAVX512)
	case opMul:
		kern, l = pick(f32.MulAVX2, f32.MulAVX512)
	default:
		kern, l = pick(f32.DivAVX2, f32.DivAVX512)
	}
	if l == 0 || len(y) < l { // the kernel reads a[0] and b[0]
		return 0
	}
	return kern(y, a, b, arithMode(y, a, b))
}

// vecScale computes y = x * s, and y = x * s * w when w is not nil, streaming y when nt,
// and prefetches pf (nil: none) alongside x (see prefetchNext).
func vecScale(y, x, w, pf []float32, s float32, nt bool) int {
	kern, l := pick(f32.ScaleAVX2, f32.ScaleAVX512)
	if l == 0 {
		return 0
	}
	hw := b2i(w != nil)
	if w == nil {
		w = x // never read
	}
	return kern(y, x, w, prefetchOr(pf, x), s, hw, b2i(nt))
}

// vecNormalize computes y = (x - m) * r, times w and plus b where they are not nil: the
// layer-norm output pass, in the Go loop's order of operations; streaming y when nt, and
// prefetching pf (nil: none) alongside x.
func vecNormalize(y, x, w, b, pf []float32, m, r float32, nt bool) int {
	kern, l := pick(f32.NormalizeAVX2, f32.NormalizeAVX512)
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

// vecRope computes one rotate-half row: y1 = x1*c1 - x2*s1 and y2 = x2*c2 + x1*s2, all
// slices of the half length.
func vecRope(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int {
	kern, l := pick(f32.RopeAVX2, f32.RopeAVX512)
	if l == 0 {
		return 0
	}
	return kern(y1, y2, x1, x2, c1, c2, s1, s2)
}

// vecSum returns how many elements of x it summed (the full vectors) and their sum.
func vecSum(x []float32) (int, float64) {
	kern, l := pick(f32.SumAVX2, f32.SumAVX512)
	if l == 0 {
		return 0, 0
	}
	return kern(x)
}

// vecSumSq returns how many elements of x it did and the sum of x² in float64.
func vecSumSq(x []float32) (int, float64) {
	kern, l := pick(f32.SumSqAVX2, f32.SumSqAVX512)
	if l == 0 {
		return 0, 0
	}
	return kern(x)
}

// vecMax returns how many elements of x it did and their maximum; ok is false when a
// vector holds a NaN (the caller then takes the Go loop, which keeps it as torch.amax does).
func vecMax(x []float32) (n int, m float32, ok bool) {
	kern, l := pick(f32.MaxAVX2, f32.MaxAVX512)
	if l == 0 || len(x) < l {
		return 0, 0, true
	}
	return kern(x)
}

// vecSumCols adds x into acc elementwise (acc[i] += x[i] in float64) over the full vectors.
func vecSumCols(acc []float64, x []float32) int {
	kern, l := pick(f32.SumColsAVX2, f32.SumColsAVX512)
	if l == 0 {
		return 0
	}
	return kern(acc, x)
}

// vecMaxCols folds x into acc elementwise with Go's max over the full vectors; a vector of
// x holding a NaN is folded by the Go max.
func vecMaxCols(acc []float64, x []float32) int {
	kern, l := pick(f32.MaxColsAVX2, f32.MaxColsAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(x), l, func(i, n int) int { return kern(acc[i:n], x[i:n]) }, func(i int) { acc[i] = max(acc[i], float64(x[i])) })
}

// vecMaxInto folds row into m elementwise with max over the full vectors; a vector holding
// a NaN is folded by the Go max, which keeps it.
func vecMaxInto(m, row []float32) int {
	kern, l := pick(f32.MaxIntoAVX2, f32.MaxIntoAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(row), l, func(i, n int) int { return kern(m[i:n], row[i:n]) }, func(i int) { m[i] = max(m[i], row[i]) })
}

// vecExpSumCols adds exp(row[i] - sh[i]) into s[i] (float64) over the full vectors.
func vecExpSumCols(s []float64, sh, row []float32) int {
	kern, l := pick(f32.ExpSumColsAVX2, f32.ExpSumColsAVX512)
	if l == 0 {
		return 0
	}
	return blocks(len(row), l, func(i, n int) int { return kern(s[i:n], sh[i:n], row[i:n]) }, func(i int) { s[i] += float64(expf(row[i] - sh[i])) })
}

// vecVarCols adds d = row[i] - x0[i] into s1[i] and d² into s2[i] (float64) over the full
// vectors.
func vecVarCols(s1, s2, x0 []float64, row []float32) int {
	kern, l := pick(f32.VarColsAVX2, f32.VarColsAVX512)
	if l == 0 {
		return 0
	}
	return kern(s1, s2, x0, row)
}

// vecVarRow returns how many elements of x it did (the full vectors) and their shifted sums
// Σ(x - x0) and Σ(x - x0)² in float64, in one pass.
func vecVarRow(x []float32, x0 float64) (int, float64, float64) {
	kern, l := pick(f32.VarRowAVX2, f32.VarRowAVX512)
	if l == 0 {
		return 0, 0, 0
	}
	return kern(x, x0)
}

// vecTranspose moves the block [i0, i1) x [j0, j1) of single elements, y[j*ys + i] =
// x[i*xs + j], with the 16x16 in-register kernel at AVX-512 and the 16x8 one at AVX2 (and
// for a last 8 columns), and the block's ragged edges with transposeTile; it reports false
// (nothing done) at SIMDGo. With stream, a tile whose y rows start on a 64-byte boundary
// writes its lines with non-temporal stores: each kernel writes 16 elements (one line) of
// each of its y rows, so each line is written whole; the caller fences. The 16x16 kernel
// writes each line with one store; the 16x8 one in two rounds of halves, so 8 lines stay
// half-written until its end (16 for a pair), more than a core's write-combining buffers
// hold (docs/history.md, "Kernel generator choices", has the ab run).
func vecTranspose(y, x []float32, ys, xs, i0, i1, j0, j1 int, stream bool) bool {
	if simdLevel() < SIMDAVX2 {
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
		if simdLevel() == SIMDAVX512 {
			for ; j+16 <= jv; j += 16 {
				_ = y[(j+15)*ys+i+15]
				f32.Transpose16x16AVX512(&y[j*ys+i], &x[i*xs+j], ys, xs, nt)
			}
		}
		for ; j+16 <= jv; j += 16 { // two tiles side by side: each x line is read whole at once
			_ = y[(j+15)*ys+i+15]
			f32.Transpose16x8AVX2(&y[j*ys+i], &x[i*xs+j], ys, xs, nt)
			f32.Transpose16x8AVX2(&y[(j+8)*ys+i], &x[i*xs+j+8], ys, xs, nt)
		}
		for ; j < jv; j += 8 {
			_ = y[(j+7)*ys+i+15]
			f32.Transpose16x8AVX2(&y[j*ys+i], &x[i*xs+j], ys, xs, nt)
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

// fence orders the streamed stores of a worker before its range is reported done.
func fence() {
	if simdLevel() >= SIMDAVX2 {
		f32.Sfence()
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

// vecCumsum is cumsumRow's vector steps: the running sum of x into y from the start over
// the elements before y's first 16-byte (AVX2) or 64-byte (AVX-512) boundary, in Go and only
// when stream, then over the whole 8- or 16-element steps after them (f32.CumsumAVX2,
// f32.CumsumAVX512; streamed when stream), prefetching pf (nil: x itself). It returns how many
// elements it did and the running sum after them: 0, 0 at SIMDGo.
func vecCumsum(y, x, pf []float32, stream bool) (int, float64) {
	kern, l := pick(f32.CumsumAVX2, f32.CumsumAVX512)
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

// vecCumsum4 writes the running sums of the four rows of n elements of x (len 4n) into y,
// each from zero, in one kernel call that walks the four rows together (f32.Cumsum4AVX2,
// f32.Cumsum4AVX512; streamed when stream), prefetching pf (nil: x itself). It reports
// false, writing nothing, where it does not take the rows: at SIMDGo, where n is not a
// whole number of vector steps or is below vecCumsum's two, or where stream and y's rows
// do not start on the store alignment. Each row is then what cumsumRow writes, whose
// vector steps are the same instructions from the same start (a NaN's payload aside).
func vecCumsum4(y, x, pf []float32, n int, stream bool) bool {
	kern, l := pick(f32.Cumsum4AVX2, f32.Cumsum4AVX512)
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

// vecAbove returns the offset of the first full vector of x holding an element above t or
// a NaN; len(x) rounded down to whole vectors when there is none, and 0 at SIMDGo (the
// caller's Go loop then tests every element).
func vecAbove(x []float32, t float32) int {
	kern, l := pick(f32.AboveAVX2, f32.AboveAVX512)
	if l == 0 {
		return 0
	}
	return kern(x, t)
}
