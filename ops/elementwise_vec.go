//go:build goexperiment.simd && amd64

package ops

import "simd/archsimd"

// 8-lane AVX2+FMA versions of the transcendental kernels, built with GOEXPERIMENT=simd on
// amd64. Scalar Go computes one expf in about forty instructions, several times the memory
// time of an element on two cores; eight lanes per instruction bring these kernels back to
// memory-bound. Each vecXxx does the full 8-lane blocks of x and returns how many elements
// it wrote; the caller's scalar loop does the rest. A block with a lane outside the vector
// code's fast range (NaN, or where expf needs its edge path) is done by the scalar function,
// so results agree with the scalar kernels to a few ulp everywhere (elementwise_vec_test.go).

// vecOK reports whether the CPU runs the 8-lane kernels.
var vecOK = archsimd.X86.AVX2() && archsimd.X86.FMA()

type f8 = archsimd.Float32x8

func bc(v float32) f8 { return archsimd.BroadcastFloat32x8(v) }

var (
	vLog2e, vLn2hi, vLn2lo   = bc(log2e), bc(ln2hi), bc(ln2lo)
	vP0, vP1, vP2            = bc(1.9875691500e-4), bc(1.3981999507e-3), bc(8.3334519073e-3)
	vP3, vP4, vP5            = bc(4.1665795894e-2), bc(1.6666665459e-1), bc(5.0000001201e-1)
	vZero, vOne, vTwo, vHalf = bc(0), bc(1), bc(2), bc(0.5)
	vExpLo, vExpHi           = bc(-87), bc(88) // expf's fast range
	vSigLo, vSigHi           = bc(-87), bc(87) // -x within expf's fast range
	vBias                    = archsimd.BroadcastInt32x8(127)
	vAbsMask                 = archsimd.BroadcastInt32x8(0x7fffffff)
	vSignMask                = archsimd.BroadcastInt32x8(-0x80000000)
	vTanhSmall, vTanhSat     = bc(0.625), bc(9.02)
	vT0, vT1, vT2            = bc(-5.70498872745e-3), bc(2.06390887954e-2), bc(-5.37397155531e-2)
	vT3, vT4                 = bc(1.33314422036e-1), bc(-3.33332819422e-1)
	vGeluC0, vGeluC1         = bc(geluC0), bc(geluC1)
)

// exp8 is expf for lanes in (-87, 88): the same reduction and polynomial, with FMA.
func exp8(x f8) f8 {
	t := x.Mul(vLog2e).RoundToEven()
	r := x.Sub(t.Mul(vLn2hi)).Sub(t.Mul(vLn2lo))
	p := vP0.MulAdd(r, vP1).MulAdd(r, vP2).MulAdd(r, vP3).MulAdd(r, vP4).MulAdd(r, vP5)
	p = p.Mul(r.Mul(r)).Add(r).Add(vOne)
	return p.Mul(t.ConvertToInt32().Add(vBias).ShiftAllLeft(23).AsFloat32x8())
}

// within reports whether every lane of x is in (lo, hi); NaN is not.
func within(x, lo, hi f8) bool { return x.Greater(lo).And(x.Less(hi)).ToBits() == 0xff }

// noNaN reports whether no lane of x is NaN.
func noNaN(x f8) bool { return x.Equal(x).ToBits() == 0xff }

// tanh8 is tanhf: the odd polynomial below 0.625, 1 - 2/(e**2|x| + 1) with x's sign above,
// |x| saturated at 9.02 where tanh rounds to ±1. NaN lanes must not reach it.
func tanh8(x f8) f8 {
	a := x.AsInt32x8().And(vAbsMask).AsFloat32x8()
	z := x.Mul(x)
	p := vT0.MulAdd(z, vT1).MulAdd(z, vT2).MulAdd(z, vT3).MulAdd(z, vT4).Mul(z).MulAdd(x, x)
	s := a.Min(vTanhSat)
	e := exp8(s.Add(s))
	t := vOne.Sub(vTwo.Div(e.Add(vOne)))
	t = t.AsInt32x8().Or(x.AsInt32x8().And(vSignMask)).AsFloat32x8()
	return p.Merge(t, a.Less(vTanhSmall))
}

// scalarBlock does one block with the scalar function: the rare lanes the vector code
// leaves out.
func scalarBlock(y, x []float32, f func(float32) float32) {
	for i, v := range x {
		y[i] = f(v)
	}
}

func vecExp(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !within(v, vExpLo, vExpHi) {
			scalarBlock(y[i:i+8], x[i:i+8], expf)
			continue
		}
		exp8(v).StoreSlice(y[i:])
	}
	return n
}

func vecSigmoid(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !within(v, vSigLo, vSigHi) {
			scalarBlock(y[i:i+8], x[i:i+8], sigmoidf)
			continue
		}
		vOne.Div(vOne.Add(exp8(vZero.Sub(v)))).StoreSlice(y[i:])
	}
	return n
}

func vecSilu(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !within(v, vSigLo, vSigHi) {
			scalarBlock(y[i:i+8], x[i:i+8], siluf)
			continue
		}
		v.Mul(vOne.Div(vOne.Add(exp8(vZero.Sub(v))))).StoreSlice(y[i:])
	}
	return n
}

func vecTanh(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !noNaN(v) {
			scalarBlock(y[i:i+8], x[i:i+8], tanhf)
			continue
		}
		tanh8(v).StoreSlice(y[i:])
	}
	return n
}

