// Command asmgen writes ops/simd_amd64.s and its Go declarations, ops/simd_amd64_decl.go:
// the AVX2+FMA (8-lane) and AVX-512 (16-lane) kernels of package ops, generated with avo
// from one description per kernel so that both widths share every step.
//
//	cd ops/internal/asmgen && go run . -out ../../simd_amd64.s -stubs ../../simd_amd64_decl.go -pkg ops
//
// It is its own module so that package ops does not depend on avo; `make asm-check`
// regenerates into a temporary directory and fails when the checked-in files differ.
//
// Conventions of every kernel (simd_amd64.go holds the Go side):
//   - It does the full vectors of its first input slice (len &^ (lanes-1)) and returns how
//     many elements it did. A kernel with a fast range (exp's (-87, 88), no NaN) stops at
//     the first vector with a lane outside it and returns the elements before it; the Go
//     wrapper computes that vector with the scalar function and calls again.
//   - nt != 0 stores the output with non-temporal stores (the output must then be aligned
//     to 64 bytes) and ends with SFENCE.
package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// isa is one vector width: AVX2 (YMM, masks in vectors) or AVX-512 (ZMM, masks in K).
type isa struct {
	name  string
	lanes int
	wide  bool
}

var (
	avx2   = isa{"AVX2", 8, false}
	avx512 = isa{"AVX512", 16, true}
	cur    isa
)

func main() {
	ConstraintExpr("amd64")
	for _, w := range []isa{avx2, avx512} {
		cur = w
		unaries()
		reductions()
		binaries()
		layout()
	}
	Generate()
}

// vec allocates a vector register of the current width.
func vec() VecVirtual {
	if cur.wide {
		return ZMM()
	}
	return YMM()
}

// half allocates a vector of half the current width (the float32 half a float64 convert
// reads, and the float64 register of a half is a full vector).
func half() VecVirtual {
	if cur.wide {
		return YMM()
	}
	return XMM()
}

var consts = map[string]Mem{}

// c32 returns a 64-byte constant holding v in every float32 lane (the AVX2 kernels read
// its first 32 bytes).
func c32(v float32) Mem { return cbits(math.Float32bits(v)) }

// cbits is c32 for raw lane bits.
func cbits(b uint32) Mem {
	name := fmt.Sprintf("k32_%08x", b)
	if m, ok := consts[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		DATA(4*i, U32(b))
	}
	consts[name] = m
	return m
}

// bc broadcasts a float32 register or memory operand into a new vector.
func bc(src Op) VecVirtual {
	v := vec()
	VBROADCASTSS(src, v)
	return v
}

// ld loads a constant or memory operand into a new vector.
func ld(m Op) VecVirtual {
	v := vec()
	VMOVUPS(m, v)
	return v
}

// Arithmetic on vectors; a, the first operand, may be memory. Each returns a new register.
func add(a Op, b Register) VecVirtual  { d := vec(); VADDPS(a, b, d); return d }
func sub(b Register, a Op) VecVirtual  { d := vec(); VSUBPS(a, b, d); return d } // b - a
func mul(a Op, b Register) VecVirtual  { d := vec(); VMULPS(a, b, d); return d }
func div(b Register, a Op) VecVirtual  { d := vec(); VDIVPS(a, b, d); return d } // b / a
func vmin(a Op, b Register) VecVirtual { d := vec(); VMINPS(a, b, d); return d }
func vmax(a Op, b Register) VecVirtual { d := vec(); VMAXPS(a, b, d); return d }

// fma returns a*b + c (c may be memory).
func fma(a, b Register, c Op) VecVirtual {
	d := vec()
	VMOVUPS(a, d)
	VFMADD213PS(c, b, d)
	return d
}

// horner evaluates the polynomial with coefficients c (highest degree first) at x.
func horner(x Register, c ...float64) VecVirtual {
	p := ld(c32(float32(c[0])))
	for _, k := range c[1:] {
		VFMADD213PS(c32(float32(k)), x, p) // p = x*p + k
	}
	return p
}

// Bitwise operations (AVX-512F has them only as integer instructions).
func and(a Op, b Register) VecVirtual {
	d := vec()
	if cur.wide {
		VPANDD(a, b, d)
	} else {
		VPAND(a, b, d)
	}
	return d
}

