package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The transcendental kernels: exp and the activations built on it, and the exp passes of
// softmax, log_softmax and logsumexp. They are bound by the vector ports' throughput, not
// by latency (a shorter dependency chain, Estrin's scheme for exp's polynomial, gains
// nothing: docs/history.md), so what counts is the instruction count per vector:
//   - the AVX-512 kernels keep their constants in registers (hoistKernel) and read the rest
//     as one broadcast float32 (emit): a 64-byte memory operand the linker aligns to 32
//     bytes splits across two cache lines on every read (docs/history.md, "Constants of the
//     AVX-512 kernels, exp in six FMAs");
//   - AVX-512 scales exp's polynomial by 2**k with VSCALEFPS, one instruction instead of
//     the exponent-bit sequence's three, and the same bits wherever the result is normal;
//   - a range check feeds a predicted branch and costs three instructions on AVX-512 (two
//     compares for the lanes outside, one KORTESTW; see within). Clamping the argument to
//     the AVX-512 exp's exact range instead (two instructions, expCheck) costs the unary
//     exp nothing measurable and is what the softmax family's exp
//     passes do, where rows masked far below their max would otherwise leave the kernel;
//   - exp's polynomial is six FMAs in Horner's form (expPoly's minimax coefficients), two
//     instructions fewer than Cephes' 1 + r + r²P(r), and no copy of a constant register
//     the FMA does not need;
//   - the softmax family's exp passes clamp only below (expBelow: their m is the max) and
//     run without a per-vector store test;
//   - a negation folds into exp's reduction (expCore's neg), a factor into the constants;
//   - VDIVPS stays: the divider runs beside the FMA ports, and VRCP14PS with a Newton step
//     takes four instructions on them (it was slower in tanh, gelu and mish, no faster in
//     sigmoid: docs/history.md, "Kernel generator choices");
//   - tanh and softplus take formulas with fewer steps than their Go functions (below).

// Float32 constants of the scalar functions (ops/elementwise_math.go, activation_math.go).
const (
	log2e      = 1.44269504088896341
	ln2hi      = 0.693359375
	ln2lo      = -2.12194440e-4
	roundShift = 0x1.8p23
	geluC0     = 0.7978845608028654
	geluC1     = geluC0 * 0.044715
	sqrtHalf   = 0.70710678118654752
	// expPoly's coefficients of r**6 .. r**2 (ops/elementwise_math.go)
	expC6 = 1.381461275741458e-3
	expC5 = 8.368710055947304e-3
	expC4 = 4.166838899254799e-2
	expC3 = 1.666652113199234e-1
	expC2 = 4.999999403953552e-1
)

// expLo is where the AVX-512 exp's range ends below: e**x rounds to 0 below -104 (expfEdge
// returns 0 below -103.97), and VSCALEFPS gives that 0 (and the subnormals above it, one
// rounding of p * 2**k as expfEdge's two-step scale).
const expLo = -104

// narrow returns check on AVX2 and nil on AVX-512: the check of a kernel whose AVX-512 form
// is exact for every lane.
func narrow(check func(x Register) mask) func(x Register) mask {
	if cur.wide {
		return nil
	}
	return check
}

// minN is min(x, c) returning x where x is NaN (VMINPS returns its second source, avo's
// first operand, when either is NaN): a cap that lets a NaN through to the result.
func minN(x Register, c float32) VecVirtual { d := vec(); VMINPS(x, kreg(c32(c)), d); return d }

// expCore returns e**x, or e**-x when neg (the negation folded into the reduction, bit for
// bit the steps of expf(-x)), for lanes in (-87, 88) on AVX2 and in [-104, 88] (or NaN) on
// AVX-512: the scalar expf's steps, k = round(x*log2e) by the round-shift trick, r = x -
// k*ln2 in two FMA steps, expPoly's polynomial in six FMAs, then the scale by 2**k.
func expCore(x Register, neg bool) VecVirtual {
	l2e := log2e
	if neg {
		l2e = -log2e
	}
	t := fma(x, kreg(c32(float32(l2e))), c32(roundShift))
	fk := sub(t, c32(roundShift))
	r := vec()
	VMOVUPS(x, r)
	if neg {
		emit(VFNMSUB231PS, VFNMSUB231PS_BCST, c32(ln2hi), fk, r) // r = -x - fk*ln2hi
	} else {
		emit(VFNMADD231PS, VFNMADD231PS_BCST, c32(ln2hi), fk, r) // r = x - fk*ln2hi
	}
	emit(VFNMADD231PS, VFNMADD231PS_BCST, c32(ln2lo), fk, r)
	p := horner(r, expC6, expC5, expC4, expC3, expC2, 1, 1)
	if cur.wide {
		d := vec()
		VSCALEFPS(fk, p, d) // p * 2**fk
		return d
	}
	// 2**k: t's low mantissa bits hold k + the round shift's; (t - shift + 127) << 23.
	s := shl(23, isub(t, cbits(math.Float32bits(roundShift)-127)))
	return mul(s, p)
}

