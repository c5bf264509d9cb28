//go:build goexperiment.simd && amd64

package ops

import "simd/archsimd"

// 8-lane versions of the activation, logsumexp and variance kernels, built with
// GOEXPERIMENT=simd on amd64, on the primitives of elementwise_vec.go (exp8, tanh8, the
// scalar fallback per block). They follow the scalar functions of activation_math.go step
// by step; a block with a lane outside the vector code's range (NaN, where VMAXPS and
// VMINPS would drop it; an exp argument outside exp8's) is done by the scalar function.

var (
	vSqrtHalf      = bc(0.70710678118654752) // 1/sqrt(2); also logf's mantissa split
	vThree, vSix   = bc(3), bc(6)
	vTwenty        = bc(20)
	vExpFloor      = bc(-87) // exp8 wants arguments above it
	vErfcMax       = bc(9)   // erfc8's range: beyond, erfc is subnormal or 0
	vErfT          = [7]f8{bc(7.853861353153693e-5), bc(-8.010193625184903e-4), bc(5.188327685732524e-3), bc(-2.685381193529856e-2), bc(1.128358514861418e-1), bc(-3.761262582423300e-1), bc(1.128379165726710)}
	vErfcP         = [9]f8{bc(2.326819970068386e-2), bc(-1.387039388740657e-1), bc(3.687424674597105e-1), bc(-5.824733027278666e-1), bc(6.210004621745983e-1), bc(-4.944515323274145e-1), bc(3.404879937665872e-1), bc(-2.741127028184656e-1), bc(5.638259427386472e-1)}
	vErfcR         = [8]f8{bc(-1.047766399936249e+1), bc(1.297719955372516e+1), bc(-7.495518717768503e+0), bc(2.921019019210786e+0), bc(-1.015265279202700e+0), bc(4.218463358204948e-1), bc(-2.820767439740514e-1), bc(5.641895067754075e-1)}
	vLogP          = [9]f8{bc(7.0376836292e-2), bc(-1.1514610310e-1), bc(1.1676998740e-1), bc(-1.2420140846e-1), bc(1.4249322787e-1), bc(-1.6668057665e-1), bc(2.0000714765e-1), bc(-2.4999993993e-1), bc(3.3333331174e-1)}
	vLn2Hi, vLn2Lo = bc(0.693359375), bc(-2.12194440e-4)
	vHalfMask      = archsimd.BroadcastInt32x8(0x007fffff)
	vHalfExp       = archsimd.BroadcastInt32x8(0x3f000000) // exponent of [0.5, 1)
	vBias126       = archsimd.BroadcastInt32x8(126)
	vMant12        = archsimd.BroadcastInt32x8(-0x1000) // clears the low 12 bits
	vOneBits       = archsimd.BroadcastInt32x8(1)
)

// horner evaluates the polynomial with coefficients c (highest degree first) at x.
func horner(x f8, c []f8) f8 {
	p := c[0]
	for _, k := range c[1:] {
		p = p.MulAdd(x, k)
	}
	return p
}

// erfc8 is erfcLarge for lanes in [1, 9).
func erfc8(a f8) f8 {
	q := vOne.Div(a)
	w := q.Mul(q)
	p := horner(w, vErfcP[:]).Merge(horner(w, vErfcR[:]), a.Less(vTwo))
	h := a.AsInt32x8().And(vMant12).AsFloat32x8()
	e := exp8(vZero.Sub(h.Mul(h))).Mul(exp8(vZero.Sub(a.Sub(h).Mul(a.Add(h)))))
	return e.Mul(q).Mul(p)
}

// erf1p8 is erf1p for lanes with |z| < 9 and no NaN. The erfc branch is computed only when
// a lane needs it.
func erf1p8(z f8) f8 {
	a := z.AsInt32x8().And(vAbsMask).AsFloat32x8()
	small := a.Less(vOne)
	r := vOne.Add(z.Mul(horner(z.Mul(z), vErfT[:])))
	if small.ToBits() == 0xff {
		return r
	}
	c := erfc8(a.Max(vOne))
	return r.Merge(c.Merge(vTwo.Sub(c), z.Less(vZero)), small)
}

// log8 is logf for positive normal lanes: x = f * 2**e with f in [sqrt(1/2), sqrt(2)), then
// Cephes logf's polynomial in f - 1.
func log8(x f8) f8 {
	bits := x.AsInt32x8()
	e := bits.ShiftAllRight(23).Sub(vBias126)              // x = fr * 2**e, fr in [0.5, 1)
	fr := bits.And(vHalfMask).Or(vHalfExp).AsFloat32x8()   // fr
	low := fr.Less(vSqrtHalf)                              // fr < sqrt(1/2): use 2*fr, e-1
	f := fr.Add(fr).Sub(vOne).Merge(fr.Sub(vOne), low)     // f = m - 1
	fe := e.Sub(vOneBits).Merge(e, low).ConvertToFloat32() // the exponent as float
	z := f.Mul(f)
	y := horner(f, vLogP[:]).Mul(f).Mul(z)
	y = fe.MulAdd(vLn2Lo, y).Sub(vHalf.Mul(z))
	return f.Add(y).Add(fe.Mul(vLn2Hi))
}

// above reports whether every lane of v is above lo; NaN is not.
func above(v, lo f8) bool { return v.Greater(lo).ToBits() == 0xff }