func or(a Op, b Register) VecVirtual {
	d := vec()
	if cur.wide {
		VPORD(a, b, d)
	} else {
		VPOR(a, b, d)
	}
	return d
}

func xor(a Op, b Register) VecVirtual {
	d := vec()
	if cur.wide {
		VPXORD(a, b, d)
	} else {
		VPXOR(a, b, d)
	}
	return d
}

func isub(b Register, a Op) VecVirtual { d := vec(); VPSUBD(a, b, d); return d } // b - a, int32 lanes
func shl(n int, a Register) VecVirtual { d := vec(); VPSLLD(U8(n), a, d); return d }
func shr(n int, a Register) VecVirtual { d := vec(); VPSRAD(U8(n), a, d); return d }
func cvtif(a Register) VecVirtual      { d := vec(); VCVTDQ2PS(a, d); return d }

// Comparison predicates of VCMPPS.
const (
	cmpEQ  = 0x00 // ordered, equal
	cmpLT  = 0x11 // ordered, less
	cmpLE  = 0x12
	cmpNEQ = 0x0c // ordered, not equal (false for NaN)
	cmpGT  = 0x1e
)

// mask is a lane mask: a vector register (AVX2) or a K register (AVX-512).
type mask struct{ r Register }

// cmp returns the mask of a PRED b (b may be memory).
func cmp(pred int, a Register, b Op) mask {
	if cur.wide {
		k := K()
		VCMPPS(U8(pred), b, a, k)
		return mask{k}
	}
	d := vec()
	VCMPPS(U8(pred), b, a, d)
	return mask{d}
}

func mand(a, b mask) mask {
	if cur.wide {
		k := K()
		KANDW(a.r, b.r, k)
		return mask{k}
	}
	d := vec()
	VANDPS(a.r, b.r, d)
	return mask{d}
}

// sign returns the mask of the lanes of v whose sign bit is set.
func sign(v Register) mask {
	if cur.wide {
		k := K()
		VPTESTMD(cbits(0x80000000), v, k)
		return mask{k}
	}
	return mask{v} // VBLENDVPS reads each lane's sign bit
}

// blend returns m ? t : f per lane.
func blend(m mask, f, t Register) VecVirtual {
	d := vec()
	if cur.wide {
		VBLENDMPS(t, f, m.r, d)
	} else {
		VBLENDVPS(m.r, t, f, d)
	}
	return d
}

// allOr jumps to label unless every lane of m is set.
func allOr(m mask, label string) {
	if cur.wide {
		KORTESTW(m.r, m.r)
		JCC(LabelRef(label)) // CF is set when every bit is
		return
	}
	g := GP32()
	VMOVMSKPS(m.r, g)
	CMPL(g, U8(0xff))
	JNE(LabelRef(label))
}

// noNaN is the check of kernels whose vector code is exact for everything but NaN.
func noNaN(x Register) mask { return cmp(cmpEQ, x, x) }

// within is the mask of lo < x < hi.
func within(x Register, lo, hi float32) mask {
	return mand(cmp(cmpGT, x, c32(lo)), cmp(cmpLT, x, c32(hi)))
}

func above(x Register, lo float32) mask { return cmp(cmpGT, x, c32(lo)) }

// Float32 constants of the scalar functions (ops/elementwise_math.go, activation_math.go).
const (
	log2e      = 1.44269504088896341
	ln2hi      = 0.693359375
	ln2lo      = -2.12194440e-4
	roundShift = 0x1.8p23
	geluC0     = 0.7978845608028654
	geluC1     = geluC0 * 0.044715
	sqrtHalf   = 0.70710678118654752
)