// exp returns e**x for lanes in (-87, 88) (the caller checks).
func exp(x Register) VecVirtual { return expCore(x, false) }

// tanh is tanh(x) = em / (em + 2) with x's sign, em = e**2a - 1 and a = |x| capped at 9.02
// (where tanh rounds to ±1): one expression for every lane, with no cancellation near 0
// since em comes from expm1's steps (e**r - 1 = r + r²P(r) from exp's polynomial, then
// 2**k * (1 + q) - 1 as one FMA of q by 2**k plus 2**k - 1, which is q itself for k = 0).
// A NaN passes every step (the cap keeps it), so no lane needs the Go function.
func tanh(x Register) VecVirtual {
	a := minN(and(cbits(0x7fffffff), x), 9.02)
	y := add(a, a)
	t := fma(y, kreg(c32(log2e)), c32(roundShift))
	fk := sub(t, c32(roundShift))
	r := vec()
	VMOVUPS(y, r)
	emit(VFNMADD231PS, VFNMADD231PS_BCST, c32(ln2hi), fk, r) // r = y - fk*ln2hi
	emit(VFNMADD231PS, VFNMADD231PS_BCST, c32(ln2lo), fk, r)
	q := horner(r, 1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
	VFMADD213PS(r, mul(r, r), q) // q = e**r - 1 = q*r² + r
	var k VecVirtual             // 2**k
	if cur.wide {
		k = vec()
		VSCALEFPS(fk, ld(c32(1)), k)
	} else {
		k = shl(23, isub(t, cbits(math.Float32bits(roundShift)-127)))
	}
	em := sub(k, c32(1))
	VFMADD231PS(q, k, em) // em = q*2**k + (2**k - 1)
	th := div(em, add(c32(2), em))
	return or(and(cbits(0x80000000), x), th)
}

// sigmoid is 1 / (1 + e**-x) for lanes in (-87, 87).
func sigmoid(x Register) VecVirtual {
	return div(ld(c32(1)), add(c32(1), expCore(x, true)))
}

// log1p returns log(1 + u) for u in [0, 1] (softplus's u = e**-|x|) as l + y, l from a
// table of one entry a lane and y a short polynomial, with no rounding of 1 + u: j =
// round((n-1)u) indexes n = lanes entries (VPERMPS reads j from the low bits of the
// round-shift sum), c_j is close to 1/(1 + j/(n-1)) and c_0 = 1, and log(1 + u) = -log(c_j)
// + log1p(r) with r = (1 + u)c_j - 1 = u*c_j + (c_j - 1) in one FMA (c_j - 1 is exact),
// |r| below 1/14 (AVX2) or 1/30 (AVX-512); for j = 0, r = u itself, so a small u keeps its
// relative precision. It overwrites u. The caller adds l and y (softplus adds max(x, 0) to l
// first). It replaced logf's Cephes polynomial of degree 8 over [sqrt(1/2) - 1, sqrt(2) - 1]
// with its select between two halves: 12 instructions a vector and the caller's add of l,
// against 20 on AVX-512.
func log1p(u VecVirtual) (l, y VecVirtual) {
	n := cur.lanes
	cs, cm1, ls := make([]float32, n), make([]float32, n), make([]float32, n)
	cs[0] = 1
	for j := 1; j < n; j++ {
		cs[j] = log1pPoint(1 / (1 + float64(j)/float64(n-1)))
		cm1[j] = cs[j] - 1 // exact: c_j is in [1/2, 1)
		ls[j] = float32(-math.Log(float64(cs[j])))
	}
	t := vec() // j in the low mantissa bits
	VMOVUPS(u, t)
	emit(VFMADD213PS, VFMADD213PS_BCST, c32(roundShift), kreg(c32(float32(n-1))), t)
	c, cm, l := perm(newTable("log1pC", cs), t), perm(newTable("log1pCm1", cm1), t), perm(newTable("log1pL", ls), t)
	r := u
	VFMADD213PS(cm, c, r) // r = u*c + (c - 1), over u
	// log1p(r) = r + r²(q0 + q1 r + q2 r² + q3 r³): q fitted (Lawson's iteration, minimax)
	// to log1p's relative error over r's range at this width, 0.28 ulp (AVX2) and 0.007 ulp
	// (AVX-512) at most.
	q := [4]float64{-0.49999899242769424, 0.33334133125389426, -0.25092423809033054, 0.19773298854644028}
	if cur.wide {
		q = [4]float64{-0.4999999432856182, 0.33333385086143996, -0.25021901206923786, 0.19935370631534252}
	}
	y = horner(r, q[3], q[2], q[1], q[0])
	VFMADD213PS(r, mul(r, r), y) // y = y*r² + r
	return l, y
}

// log1pPoint returns the float32 within 2**12 ulps of v (and at least 1/2) whose -log is
// nearest a float32: log1p's table entries -log(c_j) are then exact to about 2**-12 ulp
// instead of half an ulp, at the cost of a range of r wider by 2**-12 of itself.
func log1pPoint(v float64) float32 {
	base := math.Float32bits(float32(v))
	best, bestErr := float32(0), math.Inf(1)
	for d := -4096; d <= 4096; d++ {
		c := math.Float32frombits(uint32(int64(base) + int64(d)))
		if c < 0.5 {
			continue
		}
		l := -math.Log(float64(c))
		ulp := float64(math.Nextafter32(float32(l), 1) - float32(l))
		if e := math.Abs(float64(float32(l))-l) / ulp; e < bestErr {
			best, bestErr = c, e
		}
	}
	return best
}

// erf1p is 1 + erf(z) for |z| < 9: the odd polynomial below |z| = 1 and erfc beyond, as the
// scalar erf1p; the erfc branch runs only for vectors with a lane that needs it.
func erf1p(z Register, done string) VecVirtual {
	a := and(cbits(0x7fffffff), z)
	r := mul(z, horner(mul(z, z), 7.853861353153693e-5, -8.010193625184903e-4, 5.188327685732524e-3, -2.685381193529856e-2, 1.128358514861418e-1, -3.761262582423300e-1, 1.128379165726710))
	r = add(c32(1), r)
	small := cmp(cmpLT, a, c32(1))
	out := vec()
	VMOVUPS(r, out)
	allOr(small, "erfc_"+done)
	JMP(LabelRef(done))
	Label("erfc_" + done)
	{
		b := vmax(c32(1), a)
		q := div(ld(c32(1)), b)
		w := mul(q, q)
		p1 := horner(w, 2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1, -5.824733027278666e-1, 6.210004621745983e-1, -4.944515323274145e-1, 3.404879937665872e-1, -2.741127028184656e-1, 5.638259427386472e-1)
		p2 := horner(w, -1.047766399936249e+1, 1.297719955372516e+1, -7.495518717768503e+0, 2.921019019210786e+0, -1.015265279202700e+0, 4.218463358204948e-1, -2.820767439740514e-1, 5.641895067754075e-1)
		p := blend(cmp(cmpLT, b, c32(2)), p2, p1)
		h := and(cbits(0xfffff000), b)
		e1 := expCore(mul(h, h), true)
		e2 := expCore(mul(sub(b, h), add(b, h)), true)
		c := mul(p, mul(q, mul(e2, e1)))
		neg := cmp(cmpLT, z, c32(0))
		c = blend(neg, sub(ld(c32(2)), c), c)
		c = blend(small, c, r)
		VMOVUPS(c, out)
	}
	Label(done)
	return out
}

func unaries() {
	for _, u := range []unary{
		{"exp", func(x Register) mask { return within(x, -87, 88) }, func(x Register, _ string) VecVirtual { return exp(x) }, nil, true},
		{"sigmoid", func(x Register) mask { return within(x, -87, 87) }, func(x Register, _ string) VecVirtual { return sigmoid(x) }, nil, true},
		{"silu", func(x Register) mask { return within(x, -87, 87) }, func(x Register, _ string) VecVirtual { return mul(x, sigmoid(x)) }, nil, true},
		{"tanh", nil, func(x Register, _ string) VecVirtual { return tanh(x) }, nil, true},
		{"gelu", func(x Register) mask {
			// -2z within exp's fast range: |x| below about 9.9
			return within(x, -9.8, 9.8)
		}, func(x Register, _ string) VecVirtual {
			// x / (1 + e**-2z), as geluf, with -2z in one step: the constants times -2
			m2z := mul(x, fma(ld(c32(-2*geluC1)), mul(x, x), c32(-2*geluC0)))
			return div(x, add(c32(1), exp(m2z)))
		}, nil, true},
		{"geluErf", func(x Register) mask {
			lim := float32(9) / float32(sqrtHalf)
			return within(x, -lim, lim)
		}, func(x Register, l string) VecVirtual {
			return mul(erf1p(mul(c32(sqrtHalf), x), l), mul(c32(0.5), x))
		}, nil, true},
		{"softplus", narrow(func(x Register) mask { return above(x, -87) }), func(x Register, _ string) VecVirtual {
			// max(x, 0) + log1p(e**-|x|): no overflow, no cancellation, no divide. |x| is
			// capped where exp's range ends (e**-87 is below half an ulp of 87, e**-104 is 0
			// on AVX-512); AVX-512 checks nothing: VRANGEPS caps a quiet NaN to 104 too, and
			// max(x, 0) keeps it (VMAXPS returns its second source, avo's first operand, for
			// NaN; it also keeps -0, which adds to log 2 as +0 does).
			var u VecVirtual
			if cur.wide {
				a := vec()
				VRANGEPS(U8(0x0a), kreg(c32(-expLo)), x, a) // min(|x|, 104): the smaller magnitude, sign cleared
				u = expCore(a, true)
			} else {
				u = expCore(vmin(c32(87), and(cbits(0x7fffffff), x)), true)
			}
			l, y := log1p(u)
			return add(add(vmax(x, zero()), l), y)
		}, nil, true},
		{"mish", func(x Register) mask { return above(x, -87) }, func(x Register, _ string) VecVirtual {
			// x * n/(n + 2), n = e*(e + 2), e = e**min(x, 20) (see mish in activation_math.go)
			e := exp(vmin(c32(20), x))
			n := mul(e, add(c32(2), e))
			return mul(x, div(n, add(c32(2), n)))
		}, nil, true},
		{"elu", func(x Register) mask { return above(x, -87) }, func(x Register, _ string) VecVirtual {
			z0 := zero()
			e := sub(exp(vmin(z0, x)), c32(1))
			return fma(pv[0], e, vmax(z0, x)) // alpha*(e-1) + max(x, 0)
		}, []string{"alpha"}, true},
		{"hardswish", noNaN, func(x Register, _ string) VecVirtual {
			z0 := zero()
			c := vmin(c32(6), vmax(z0, add(c32(3), x)))
			return div(mul(c, x), c32(6))
		}, nil, false},
		{"relu", nil, func(x Register, _ string) VecVirtual {
			// max with +0 as the first source returns x for NaN and both zeros; clearing the
			// sign bit maps -0 to +0 and keeps NaN: Go's max(x, 0) bit for bit.
			z0 := zero()
			m := vec()
			VMAXPS(x, z0, m)
			return and(cbits(0x7fffffff), m)
		}, nil, false},
		{"leakyRelu", nil, func(x Register, _ string) VecVirtual {
			return mul(blend(sign(x), ld(c32(1)), pv[0]), x) // lanes with the sign bit set: x*s
		}, []string{"s"}, false},
		{"clamp", noNaN, func(x Register, _ string) VecVirtual {
			return minExact(pv[1], maxExact(pv[0], x)) // Go's min(max(x, lo), hi), signed zeros included
		}, []string{"lo", "hi"}, false},
	} {
		unaryKernel(u)
	}
}

// expCheck jumps to label for a vector d outside exp's fast range on AVX2, and returns d
// for expCore. On AVX-512 it returns d clamped to [expLo, 89] instead, NaN kept, where
// expCore is exact for every lane: e**89 overflows to +Inf as e**x does above 88.73, and
// below expLo both are 0. Two instructions instead of three and a branch, and a row whose
// lanes reach far below the max (a mask of -1e9 or -Inf) stays in the kernel.
func expCheck(d Register, label string) Register {
	if !cur.wide {
		allOr(within(d, -87, 88), label)
		return d
	}
	return maxN(minN(d, 89), expLo)
}

// expBelow is expCheck for d = x - m where m is at least every x, as in the softmax
// family's passes, whose m is the max of what they read: on AVX-512 only the lower clamp
// (one instruction; expCore gives +Inf for any d above 89 up to 2**22 anyway).
func expBelow(d Register, label string) Register {
	if !cur.wide {
		return expCheck(d, label)
	}
	return maxN(d, expLo)
}

// maxN is max(x, c) returning x where x is NaN (see minN).
func maxN(x Register, c float32) VecVirtual { d := vec(); VMAXPS(x, kreg(c32(c)), d); return d }

// expRows are softmax's, log_softmax's and logsumexp's exp passes.
func expRows() {
	{
		// expSum: e = exp(x - m), stored into y when store != 0 (see expSumLoops).
		name := frame("expSum", "func(y, x []float32, m float32, store int, pf *float32) (int, float64)", "computes exp(x - m) over the full vectors of x (into y when store != 0), m at least every element of x, and returns how many and their sum in float64, stopping at a vector outside exp's fast range; it prefetches the line at pf + i for the vector at x + i")
		y := Load(Param("y").Base(), GP64())
		x := Load(Param("x").Base(), GP64())
		vm := bc(Load(Param("m"), XMM()))
		st := Load(Param("store"), GP64())
		pf := Load(Param("pf"), GP64())
		// two copies of the loops, with and without the store, so that no vector tests
		// the flag (a test per vector is a visible part of an in-cache loop)
		expSumLoops(name, x, pf, vm, st, expPass{label: name, e: y}, expPass{label: name + "_sum"})
	}
	if cur.wide {
		// expSumOut: expSum of e, x, m and pf with the output pass of the row before
		// alongside, streamed into y: softmax's y = a * c with the exps stored (mode 0;
		// e may be a: a step reads its vectors of a before it stores e's), log_softmax's
		// y = a - c without (mode 1). A row op's exp pass and the output pass of the row
		// before it otherwise take turns: the first reads the memory and computes, the
		// second only writes; fused, the reads and the streamed writes overlap
		// (docs/history.md, "Quarters, loads before stores, and fused row passes").
		// AVX-512 only: its exp never stops
		// (expBelow), where AVX2's stop would leave the output pass half done.
		name := frame("expSumOut", "func(y, a []float32, c float32, mode int, e, x []float32, m float32, pf *float32) (int, float64)", "streams y = a * c (mode 0) or a - c (mode 1) over the full vectors of x while it computes exp(x - m), stored into e in mode 0, and returns how many and their sum in float64, as expSum; y must be 64-byte aligned")
		y := Load(Param("y").Base(), GP64())
		av := Load(Param("a").Base(), GP64())
		vc := bc(Load(Param("c"), XMM()))
		mode := Load(Param("mode"), GP64())
		e := Load(Param("e").Base(), GP64())
		x := Load(Param("x").Base(), GP64())
		vm := bc(Load(Param("m"), XMM()))
		pf := Load(Param("pf"), GP64())
		XORQ(U8(1), mode) // the first pass is taken when the flag is set
		expSumLoops(name, x, pf, vm, mode,
			expPass{label: name, e: e, y: y, out: func(j Register, k int) VecVirtual { return mul(vat(av, j, k), vc) }},
			expPass{label: name + "_sub", y: y, out: func(j Register, k int) VecVirtual { return sub(ld(vat(av, j, k)), vc) }})
	}
	{
		name := frame("expSumCols", "func(s []float64, sh, row []float32) int", "adds exp(row - sh) into s (float64) over the full vectors of row, sh at least row lane by lane, stopping at a vector outside exp's fast range")
		s := Load(Param("s").Base(), GP64())
		sh := Load(Param("sh").Base(), GP64())
		x := Load(Param("row").Base(), GP64())
		n, i := fullN("row"), counter()
		hoistKernel(name, func() {
			loopTo(name, i, n, func() {
				d := sub(ld(at(x, i)), at(sh, i))
				lo, hi := cvtReg(exp(expBelow(d, name+"_done")))
				addInto64(s, i, lo, hi)
			})
			Store(i, ReturnIndex(0))
			VZEROUPPER()
			RET()
		})
	}
}

// expPass is one copy of expSumLoops's loops: the exps stored at e (nil: not stored) and,
// where out is not nil, out's vector of each element streamed into y alongside.
type expPass struct {
	label string
	e, y  Register
	out   func(j Register, k int) VecVirtual
}

// expSumLoops emits the loops and the return of the exp-sum kernels: pass[0]'s loops when
// flag != 0, pass[1]'s otherwise; e = exp(x - m) over the full vectors of x, m at least
// every element of x, summed in float32 over a step of the quarters (quartered: four
// vectors, AVX2 eight) and, in the in-order rest, chunks of expChunk vectors, and those
// sums in float64: one conversion per step or chunk instead of per vector, and a chunk's
// sum of at most 128 (AVX-512) positive terms is within 2**-17 of exact (softmax's
// tolerance is 1e-6 relative). Every pass sums alike, so a row's sum is the same bits
// from each.
//   - In quarters, whose four independent exps a step the core overlaps better than one
//     a step and whose prefetches are four streams, the pass that reads the row and
//     prefetches the next runs faster than our streaming copy, where in order it did not.
//   - It prefetches the caller's next row (pf + i for x + i) into L2, whence its max pass
//     reads it as fast: in L1 it would make three rows with x and y (48 KB, all of L1;
//     docs/history.md, "Prefetching in the row ops").
//   - Unrolling a chunk's 8 vectors gained nothing measurable and is not done.
func expSumLoops(name string, x, pf Register, vm VecVirtual, flag Register, pass ...expPass) {
	const expChunk = 8
	n, i := fullN("x"), counter()
	a, b := zero(), zero()
	end := GP64()
	s := vec()
	hoistKernel(name, func() {
		fold := func() {
			lo, hi := cvtReg(s)
			VADDPD(lo, a, a)
			VADDPD(hi, b, b)
		}
		TESTQ(flag, flag)
		JZ(LabelRef(pass[1].label + "_quarters"))
		for _, p := range pass {
			// the exp of the vector at (j, k), and before it the output's (stored by put,
			// in the order of the steps: one vector a line, AVX-512's, as quartered's
			// stores take them)
			if p.out != nil && !cur.wide {
				panic(name + ": an output pass needs one vector a line")
			}
			var outs []VecVirtual
			step := func(j Register, k int, bail string) VecVirtual {
				if p.out != nil {
					outs = append(outs, p.out(j, k))
				}
				dc := expBelow(sub(ld(vat(x, j, k)), vm), bail)
				if k == 0 {
					PREFETCHT1(at(pf, j)) // the caller's next row, into L2
				}
				return exp(dc)
			}
			put := func(ev VecVirtual, j Register, k int) {
				if p.out != nil {
					VMOVNTPS(outs[0], vat(p.y, j, k))
					outs = outs[1:]
				}
				if p.e != nil {
					VMOVUPS(ev, vat(p.e, j, k))
				}
				VADDPS(ev, s, s)
			}
			Label(p.label + "_quarters")
			zeroVec(s)
			quartered(quarters{name: p.label + "_q", seq: p.label + "_chunk", step: step, store: put,
				bails:    !cur.wide, // expBelow's jump
				bailed:   func() { zeroVec(a); zeroVec(b) },
				stepDone: func() { fold(); zeroVec(s) },
			}, i, n)
			Label(p.label + "_chunk")
			CMPQ(i, n)
			JAE(LabelRef(name + "_done"))
			LEAQ(Mem{Base: i}.Offset(expChunk*cur.lanes), end)
			CMPQ(end, n)
			CMOVQGT(n, end)
			zeroVec(s)
			loopTo(p.label+"_c", i, end, func() {
				put(step(i, 0, name+"_stop"), i, 0) // i is this vector's: a stop returns it
			})
			fold()
			JMP(LabelRef(p.label + "_chunk"))
		}
		Label(name + "_stop")
		fold()
		Label(name + "_done")
		VADDPD(b, a, a)
		Store(i, ReturnIndex(0))
		Store(hsum64(a), ReturnIndex(1))
		VZEROUPPER()
		RET()
	})
}