func vecGelu(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !noNaN(v) {
			scalarBlock(y[i:i+8], x[i:i+8], geluf)
			continue
		}
		t := tanh8(v.Mul(vGeluC1.MulAdd(v.Mul(v), vGeluC0)))
		v.Mul(vHalf).Mul(vOne.Add(t)).StoreSlice(y[i:])
	}
	return n
}

// vecExpSum writes exp(x - m) into y (y may be nil: only sum) for the full blocks of x and
// returns how many elements it did and their sum, accumulated in float64 lanes.
func vecExpSum(y, x []float32, m float32) (int, float64) {
	if !vecOK {
		return 0, 0
	}
	n := len(x) &^ 7
	vm := bc(m)
	acc := archsimd.BroadcastFloat64x4(0)
	for i := 0; i < n; i += 8 {
		d := archsimd.LoadFloat32x8Slice(x[i:]).Sub(vm)
		var e f8
		if within(d, vExpLo, vExpHi) {
			e = exp8(d)
		} else {
			var blk [8]float32
			d.Store(&blk)
			scalarBlock(blk[:], blk[:], expf)
			e = archsimd.LoadFloat32x8(&blk)
		}
		if y != nil {
			e.StoreSlice(y[i:])
		}
		acc = acc.Add(e.GetLo().ConvertToFloat64()).Add(e.GetHi().ConvertToFloat64())
	}
	var lanes [4]float64
	acc.Store(&lanes)
	return n, (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

// load8 loads the block at i of x, or broadcasts x[0] when x is a single broadcast element.
func load8(x []float32, i int, scalar bool, b f8) f8 {
	if scalar {
		return b
	}
	return archsimd.LoadFloat32x8Slice(x[i:])
}

func vecRelu(y, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !noNaN(v) { // VMAXPS would turn NaN into 0; torch keeps it
			scalarBlock(y[i:i+8], x[i:i+8], func(v float32) float32 { return max(v, 0) })
			continue
		}
		v.Max(vZero).StoreSlice(y[i:])
	}
	return n
}

// vecLeakyRelu scales the lanes whose sign bit is set by s, as the scalar kernel.
func vecLeakyRelu(y, x []float32, s float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	vs := bc(s)
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		neg := v.AsInt32x8().Less(archsimd.BroadcastInt32x8(0)) // the sign bit, as the scalar kernel reads it
		v.Mul(vs.Merge(vOne, neg)).StoreSlice(y[i:])
	}
	return n
}

func vecClamp(y, x []float32, lo, hi float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	vlo, vhi := bc(lo), bc(hi)
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !noNaN(v) {
			scalarBlock(y[i:i+8], x[i:i+8], func(v float32) float32 { return min(max(v, lo), hi) })
			continue
		}
		v.Max(vlo).Min(vhi).StoreSlice(y[i:])
	}
	return n
}

// vecArith computes y = a ∘ b over the full blocks of y, where a and b are each either as
// long as y or a single broadcast element. The operator switch runs once per block and is
// always predicted; IEEE arithmetic is the same in every lane as in scalar code, so the
// result is bit-identical to the scalar loops.
func vecArith(op int, y, a, b []float32) int {
	if !vecOK {
		return 0
	}
	n := len(y) &^ 7
	as, bs := len(a) == 1 && len(y) > 1, len(b) == 1 && len(y) > 1
	ab, bb := bc(a[0]), bc(b[0])
	for i := 0; i < n; i += 8 {
		u, v := load8(a, i, as, ab), load8(b, i, bs, bb)
		var r f8
		switch op {
		case opAdd:
			r = u.Add(v)
		case opSub:
			r = u.Sub(v)
		case opMul:
			r = u.Mul(v)
		default:
			r = u.Div(v)
		}
		r.StoreSlice(y[i:])
	}
	return n
}

// vecScale computes y = x * s, and y = x * s * w when w is not nil.
func vecScale(y, x, w []float32, s float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	vs := bc(s)
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:]).Mul(vs)
		if w != nil {
			v = v.Mul(archsimd.LoadFloat32x8Slice(w[i:]))
		}
		v.StoreSlice(y[i:])
	}
	return n
}

// vecNormalize computes y = (x - m) * r, times w and plus b where they are not nil: the
// layer-norm output pass, in the scalar kernel's order of operations.
func vecNormalize(y, x, w, b []float32, m, r float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	vm, vr := bc(m), bc(r)
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:]).Sub(vm).Mul(vr)
		if w != nil {
			v = v.Mul(archsimd.LoadFloat32x8Slice(w[i:]))
		}
		if b != nil {
			v = v.Add(archsimd.LoadFloat32x8Slice(b[i:]))
		}
		v.StoreSlice(y[i:])
	}
	return n
}

// vecRope computes one rotate-half row: y1 = x1*c1 - x2*s1 and y2 = x2*c2 + x1*s2, all
// slices of the half length.
func vecRope(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x1) &^ 7
	for i := 0; i < n; i += 8 {
		a, b := archsimd.LoadFloat32x8Slice(x1[i:]), archsimd.LoadFloat32x8Slice(x2[i:])
		a.Mul(archsimd.LoadFloat32x8Slice(c1[i:])).Sub(b.Mul(archsimd.LoadFloat32x8Slice(s1[i:]))).StoreSlice(y1[i:])
		b.Mul(archsimd.LoadFloat32x8Slice(c2[i:])).Add(a.Mul(archsimd.LoadFloat32x8Slice(s2[i:]))).StoreSlice(y2[i:])
	}
	return n
}