// exp returns e**x for lanes in (-87, 88), the scalar expf's steps: k = round(x*log2e) by
// the round-shift trick, r = x - k*ln2 in two FMA steps, Cephes' polynomial, scale by 2**k.
func exp(x Register) VecVirtual {
	t := fma(x, ld(c32(log2e)), c32(roundShift))
	fk := sub(t, c32(roundShift))
	r := vec()
	VMOVUPS(x, r)
	VFNMADD231PS(c32(ln2hi), fk, r) // r -= fk*ln2hi
	VFNMADD231PS(c32(ln2lo), fk, r)
	p := horner(r, 1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
	r2 := mul(r, r)
	VFMADD213PS(r, r2, p) // p = p*r² + r
	p = add(c32(1), p)
	// 2**k: t's low mantissa bits hold k + the round shift's; (t - shift + 127) << 23.
	s := shl(23, isub(t, cbits(math.Float32bits(roundShift)-127)))
	return mul(s, p)
}

// tanh is tanhf for lanes without NaN: the odd polynomial below |x| = 0.625, else
// 1 - 2/(e**2|x| + 1) with x's sign, |x| capped at 9.02 where tanh rounds to ±1.
func tanh(x Register) VecVirtual {
	a := and(cbits(0x7fffffff), x)
	z := mul(x, x)
	p := horner(z, -5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1)
	p = mul(z, p)
	VFMADD213PS(x, x, p) // p = p*x + x
	s := vmin(c32(9.02), a)
	e := exp(add(s, s))
	t := sub(ld(c32(1)), div(ld(c32(2)), add(c32(1), e)))
	t = or(and(cbits(0x80000000), x), t)
	return blend(cmp(cmpLT, a, c32(0.625)), t, p)
}

// sigmoid is 1 / (1 + e**-x).
func sigmoid(x Register) VecVirtual {
	e := exp(xor(cbits(0x80000000), x))
	return div(ld(c32(1)), add(c32(1), e))
}

// log is logf for positive normal lanes (Cephes logf as log8 of the scalar kernels).
func logv(x Register) VecVirtual {
	e := isub(shr(23, x), cbits(126))                      // x = fr * 2**e, fr in [0.5, 1)
	fr := or(cbits(0x3f000000), and(cbits(0x007fffff), x)) // fr
	low := cmp(cmpLT, fr, c32(sqrtHalf))
	f := blend(low, sub(fr, c32(1)), sub(add(fr, fr), c32(1)))
	fe := cvtif(blend(low, e, isub(e, cbits(1))))
	z := mul(f, f)
	y := horner(f, 7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)
	y = mul(z, mul(f, y))
	VFMADD231PS(c32(ln2lo), fe, y) // y += fe*ln2lo
	VFNMADD231PS(c32(0.5), z, y)   // y -= 0.5*z
	y = add(f, y)
	VFMADD231PS(c32(ln2hi), fe, y)
	return y
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
		e1 := exp(xor(cbits(0x80000000), mul(h, h)))
		e2 := exp(xor(cbits(0x80000000), mul(sub(b, h), add(b, h))))
		c := mul(p, mul(q, mul(e2, e1)))
		neg := cmp(cmpLT, z, c32(0))
		c = blend(neg, sub(ld(c32(2)), c), c)
		c = blend(small, c, r)
		VMOVUPS(c, out)
	}
	Label(done)
	return out
}

// unary describes an elementwise kernel y = f(x).
type unary struct {
	name   string
	check  func(x Register) mask // the fast range; nil: every lane
	body   func(x Register, label string) VecVirtual
	params []string // float32 parameters after nt, broadcast into pv[i] for the body
}

var pv [2]VecVirtual // the broadcast parameters of a unary