func vecGeluErf(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	lim := vErfcMax.Div(vSqrtHalf) // |x| below 9*sqrt(2): |z| below 9
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !within(v, vZero.Sub(lim), lim) {
			scalarBlock(y[i:i+8], x[i:i+8], geluErf)
			continue
		}
		vHalf.Mul(v).Mul(erf1p8(v.Mul(vSqrtHalf))).StoreSlice(y[i:])
	}
	return n
}

func vecSoftplus(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !above(v, vExpFloor) {
			scalarBlock(y[i:i+8], x[i:i+8], softplus)
			continue
		}
		u := exp8(v.Min(vTwenty))
		w := vOne.Add(u)
		l := log8(w).Mul(u.Div(w.Sub(vOne))).Merge(u, w.NotEqual(vOne)) // log1pf
		l.Merge(v, v.LessEqual(vTwenty)).StoreSlice(y[i:])
	}
	return n
}

func vecMish(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !above(v, vExpFloor) {
			scalarBlock(y[i:i+8], x[i:i+8], mish)
			continue
		}
		e := exp8(v.Min(vTwenty))
		m := e.Mul(e.Add(vTwo))
		v.Mul(m.Div(m.Add(vTwo))).StoreSlice(y[i:])
	}
	return n
}

func vecElu(y, x []float32, alpha float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	va := bc(alpha)
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !above(v, vExpFloor) {
			for j, e := range x[i : i+8] {
				y[i+j] = elu(e, alpha)
			}
			continue
		}
		va.MulAdd(exp8(v.Min(vZero)).Sub(vOne), v.Max(vZero)).StoreSlice(y[i:])
	}
	return n
}

func vecHardswish(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !noNaN(v) {
			scalarBlock(y[i:i+8], x[i:i+8], hardswish)
			continue
		}
		v.Mul(v.Add(vThree).Max(vZero).Min(vSix)).Div(vSix).StoreSlice(y[i:])
	}
	return n
}

// vecMaxInto folds row into m elementwise with max over the full blocks; a block holding a
// NaN is folded by the scalar max, which keeps it.
func vecMaxInto(m, row []float32) int {
	if !vecOK {
		return 0
	}
	n := len(row) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(row[i:])
		a := archsimd.LoadFloat32x8Slice(m[i:])
		if !noNaN(v) || !noNaN(a) {
			for j, e := range row[i : i+8] {
				m[i+j] = max(m[i+j], e)
			}
			continue
		}
		a.Max(v).StoreSlice(m[i:])
	}
	return n
}

// vecExpSumCols adds exp(row[i] - sh[i]) into s[i] (float64) over the full blocks.
func vecExpSumCols(s []float64, sh, row []float32) int {
	if !vecOK {
		return 0
	}
	n := len(row) &^ 7
	for i := 0; i < n; i += 8 {
		d := archsimd.LoadFloat32x8Slice(row[i:]).Sub(archsimd.LoadFloat32x8Slice(sh[i:]))
		var e f8
		if within(d, vExpLo, vExpHi) {
			e = exp8(d)
		} else {
			var blk [8]float32
			d.Store(&blk)
			scalarBlock(blk[:], blk[:], expf)
			e = archsimd.LoadFloat32x8(&blk)
		}
		lo, hi := halves(e)
		archsimd.LoadFloat64x4Slice(s[i:]).Add(lo).StoreSlice(s[i:])
		archsimd.LoadFloat64x4Slice(s[i+4:]).Add(hi).StoreSlice(s[i+4:])
	}
	return n
}

// vecVarCols adds d = row[i] - x0[i] into s1[i] and d² into s2[i] (float64) over the full
// blocks.
func vecVarCols(s1, s2, x0 []float64, row []float32) int {
	if !vecOK {
		return 0
	}
	n := len(row) &^ 7
	for i := 0; i < n; i += 8 {
		lo, hi := halves(archsimd.LoadFloat32x8Slice(row[i:]))
		lo, hi = lo.Sub(archsimd.LoadFloat64x4Slice(x0[i:])), hi.Sub(archsimd.LoadFloat64x4Slice(x0[i+4:]))
		archsimd.LoadFloat64x4Slice(s1[i:]).Add(lo).StoreSlice(s1[i:])
		archsimd.LoadFloat64x4Slice(s1[i+4:]).Add(hi).StoreSlice(s1[i+4:])
		lo.MulAdd(lo, archsimd.LoadFloat64x4Slice(s2[i:])).StoreSlice(s2[i:])
		hi.MulAdd(hi, archsimd.LoadFloat64x4Slice(s2[i+4:])).StoreSlice(s2[i+4:])
	}
	return n
}

// vecVarRow returns how many elements of x it did (the full blocks) and their shifted sums
// Σ(x - x0) and Σ(x - x0)² in float64, in one pass.
func vecVarRow(x []float32, x0 float64) (int, float64, float64) {
	if !vecOK {
		return 0, 0, 0
	}
	n := len(x) &^ 7
	v0 := archsimd.BroadcastFloat64x4(x0)
	a, b := archsimd.BroadcastFloat64x4(0), archsimd.BroadcastFloat64x4(0)
	c, d := a, b
	for i := 0; i < n; i += 8 {
		lo, hi := halves(archsimd.LoadFloat32x8Slice(x[i:]))
		lo, hi = lo.Sub(v0), hi.Sub(v0)
		a, b = a.Add(lo), b.Add(hi)
		c, d = lo.MulAdd(lo, c), hi.MulAdd(hi, d)
	}
	return n, total(a.Add(b)), total(c.Add(d))
}