func unaries() {
	for _, u := range []unary{
		{"exp", func(x Register) mask { return within(x, -87, 88) }, func(x Register, _ string) VecVirtual { return exp(x) }, nil},
		{"sigmoid", func(x Register) mask { return within(x, -87, 87) }, func(x Register, _ string) VecVirtual { return sigmoid(x) }, nil},
		{"silu", func(x Register) mask { return within(x, -87, 87) }, func(x Register, _ string) VecVirtual { return mul(x, sigmoid(x)) }, nil},
		{"tanh", noNaN, func(x Register, _ string) VecVirtual { return tanh(x) }, nil},
		{"gelu", func(x Register) mask {
			// -2z within exp's fast range: |x| below about 9.9
			return within(x, -9.8, 9.8)
		}, func(x Register, _ string) VecVirtual {
			z := mul(x, fma(ld(c32(geluC1)), mul(x, x), c32(geluC0)))
			e := exp(mul(c32(-2), z))
			return div(x, add(c32(1), e)) // x / (1 + e**-2z), as geluf
		}, nil},
		{"geluErf", func(x Register) mask {
			lim := float32(9) / float32(sqrtHalf)
			return within(x, -lim, lim)
		}, func(x Register, l string) VecVirtual {
			return mul(erf1p(mul(c32(sqrtHalf), x), l), mul(c32(0.5), x))
		}, nil},
		{"softplus", func(x Register) mask { return above(x, -87) }, func(x Register, _ string) VecVirtual {
			u := exp(vmin(c32(20), x))
			w := add(c32(1), u)
			l := mul(logv(w), div(u, sub(w, c32(1))))  // log1pf: log(w) * u/(w-1)
			l = blend(cmp(cmpNEQ, w, c32(1)), u, l)    // w == 1: u
			return blend(cmp(cmpLE, x, c32(20)), x, l) // x > 20: x
		}, nil},
		{"mish", func(x Register) mask { return above(x, -87) }, func(x Register, _ string) VecVirtual {
			e := exp(vmin(c32(20), x))
			m := mul(e, add(c32(2), e))
			return mul(x, div(m, add(c32(2), m)))
		}, nil},
		{"elu", func(x Register) mask { return above(x, -87) }, func(x Register, _ string) VecVirtual {
			z0 := zero()
			e := sub(exp(vmin(z0, x)), c32(1))
			return fma(pv[0], e, vmax(z0, x)) // alpha*(e-1) + max(x, 0)
		}, []string{"alpha"}},
		{"hardswish", noNaN, func(x Register, _ string) VecVirtual {
			z0 := zero()
			c := vmin(c32(6), vmax(z0, add(c32(3), x)))
			return div(mul(c, x), c32(6))
		}, nil},
		{"relu", nil, func(x Register, _ string) VecVirtual {
			// max with +0 as the first source returns x for NaN and both zeros; clearing the
			// sign bit maps -0 to +0 and keeps NaN: Go's max(x, 0) bit for bit.
			z0 := zero()
			m := vec()
			VMAXPS(x, z0, m)
			return and(cbits(0x7fffffff), m)
		}, nil},
		{"leakyRelu", nil, func(x Register, _ string) VecVirtual {
			return mul(blend(sign(x), ld(c32(1)), pv[0]), x) // lanes with the sign bit set: x*s
		}, []string{"s"}},
		{"clamp", noNaN, func(x Register, _ string) VecVirtual {
			return minExact(pv[1], maxExact(pv[0], x)) // Go's min(max(x, lo), hi), signed zeros included
		}, []string{"lo", "hi"}},
	} {
		unaryKernel(u)
	}
}

// loop emits the common frame: DI = y, SI = x, CX = full-vector element count, AX = i;
// body(vector offset register) for each vector, storing with VMOVUPS or VMOVNTPS.
func unaryKernel(u unary) {
	sig := "func(y, x []float32, nt int"
	for _, p := range u.params {
		sig += ", " + p + " float32"
	}
	sig += ") int"
	name := u.name + cur.name
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(fmt.Sprintf("%s computes y = %s(x) over the full %d-lane vectors of x (see asmgen).", name, u.name, cur.lanes))
	y := Load(Param("y").Base(), GP64())
	x := Load(Param("x").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	ANDQ(I32(^(cur.lanes - 1)), n)
	nt := Load(Param("nt"), GP64())
	for k, p := range u.params {
		pv[k] = bc(Load(Param(p), XMM()))
	}
	i := GP64()
	XORQ(i, i)
	for _, stream := range []bool{false, true} {
		lp := fmt.Sprintf("%s_loop%v", name, stream)
		if !stream {
			TESTQ(nt, nt)
			JNZ(LabelRef(fmt.Sprintf("%s_looptrue", name)))
		}
		Label(lp)
		CMPQ(i, n)
		JAE(LabelRef(name + "_done"))
		v := vec()
		VMOVUPS(Mem{Base: x, Index: i, Scale: 4}, v)
		if u.check != nil {
			allOr(u.check(v), name+"_done")
		}
		r := u.body(v, fmt.Sprintf("%s_b%v", name, stream))
		if stream {
			VMOVNTPS(r, Mem{Base: y, Index: i, Scale: 4})
		} else {
			VMOVUPS(r, Mem{Base: y, Index: i, Scale: 4})
		}
		ADDQ(U8(cur.lanes), i)
		JMP(LabelRef(lp))
	}
	Label(name + "_done")
	TESTQ(nt, nt)
	JZ(LabelRef(name + "_ret"))
	SFENCE()
	Label(name + "_ret")
	Store(i, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
