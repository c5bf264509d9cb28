package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// at is element i of the float32 slice at base p (or of float64 with scale 8).
func at(p, i Register) Mem   { return Mem{Base: p, Index: i, Scale: 4} }
func at64(p, i Register) Mem { return Mem{Base: p, Index: i, Scale: 8} }

// addInto64 adds the float64 halves lo and hi of a vector into the float64 slice at p from
// element i (a column fold's accumulator).
func addInto64(p, i Register, lo, hi VecVirtual) {
	VADDPD(at64(p, i), lo, lo)
	VADDPD(at64(p, i).Offset(cur.lanes*4), hi, hi)
	VMOVUPD(lo, at64(p, i))
	VMOVUPD(hi, at64(p, i).Offset(cur.lanes*4))
}

// cvtHalves converts the float32 vector at m to float64: the low and the high half.
func cvtHalves(m Mem) (lo, hi VecVirtual) {
	lo, hi = vec(), vec()
	VCVTPS2PD(m, lo)
	VCVTPS2PD(m.Offset(cur.lanes*2), hi)
	return lo, hi
}

// cvtReg is cvtHalves for a register.
func cvtReg(v VecVirtual) (lo, hi VecVirtual) {
	lo, hi = vec(), vec()
	h := half()
	if cur.wide {
		VCVTPS2PD(v.AsY(), lo)
		VEXTRACTF64X4(U8(1), v, h)
	} else {
		VCVTPS2PD(v.AsX(), lo)
		VEXTRACTF128(U8(1), v, h)
	}
	VCVTPS2PD(h, hi)
	return lo, hi
}

func zero() VecVirtual {
	z := vec()
	zeroVec(z)
	return z
}

// zeroVec sets z to zero.
func zeroVec(z Register) {
	if cur.wide {
		VPXORD(z, z, z)
	} else {
		VXORPS(z, z, z)
	}
}

// hsum64 adds the float64 lanes of a into an XMM register's low lane.
func hsum64(a VecVirtual) VecVirtual {
	x := XMM()
	if cur.wide {
		y := YMM()
		VEXTRACTF64X4(U8(1), a, y)
		VADDPD(y, a.AsY(), y)
		VEXTRACTF128(U8(1), y, x)
		VADDPD(x, y.AsX(), x)
	} else {
		VEXTRACTF128(U8(1), a, x)
		VADDPD(x, a.AsX(), x)
	}
	h := XMM()
	VUNPCKHPD(x, x, h)
	VADDSD(h, x, x)
	return x
}

// maxExact is Go's max of two vectors without NaN: VMAXPS returns its second source for
// equal lanes, so the two operand orders differ only for zeros of opposite sign, where
// their AND is +0 as Go's max returns.
// On AVX-512 it is one VRANGEPS (select the max, sign from the comparison), which orders -0
// below +0.
func maxExact(a, b Register) VecVirtual {
	if cur.wide {
		d := vec()
		VRANGEPS(U8(rangeMax), b, a, d)
		return d
	}
	r1, r2 := vec(), vec()
	VMAXPS(a, b, r1)
	VMAXPS(b, a, r2)
	return and(r1, r2)
}

// maxAcc sets acc = maxExact(acc, v), in place on AVX-512 (no move on the accumulator's
// chain).
func maxAcc(acc VecVirtual, v Register) {
	if cur.wide {
		VRANGEPS(U8(rangeMax), v, acc, acc)
		return
	}
	VMOVUPS(maxExact(acc, v), acc)
}

// VRANGEPS selectors: imm[1:0] min (0) or max (1), imm[3:2] = 01 the sign of the selected
// value (AVX512DQ, which internal/simd's AVX512 level requires).
const (
	rangeMin = 0b0100
	rangeMax = 0b0101
)

func maxExact64(a, b Register) VecVirtual {
	r1, r2 := vec(), vec()
	VMAXPD(a, b, r1)
	VMAXPD(b, a, r2)
	return and(r1, r2)
}

// loopTo emits `for ; i < n; i += lanes { body }` and returns after it; exit is the label
// the body jumps to to stop early.
func loopTo(name string, i, n Register, body func()) {
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	body()
	ADDQ(U8(cur.lanes), i)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
}

// loop2 is loopTo unrolled twice: body(k) handles the vector at offset k (0 or 1) of the
// current pair, with its own accumulators so that the two chains overlap; a last odd
// vector runs body(0) alone.
func loop2(name string, i, n Register, body func(k int)) {
	n2 := GP64()
	MOVQ(n, n2)
	ANDQ(I32(^(2*cur.lanes - 1)), n2)
	Label(name + "_loop2")
	CMPQ(i, n2)
	JAE(LabelRef(name + "_tail"))
	body(0)
	body(1)
	ADDQ(U8(2*cur.lanes), i)
	JMP(LabelRef(name + "_loop2"))
	Label(name + "_tail")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	body(0)
	ADDQ(U8(cur.lanes), i)
	Label(name + "_done")
}

// scaleVec is the scale pass's vector at element j (k vectors on) of x: x * s, times w in
// mode&1. normalizeVec is layer norm's: (x - m) * r, times w in mode&1, plus b in mode&2.
// The output passes and the fused kernels that stream them compute them alike, so the two
// are bit for bit the same.
func scaleVec(x, w Register, vs VecVirtual, mode int, j Register, k int) VecVirtual {
	v := mul(vat(x, j, k), vs)
	if mode&1 != 0 {
		v = mul(vat(w, j, k), v)
	}
	return v
}

func normalizeVec(x, w, b Register, vm, vr VecVirtual, mode int, j Register, k int) VecVirtual {
	v := mul(vr, sub(ld(vat(x, j, k)), vm))
	if mode&1 != 0 {
		v = mul(vat(w, j, k), v)
	}
	if mode&2 != 0 {
		v = add(vat(b, j, k), v)
	}
	return v
}

// outputLoops emits an output pass over the full vectors [i, n) (i = 0), labelled
// lbl+"_loop": step(j, k) is the k-th vector of the line at element j, stored into y in
// order, or, where nt, streamed in quarters (quartered) and then in order.
func outputLoops(lbl string, y, i, n Register, nt bool, step func(j Register, k int) VecVirtual) {
	if nt {
		Label(lbl + "_loop")
		quartered(quarters{name: lbl + "_s", seq: lbl + "_seq_loop",
			step:  func(j Register, k int, _ string) VecVirtual { return step(j, k) },
			store: func(v VecVirtual, j Register, k int) { VMOVNTPS(v, vat(y, j, k)) }}, i, n)
		lbl += "_seq"
	}
	loopTo(lbl, i, n, func() {
		if v := step(i, 0); nt {
			VMOVNTPS(v, at(y, i))
		} else {
			VMOVUPS(v, at(y, i))
		}
	})
}

// quarters describes a loop of quartered.
type quarters struct {
	name string // the prefix of its labels
	seq  string // the label of the kernel's in-order loop, placed right after it
	// step computes the k-th vector of the line at element j; where bails, it may jump
	// to bail, which restarts the in-order loop at 0 (after bailed, where not nil), which
	// then stops at the first such vector as before (at most the quarters' work again,
	// once per call)
	step     func(j Register, k int, bail string) VecVirtual
	bails    bool
	bailed   func()
	store    func(v VecVirtual, j Register, k int) // stores step's vector
	stepDone func()                                // where not nil: after each step's stores
}

// quartered emits the loop of a kernel over the full vectors [i, n) (i = 0 on entry), its
// output 64-byte aligned where it is streamed: four quarters of q elements, q = n/4 rounded
// down to whole 64-byte lines, walked side by side, then the vectors from 4q in order. Each
// step computes, for each vector of a line, that vector of all four quarters (step(j, k,
// bail): the k-th vector of the line at element j) and only then stores the four (store(v,
// j, k)).
//   - Four streams: the core's prefetchers and write-combining buffers follow each as its
//     own. A C model of a row op's output pass streamed more in quarters than walking its
//     row in order, and more than with two or eight streams.
//   - Loads before stores: the quarters of a large range lie a multiple of 4 KiB apart, as
//     x and y do, so a load right after the store of another quarter aliases it in the
//     low 12 address bits and waits for it; AVX2 kernels storing each quarter's vector
//     right after computing it ran far slower than the in-order loop.
//   - The norms' output passes and the one-input kernels gain on cpu-large rows against
//     our streaming copy (docs/history.md, "Quarters, loads before stores, and fused row
//     passes"); softmax's output pass does not: its row's reads come in its exp pass.
//
// It stores the quarters' lines one after the other, each line's vectors back to back: AVX2
// storing the first halves of the four lines, then the second halves, ran its streamed
// passes far slower (the write-combining buffers hold half lines).
// quartered leaves i at 4q, where the in-order loop (placed right after it) goes on.
func quartered(l quarters, i, n Register) {
	name := l.name
	perLine := 16 / cur.lanes
	q := GP64()
	MOVQ(n, q)
	SHRQ(U8(6), q)
	SHLQ(U8(4), q) // q = n/4 &^ 15
	j1, j2, j3 := GP64(), GP64(), GP64()
	MOVQ(q, j1)
	LEAQ(Mem{Base: q, Index: q, Scale: 1}, j2)
	LEAQ(Mem{Base: j2, Index: q, Scale: 1}, j3)
	Label(name + "_q")
	CMPQ(i, q)
	JAE(LabelRef(name + "_qdone"))
	js := []Register{i, j1, j2, j3}
	vs := make([][]VecVirtual, len(js))
	for k := range perLine {
		for t, j := range js {
			vs[t] = append(vs[t], l.step(j, k, name+"_bail"))
		}
	}
	for t, j := range js {
		for k := range perLine {
			l.store(vs[t][k], j, k)
		}
	}
	if l.stepDone != nil {
		l.stepDone()
	}
	for _, j := range js {
		ADDQ(U8(16), j)
	}
	JMP(LabelRef(name + "_q"))
	if l.bails {
		Label(name + "_bail")
		if l.bailed != nil {
			l.bailed()
		}
		XORQ(i, i)
		JMP(LabelRef(l.seq))
	}
	Label(name + "_qdone")
	MOVQ(j3, i)
}

// vat is the k-th vector from element i of the float32 slice at p.
func vat(p, i Register, k int) Mem { return at(p, i).Offset(k * cur.lanes * 4) }

func frame(name, sig, doc string) string {
	name += cur.name
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(fmt.Sprintf("%s %s (%d lanes; see asmgen).", name, doc, cur.lanes))
	return name
}

// fullN loads the length of slice param and rounds it down to whole vectors.
func fullN(param string) Register {
	n := Load(Param(param).Len(), GP64())
	ANDQ(I32(^(cur.lanes - 1)), n)
	return n
}

func counter() Register {
	i := GP64()
	XORQ(i, i)
	return i
}

func reductions() {
	// sum and sumSq: float64 accumulation, as the scalar kernels.
	{
		name := frame("sum", "func(x []float32) (int, float64)", "returns how many elements of x it summed and their sum in float64")
		x := Load(Param("x").Base(), GP64())
		n, i := fullN("x"), counter()
		acc := [4]VecVirtual{zero(), zero(), zero(), zero()}
		seg := [8]VecVirtual{}
		for k := range seg {
			seg[k] = zero()
		}
		segments(name, x, n, i, func(k int, m Mem) {
			lo, hi := cvtHalves(m)
			VADDPD(lo, seg[2*k], seg[2*k])
			VADDPD(hi, seg[2*k+1], seg[2*k+1])
		})
		for k := 0; k < 4; k++ {
			VADDPD(seg[2*k+1], seg[2*k], seg[2*k])
		}
		VADDPD(seg[2], seg[0], seg[0])
		VADDPD(seg[6], seg[4], seg[4])
		VADDPD(seg[4], seg[0], acc[0])
		loop2(name, i, n, func(k int) {
			lo, hi := cvtHalves(vat(x, i, k))
			VADDPD(lo, acc[2*k], acc[2*k])
			VADDPD(hi, acc[2*k+1], acc[2*k+1])
		})
		VADDPD(acc[1], acc[0], acc[0])
		VADDPD(acc[3], acc[2], acc[2])
		VADDPD(acc[2], acc[0], acc[0])
		Store(i, ReturnIndex(0))
		Store(hsum64(acc[0]), ReturnIndex(1))
		VZEROUPPER()
		RET()
	}
	{
		// sumSq: rms_norm's statistics pass, on a row the previous row's output pass
		// prefetched, in the segments' walk as varRow's (so that its fused form streams
		// the output pass in four streams too). Prefetching the next row here as well was
		// slower on RMSNormFwd cpu-large: the output pass's prefetches are enough, and these
		// only compete with its streamed writes.
		name := frame("sumSq", "func(x []float32) (int, float64)", "returns how many elements of x it did and the sum of x² in float64")
		sumSqLoops(name, Load(Param("x").Base(), GP64()), nil)
	}
	{
		// scaleSumSqOut: sumSq of x with rms_norm's output pass of the row before
		// alongside, streamed into y, as layer norm's normVarOut: the reads of one row and
		// the streamed writes of the other overlap (docs/history.md, "Quarters, loads
		// before stores, and fused row passes").
		name := frame("scaleSumSqOut", "func(y, a, w []float32, s float32, mode int, x []float32, pf *float32) (int, float64)", "streams y = a * s, times w (mode&1), over the full vectors of x while it returns how many elements of x it did and the sum of x² in float64, as sumSq; it prefetches pf + i for x + i; y must be 64-byte aligned")
		y, av, w := Load(Param("y").Base(), GP64()), Load(Param("a").Base(), GP64()), Load(Param("w").Base(), GP64())
		vs := bc(Load(Param("s"), XMM()))
		mode := Load(Param("mode"), GP64())
		x := Load(Param("x").Base(), GP64())
		pf := Load(Param("pf"), GP64())
		sumSqLoops(name, x, &rowOut{y: y, pf: pf, mode: mode, modes: 2, vec: func(md int, j Register, k int) VecVirtual {
			return scaleVec(av, w, vs, md, j, k)
		}})
	}
	{
		// max: stops (ok = false) at a vector holding a NaN, which VMAXPS would drop.
		name := frame("max", "func(x []float32) (int, float32, bool)", "returns how many elements of x it did and their maximum; false if it met a NaN")
		x := Load(Param("x").Base(), GP64())
		n, i := fullN("x"), counter()
		// One accumulator per segment, so that the four chains of maxExact overlap; the NaN
		// check takes one compare per pair of vectors (unordered: a NaN in either).
		var accs [4]VecVirtual
		for k := range accs {
			accs[k] = ld(cbits(0xff800000)) // -Inf
		}
		ok := GP8()
		MOVB(U8(1), ok)
		var vs [4]VecVirtual
		var pair mask
		segments(name, x, n, i, func(k int, m Mem) {
			vs[k] = ld(m)
			switch k {
			case 1:
				pair = cmp(cmpUNORD, vs[0], vs[1])
			case 3:
				anyOf(pair, cmp(cmpUNORD, vs[2], vs[3]), name+"_nan")
			}
			maxAcc(accs[k], vs[k])
		})
		loop2(name, i, n, func(k int) {
			v := ld(vat(x, i, k))
			allOr(noNaN(v), name+"_nan")
			maxAcc(accs[k], v)
		})
		acc := maxExact(maxExact(accs[0], accs[2]), maxExact(accs[1], accs[3]))
		// fold the lanes to one
		// fold the lanes to one with the same exact max on narrower registers
		var a8 VecVirtual = acc.AsY().(VecVirtual)
		if cur.wide {
			h := YMM()
			VEXTRACTF64X4(U8(1), acc, h)
			a8 = maxNarrow(YMM, h, acc.AsY())
		}
		h := XMM()
		VEXTRACTF128(U8(1), a8, h)
		m := maxNarrow(XMM, h, a8.AsX())
		s := XMM()
		VMOVHLPS(m, m, s)
		m = maxNarrow(XMM, s, m)
		VPSHUFD(U8(1), m, s)
		m = maxNarrow(XMM, s, m)
		Store(i, ReturnIndex(0))
		Store(m, ReturnIndex(1))
		Store(ok, ReturnIndex(2))
		VZEROUPPER()
		RET()
		Label(name + "_nan")
		XORQ(i, i)
		MOVB(U8(0), ok)
		Store(i, ReturnIndex(0))
		Store(ok, ReturnIndex(2))
		VZEROUPPER()
		RET()
	}
	{
		name := frame("sumCols", "func(acc []float64, x []float32) int", "adds x into acc (float64) elementwise over the full vectors of x")
		acc := Load(Param("acc").Base(), GP64())
		x := Load(Param("x").Base(), GP64())
		n, i := fullN("x"), counter()
		loopTo(name, i, n, func() {
			lo, hi := cvtHalves(at(x, i))
			addInto64(acc, i, lo, hi)
		})
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		// maxCols: stops at a vector of x holding a NaN; a NaN already in acc stays.
		name := frame("maxCols", "func(acc []float64, x []float32) int", "folds x into acc (float64) with max over the full vectors of x, stopping at one with a NaN")
		acc := Load(Param("acc").Base(), GP64())
		x := Load(Param("x").Base(), GP64())
		n, i := fullN("x"), counter()
		loopTo(name, i, n, func() {
			v := ld(at(x, i))
			allOr(noNaN(v), name+"_done")
			lo, hi := cvtHalves(at(x, i))
			for k, h := range []VecVirtual{lo, hi} {
				m := at64(acc, i).Offset(k * cur.lanes * 4)
				a := ld(m)
				r := maxExact64(a, h)
				keep := cmp64(cmpEQ, a, a)
				VMOVUPD(blend64(keep, a, r), m) // a NaN lane of acc keeps its NaN
			}
		})
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		name := frame("maxInto", "func(m, row []float32) int", "folds row into m with max over the full vectors of row, stopping at one with a NaN in either")
		mp := Load(Param("m").Base(), GP64())
		x := Load(Param("row").Base(), GP64())
		n, i := fullN("row"), counter()
		loopTo(name, i, n, func() {
			v, a := ld(at(x, i)), ld(at(mp, i))
			allOr(mand(noNaN(v), noNaN(a)), name+"_done")
			VMOVUPS(maxExact(a, v), at(mp, i))
		})
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		name := frame("varCols", "func(s1, s2, x0 []float64, row []float32) int", "adds d = row - x0 into s1 and d² into s2 (float64) over the full vectors of row")
		s1 := Load(Param("s1").Base(), GP64())
		s2 := Load(Param("s2").Base(), GP64())
		x0 := Load(Param("x0").Base(), GP64())
		x := Load(Param("row").Base(), GP64())
		n, i := fullN("row"), counter()
		loopTo(name, i, n, func() {
			lo, hi := cvtHalves(at(x, i))
			for k, d := range []VecVirtual{lo, hi} {
				off := k * cur.lanes * 4
				VSUBPD(at64(x0, i).Offset(off), d, d)
				a := vec()
				VADDPD(at64(s1, i).Offset(off), d, a)
				VMOVUPD(a, at64(s1, i).Offset(off))
				b := ld(at64(s2, i).Offset(off))
				VFMADD231PD(d, d, b)
				VMOVUPD(b, at64(s2, i).Offset(off))
			}
		})
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		// above: top-k's filter. Most elements of a long row fall below the running k-th
		// value; the scan skips them a vector at a time.
		name := frame("above", "func(x []float32, t float32) int", "returns the offset of the first full vector of x with a lane above t or NaN (not x <= t), or the full-vector length when none has")
		x := Load(Param("x").Base(), GP64())
		vt := bc(Load(Param("t"), XMM()))
		n, i := fullN("x"), counter()
		loopTo(name, i, n, func() {
			m := cmp(0x06, ld(at(x, i)), vt) // NLE_UQ: not x <= t, NaN included
			if cur.wide {
				KORTESTW(m.r, m.r)
			} else {
				g := GP32()
				VMOVMSKPS(m.r, g)
				TESTL(g, g)
			}
			JNZ(LabelRef(name + "_done"))
		})
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		name := frame("varRow", "func(x []float32, x0 float64) (int, float64, float64)", "returns how many elements of x it did and Σ(x - x0), Σ(x - x0)² in float64")
		x := Load(Param("x").Base(), GP64())
		v0 := vec()
		VBROADCASTSD(Load(Param("x0"), XMM()), v0)
		varRowLoops(name, x, v0, nil)
	}
	{
		// normVarOut: varRow of x with layer norm's output pass of the row before
		// alongside, streamed into y, as softmax's expSumOut does for its exp pass, at
		// AVX2 too: the reads of one row and the streamed writes of the other overlap
		// (docs/history.md, "Quarters, loads before stores, and fused row passes").
		name := frame("normVarOut", "func(y, a, w, b []float32, m, r float32, mode int, x []float32, x0 float64, pf *float32) (int, float64, float64)", "streams y = (a - m) * r, times w (mode&1), plus b (mode&2), over the full vectors of x while it returns how many elements of x it did and Σ(x - x0), Σ(x - x0)² in float64, as varRow; it prefetches pf + i for x + i; y must be 64-byte aligned")
		y, av := Load(Param("y").Base(), GP64()), Load(Param("a").Base(), GP64())
		w, b := Load(Param("w").Base(), GP64()), Load(Param("b").Base(), GP64())
		vm, vr := bc(Load(Param("m"), XMM())), bc(Load(Param("r"), XMM()))
		mode := Load(Param("mode"), GP64())
		x := Load(Param("x").Base(), GP64())
		v0 := vec()
		VBROADCASTSD(Load(Param("x0"), XMM()), v0)
		pf := Load(Param("pf"), GP64())
		varRowLoops(name, x, v0, &rowOut{y: y, pf: pf, mode: mode, modes: 4, vec: func(md int, j Register, k int) VecVirtual {
			return normalizeVec(av, w, b, vm, vr, md, j, k)
		}})
	}
}

// rowOut is the output pass a fused statistics kernel streams into y alongside its walk
// over x: one copy of the walk for each mode md < modes (dispatched on the mode register),
// vec(md, j, k) the output's vector at element j (k vectors on); pf + i is prefetched
// (into L2, as the output passes do) for the vector at x + i.
type rowOut struct {
	y, pf, mode Register
	modes       int
	vec         func(md int, j Register, k int) VecVirtual
}

// statLoops emits a row statistics walk over the full vectors [i, n) of x (i = 0): the
// segments' steps, seg(k, j, v) for the vector v of segment k's line at element j, then
// loop2's, rest(k);
// with out, one copy of both for each of out's modes, computing and streaming out's vector
// at every element as well (in the segments' steps all four after the step's loads, which
// a store before them would 4K-alias), so that the statistics are the same operations, bit
// for bit, as without. It falls through to name+"_end" (a mode out of range jumps there
// with i = 0).
func statLoops(name string, n, i Register, out *rowOut, seg func(k int, j Register, v int), rest func(k int)) {
	modes := []int{-1}
	if out != nil {
		modes = nil
		for md := range out.modes {
			modes = append(modes, md)
			CMPQ(out.mode, U8(md))
			JE(LabelRef(fmt.Sprintf("%s_m%d_seg", name, md)))
		}
		JMP(LabelRef(name + "_end"))
	}
	for _, md := range modes {
		lbl := name
		if md >= 0 {
			lbl = fmt.Sprintf("%s_m%d", name, md)
			Label(lbl + "_seg")
		}
		var outs [4][]VecVirtual
		var js [4]Register
		segmentsAt(lbl, n, i, func(k int, j Register, v int) {
			seg(k, j, v)
			if out != nil {
				outs[k], js[k] = append(outs[k], out.vec(md, j, v)), j
				if v == 0 {
					PREFETCHT1(at(out.pf, j))
				}
			}
		}, func() {
			for k := range outs {
				for v, o := range outs[k] {
					VMOVNTPS(o, vat(out.y, js[k], v))
				}
				outs[k] = nil
			}
		})
		loop2(lbl, i, n, func(k int) {
			rest(k)
			if out != nil {
				PREFETCHT1(vat(out.pf, i, k))
				VMOVNTPS(out.vec(md, i, k), vat(out.y, i, k))
			}
		})
		if out != nil {
			JMP(LabelRef(name + "_end"))
		}
	}
	Label(name + "_end")
}

// sumSqLoops emits sumSq's walk over the full vectors of x and its return: in the
// segments' steps two chains a segment (its halves), then loop2's four; with out (not nil),
// also streaming out's vectors at the same elements (statLoops).
func sumSqLoops(name string, x Register, out *rowOut) {
	n, i := fullN("x"), counter()
	var seg [8]VecVirtual
	for k := range seg {
		seg[k] = zero()
	}
	acc := [4]VecVirtual{zero(), zero(), zero(), zero()}
	statLoops(name, n, i, out, func(k int, j Register, v int) {
		lo, hi := cvtHalves(vat(x, j, v))
		VFMADD231PD(lo, lo, seg[2*k])
		VFMADD231PD(hi, hi, seg[2*k+1])
	}, func(k int) {
		lo, hi := cvtHalves(vat(x, i, k))
		VFMADD231PD(lo, lo, acc[2*k])
		VFMADD231PD(hi, hi, acc[2*k+1])
	})
	for k := range seg[:4] {
		VADDPD(seg[2*k+1], seg[2*k], seg[2*k])
	}
	VADDPD(seg[2], seg[0], seg[0])
	VADDPD(seg[6], seg[4], seg[4])
	VADDPD(seg[4], seg[0], seg[0])
	VADDPD(acc[1], acc[0], acc[0])
	VADDPD(acc[3], acc[2], acc[2])
	VADDPD(acc[2], acc[0], acc[0])
	VADDPD(seg[0], acc[0], acc[0])
	Store(i, ReturnIndex(0))
	Store(hsum64(acc[0]), ReturnIndex(1))
	VZEROUPPER()
	RET()
}

// varRowLoops emits varRow's walk over the full vectors of x, shift v0, and its return;
// with out (not nil), also streaming out's vectors at the same elements (statLoops).
func varRowLoops(name string, x Register, v0 VecVirtual, out *rowOut) {
	n, i := fullN("x"), counter()
	a, b, c, d := zero(), zero(), zero(), zero()
	a2, b2, c2, d2 := zero(), zero(), zero(), zero()
	// The segments' walk: segment k adds into one sum and one square chain of its own
	// (both halves in turn), so the four segments keep 8 chains going.
	sk := [4]VecVirtual{a, b, a2, b2}
	qk := [4]VecVirtual{c, d, c2, d2}
	statLoops(name, n, i, out, func(k int, j Register, v int) {
		lo, hi := cvtHalves(vat(x, j, v))
		VSUBPD(v0, lo, lo)
		VSUBPD(v0, hi, hi)
		VADDPD(lo, sk[k], sk[k])
		VFMADD231PD(lo, lo, qk[k])
		VADDPD(hi, sk[k], sk[k])
		VFMADD231PD(hi, hi, qk[k])
	}, func(k int) {
		lo, hi := cvtHalves(vat(x, i, k))
		VSUBPD(v0, lo, lo)
		VSUBPD(v0, hi, hi)
		s1, s2, q1, q2 := a, b, c, d
		if k == 1 {
			s1, s2, q1, q2 = a2, b2, c2, d2
		}
		VADDPD(lo, s1, s1)
		VADDPD(hi, s2, s2)
		VFMADD231PD(lo, lo, q1)
		VFMADD231PD(hi, hi, q2)
	})
	VADDPD(b, a, a)
	VADDPD(d, c, c)
	VADDPD(b2, a2, a2)
	VADDPD(d2, c2, c2)
	VADDPD(a2, a, a)
	VADDPD(c2, c, c)
	Store(i, ReturnIndex(0))
	Store(hsum64(a), ReturnIndex(1))
	Store(hsum64(c), ReturnIndex(2))
	VZEROUPPER()
	RET()
}

// maxNarrow is maxExact on registers of a narrower width (VEX encoded).
func maxNarrow(alloc func() VecVirtual, a, b Register) VecVirtual {
	r1, r2 := alloc(), alloc()
	VMAXPS(a, b, r1)
	VMAXPS(b, a, r2)
	VANDPS(r1, r2, r1)
	return r1
}

// blend64 is blend for float64 lanes.
func blend64(m mask, f, t Register) VecVirtual {
	d := vec()
	if cur.wide {
		VBLENDMPD(t, f, m.r, d)
	} else {
		VBLENDVPD(m.r, t, f, d)
	}
	return d
}

// minExact is Go's min of two vectors without NaN: the OR of both operand orders, -0 for
// zeros of opposite sign (see maxExact).
func minExact(a, b Register) VecVirtual {
	if cur.wide {
		d := vec()
		VRANGEPS(U8(rangeMin), b, a, d)
		return d
	}
	r1, r2 := vec(), vec()
	VMINPS(a, b, r1)
	VMINPS(b, a, r2)
	return or(r1, r2)
}

// cmp64 is cmp for float64 lanes.
func cmp64(pred int, a Register, b Op) mask {
	if cur.wide {
		k := K()
		VCMPPD(U8(pred), b, a, k)
		return mask{r: k}
	}
	d := vec()
	VCMPPD(U8(pred), b, a, d)
	return mask{r: d}
}

func binaries() {
	// y = a ∘ b; mode 0: both full, 1: a is one broadcast element, 2: b is.
	for _, op := range []struct {
		name string
		emit func(a Op, b, d Register) // d = b ∘ a in Go assembly operand order
	}{
		{"add", func(a Op, b, d Register) { VADDPS(a, b, d) }},
		{"sub", func(a Op, b, d Register) { VSUBPS(a, b, d) }},
		{"mul", func(a Op, b, d Register) { VMULPS(a, b, d) }},
		{"div", func(a Op, b, d Register) { VDIVPS(a, b, d) }},
	} {
		name := frame(op.name, "func(y, a, b []float32, mode int) int", "computes y = a "+op.name+" b over the full vectors of y (mode 1: a is one element, 2: b is)")
		y := Load(Param("y").Base(), GP64())
		a := Load(Param("a").Base(), GP64())
		b := Load(Param("b").Base(), GP64())
		mode := Load(Param("mode"), GP64())
		n, i := fullN("y"), counter()
		va, vb := bc(Mem{Base: a}), bc(Mem{Base: b}) // the caller guarantees one vector of y
		CMPQ(mode, U8(1))
		JE(LabelRef(name + "_sa_loop"))
		CMPQ(mode, U8(2))
		JE(LabelRef(name + "_sb_loop"))
		loopTo(name, i, n, func() {
			u, r := ld(at(a, i)), vec()
			op.emit(at(b, i), u, r)
			VMOVUPS(r, at(y, i))
		})
		JMP(LabelRef(name + "_ret"))
		loopTo(name+"_sa", i, n, func() {
			r := vec()
			op.emit(at(b, i), va, r)
			VMOVUPS(r, at(y, i))
		})
		JMP(LabelRef(name + "_ret"))
		loopTo(name+"_sb", i, n, func() {
			u, r := ld(at(a, i)), vec()
			op.emit(vb, u, r)
			VMOVUPS(r, at(y, i))
		})
		Label(name + "_ret")
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		// scale: y = x * s (* w when hasW), streamed when nt != 0: rms_norm's output pass
		// and softmax's in-cache rescale. Each step prefetches the same vector of pf (see
		// prefetchNext).
		// The output passes of the row ops (scale, normalize) do not fence: their callers
		// stream row after row and fence once per worker (ops.fence). A fence per row
		// waited for each row's streamed lines to reach memory before the next row's
		// first pass, which then could not overlap them.
		name := frame("scale", "func(y, x, w, pf []float32, s float32, hasW, nt int) int", "computes y = x * s, times w when hasW != 0, over the full vectors of x, prefetching pf alongside; with nt != 0 the caller fences")
		y := Load(Param("y").Base(), GP64())
		x := Load(Param("x").Base(), GP64())
		w := Load(Param("w").Base(), GP64())
		pf := Load(Param("pf").Base(), GP64())
		vs := bc(Load(Param("s"), XMM()))
		hw := Load(Param("hasW"), GP64())
		nt := Load(Param("nt"), GP64())
		n, i := fullN("x"), counter()
		SHLQ(U8(1), nt)
		ORQ(hw, nt) // mode = nt<<1 | hasW
		for mode := 0; mode < 4; mode++ {
			lbl := fmt.Sprintf("%s_m%d", name, mode)
			CMPQ(nt, U8(mode))
			JE(LabelRef(lbl + "_loop"))
		}
		JMP(LabelRef(name + "_ret"))
		for mode := 0; mode < 4; mode++ {
			lbl := fmt.Sprintf("%s_m%d", name, mode)
			step := func(j Register, k int) VecVirtual {
				if k == 0 {
					PREFETCHT0(at(pf, j))
				}
				return scaleVec(x, w, vs, mode, j, k)
			}
			outputLoops(lbl, y, i, n, mode&2 != 0, step)
			JMP(LabelRef(name + "_ret"))
		}
		Label(name + "_ret")
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		// normalize: layer norm's output pass y = (x - m) * r (* w) (+ b), in the scalar
		// kernel's order of operations, prefetching pf (the next row) into L2 only: the
		// row, w, b and a next row in L1 would be 64 KB against its 48, and the statistics
		// pass reads the next row from L2 as fast (rms_norm's scale pass, with one row
		// fewer in L1, keeps PREFETCHT0; docs/history.md, "Prefetching in the row ops").
		name := frame("normalize", "func(y, x, w, b, pf []float32, m, r float32, mode int) int", "computes y = (x - m) * r, times w (mode&1), plus b (mode&2), streamed (mode&4; the caller fences), over the full vectors of x, prefetching pf alongside")
		y := Load(Param("y").Base(), GP64())
		x := Load(Param("x").Base(), GP64())
		w := Load(Param("w").Base(), GP64())
		b := Load(Param("b").Base(), GP64())
		pf := Load(Param("pf").Base(), GP64())
		vm := bc(Load(Param("m"), XMM()))
		vr := bc(Load(Param("r"), XMM()))
		mode := Load(Param("mode"), GP64())
		n, i := fullN("x"), counter()
		for md := 0; md < 8; md++ {
			CMPQ(mode, U8(md))
			JE(LabelRef(fmt.Sprintf("%s_m%d_loop", name, md)))
		}
		JMP(LabelRef(name + "_ret"))
		for md := 0; md < 8; md++ {
			lbl := fmt.Sprintf("%s_m%d", name, md)
			step := func(j Register, k int) VecVirtual {
				if k == 0 {
					PREFETCHT1(at(pf, j)) // see the note above
				}
				return normalizeVec(x, w, b, vm, vr, md, j, k)
			}
			outputLoops(lbl, y, i, n, md&4 != 0, step)
			JMP(LabelRef(name + "_ret"))
		}
		Label(name + "_ret")
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
	{
		name := frame("rope", "func(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int", "computes one rotate-half row, y1 = x1*c1 - x2*s1 and y2 = x2*c2 + x1*s2, over the full vectors of x1")
		p := map[string]Register{}
		for _, s := range []string{"y1", "y2", "x1", "x2", "c1", "c2", "s1", "s2"} {
			p[s] = Load(Param(s).Base(), GP64())
		}
		n, i := fullN("x1"), counter()
		loopTo(name, i, n, func() {
			a, b := ld(at(p["x1"], i)), ld(at(p["x2"], i))
			VMOVUPS(sub(mul(at(p["c1"], i), a), mul(at(p["s1"], i), b)), at(p["y1"], i))
			VMOVUPS(add(mul(at(p["s2"], i), a), mul(at(p["c2"], i), b)), at(p["y2"], i))
		})
		Store(i, ReturnIndex(0))
		VZEROUPPER()
		RET()
	}
}

// layout emits the transpose kernel (AVX2 only: both levels use it) and SFENCE.
func layout() {
	if cur.wide {
		cumsum()
		return
	}
	{
		TEXT("transpose16x8AVX2", NOSPLIT, "func(y, x *float32, ys, xs, nt int)")
		Pragma("noescape")
		Doc("transpose16x8AVX2 writes the 8×16 tile y[c*ys + r] = x[r*xs + c] (r < 16, c < 8)",
			"with two in-register 8×8 transposes; nt != 0 stores with VMOVNTPS (the rows of y",
			"must then start 64-byte aligned; the caller fences with sfence).")
		y, x, ys, xs, nt := tileArgs()
		for _, stream := range []bool{false, true} {
			if !stream {
				TESTQ(nt, nt)
				JNZ(LabelRef("transpose_nt"))
			} else {
				Label("transpose_nt")
			}
			for h := 0; h < 2; h++ {
				p := GP64()
				MOVQ(x, p)
				if h == 1 {
					for r := 0; r < 8; r++ {
						ADDQ(xs, p)
					}
				}
				var r [8]VecVirtual
				for k := range r {
					r[k] = YMM()
					VMOVUPS(Mem{Base: p}, r[k])
					if k < 7 {
						ADDQ(xs, p)
					}
				}
				var t, s [8]VecVirtual
				for k := 0; k < 4; k++ {
					t[2*k], t[2*k+1] = YMM(), YMM()
					VUNPCKLPS(r[2*k+1], r[2*k], t[2*k])
					VUNPCKHPS(r[2*k+1], r[2*k], t[2*k+1])
				}
				// s0..s3 from rows 0-3, s4..s7 from rows 4-7
				for g := 0; g < 2; g++ {
					a, b, c, d := t[4*g], t[4*g+2], t[4*g+1], t[4*g+3]
					s[4*g], s[4*g+1], s[4*g+2], s[4*g+3] = YMM(), YMM(), YMM(), YMM()
					VSHUFPS(U8(0x44), b, a, s[4*g])
					VSHUFPS(U8(0xee), b, a, s[4*g+1])
					VSHUFPS(U8(0x44), d, c, s[4*g+2])
					VSHUFPS(U8(0xee), d, c, s[4*g+3])
				}
				q := GP64()
				MOVQ(y, q)
				if h == 1 {
					ADDQ(U8(32), q)
				}
				for col := 0; col < 8; col++ {
					o := YMM()
					imm := 0x20
					if col >= 4 {
						imm = 0x31
					}
					VPERM2F128(U8(imm), s[4+col%4], s[col%4], o)
					if stream {
						VMOVNTPS(o, Mem{Base: q})
					} else {
						VMOVUPS(o, Mem{Base: q})
					}
					if col < 7 {
						ADDQ(ys, q)
					}
				}
			}
			VZEROUPPER()
			RET()
		}
	}
	cumsum()
	{
		TEXT("sfence", NOSPLIT, "func()")
		Doc("sfence orders the non-temporal stores before it before every later store.")
		SFENCE()
		RET()
	}
}

// cumsum emits cumsumAVX2 or cumsumAVX512 (one row from a carry) and cumsum4AVX2 or
// cumsum4AVX512 (four rows at once, each from zero): the running sum in float64 lanes, a
// step of two float64 halves of the current width (8 elements on AVX2, 16 on AVX-512).
// Each half's prefix is formed in the register, off the critical path (AVX2: a lane shift
// and a 128-bit lane shift; AVX-512: three VALIGNQ shifts against zero, by 1, 2 and 4
// lanes), the second half adds the first's total, and only the carry's add chains from
// step to step. Per 16 elements AVX-512 issues 13 port-5 instructions where AVX2's two
// steps take 18, and its results go out as one 64-byte store.
//
// A row's sum can only walk its row in order, and a core walking one stream from DRAM
// moves less than one walking several pages at once (the streaming kernels' comment in
// stream_amd64.s): the four-row form takes the same step in each of four rows in turn, so
// four streams are in flight, and each row goes through the same instructions as in the
// one-row form.
func cumsum() {
	cumsumOne()
	cumsumFour()
}

// cumsumRegs are the registers every step of a running sum reads: zero, and on AVX-512
// the VPERMPD index of the last float64 lane.
type cumsumRegs struct{ z, last VecVirtual }

func newCumsumRegs() cumsumRegs {
	r := cumsumRegs{z: zero()}
	if cur.wide {
		r.last = ZMM() // qword index 7 in every lane (VPERMPD reads the low 3 bits)
		seven := GP32()
		MOVL(U32(7), seven)
		VPBROADCASTD(seven, r.last)
	}
	return r
}

// step emits one step of the running sum: the w elements of x at xm, from the carry c
// (updated), into y at ym (streamed when stream), prefetching the line at pm.
func (r cumsumRegs) step(xm, ym, pm Mem, c VecVirtual, stream bool) {
	w := cur.lanes
	prefix := func(v VecVirtual) {
		if cur.wide {
			for _, k := range []int{7, 6, 4} {
				t := ZMM()
				VALIGNQ(U8(k), r.z, v, t) // v moved up by 8-k lanes, zeros below
				VADDPD(t, v, v)
			}
			return
		}
		t := YMM()
		VPERMPD(U8(0x90), v, t)    // [v0 v0 v1 v2]
		VBLENDPD(U8(1), r.z, t, t) // [0 v0 v1 v2]
		VADDPD(t, v, v)
		u := YMM()
		VPERM2F128(U8(0x08), v, v, u) // [0 0 v0 v1]
		VADDPD(u, v, v)
	}
	total := func(v VecVirtual) VecVirtual { // v's last lane in every lane
		t := vec()
		if cur.wide {
			VPERMPD(v, r.last, t)
		} else {
			VPERMPD(U8(0xff), v, t)
		}
		return t
	}
	PREFETCHT0(pm)
	a, b := vec(), vec()
	VCVTPS2PD(xm, a)
	VCVTPS2PD(xm.Offset(2*w), b)
	prefix(a)
	prefix(b)
	VADDPD(total(a), b, b)
	tb := total(b) // the step's total
	VADDPD(c, a, a)
	VADDPD(c, b, b)
	VADDPD(tb, c, c) // the new carry: one add on the chain per step
	store := func(v, m Op) { VMOVUPS(v, m) }
	if stream {
		store = func(v, m Op) { VMOVNTPS(v, m) }
	}
	if cur.wide {
		lo, hi, o := YMM(), YMM(), ZMM()
		VCVTPD2PS(a, lo)
		VCVTPD2PS(b, hi)
		VINSERTF64X4(U8(1), hi, lo.AsZ(), o)
		store(o, ym)
		return
	}
	for k, v := range []VecVirtual{a, b} {
		o := XMM()
		VCVTPD2PSY(v, o)
		store(o, ym.Offset(16*k))
	}
}

// streamBranch emits body twice, plain and streamed, choosing by nt != 0 at run time.
func streamBranch(name string, nt Register, body func(lbl string, stream bool)) {
	for _, stream := range []bool{false, true} {
		lbl := name
		if stream {
			lbl += "_nt"
			Label(name + "_nt_start")
		} else {
			TESTQ(nt, nt)
			JNZ(LabelRef(name + "_nt_start"))
		}
		body(lbl, stream)
		if !stream {
			JMP(LabelRef(name + "_ret"))
		}
	}
	Label(name + "_ret")
}

func cumsumOne() {
	w := cur.lanes
	name := "cumsum" + cur.name
	TEXT(name, NOSPLIT, "func(y, x, pf []float32, carry float64, nt int) float64")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes y[i] = carry + x[0] + ... + x[i] (float64 sums, rounded to float32) over", name),
		fmt.Sprintf("the whole %d-element steps of x and returns the carry after them, prefetching pf (as long as", w),
		fmt.Sprintf("x) alongside; nt != 0 streams y (then %d-byte aligned), and the caller fences.", 2*w))
	y := Load(Param("y").Base(), GP64())
	x := Load(Param("x").Base(), GP64())
	pf := Load(Param("pf").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	ANDQ(I32(^(w - 1)), n)
	c := vec()
	VBROADCASTSD(Load(Param("carry"), XMM()), c)
	nt := Load(Param("nt"), GP64())
	regs := newCumsumRegs()
	i := counter()
	streamBranch(name, nt, func(lbl string, stream bool) {
		loopTo(lbl, i, n, func() { regs.step(at(x, i), at(y, i), at(pf, i), c, stream) })
	})
	Store(c.AsX(), ReturnIndex(0))
	VZEROUPPER()
	RET()
}

func cumsumFour() {
	w := cur.lanes
	name := "cumsum4" + cur.name
	TEXT(name, NOSPLIT, "func(y, x, pf []float32, n, nt int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes the running sum of each of the four rows of n elements of x (n a multiple", name),
		fmt.Sprintf("of %d; x, y and pf hold 4n) into the same row of y, each row from zero and as %s would,", w, "cumsum"+cur.name),
		"taking one step in each row in turn, and prefetches pf alongside; nt != 0 streams y",
		fmt.Sprintf("(then %d-byte aligned), and the caller fences.", 2*w))
	py := Load(Param("y").Base(), GP64())
	px := Load(Param("x").Base(), GP64())
	pp := Load(Param("pf").Base(), GP64())
	st := Load(Param("n"), GP64())
	nt := Load(Param("nt"), GP64())
	SHLQ(U8(2), st) // the row stride in bytes
	st3 := GP64()
	LEAQ(Mem{Base: st, Index: st, Scale: 2}, st3)
	end := GP64()
	LEAQ(Mem{Base: px, Index: st, Scale: 1}, end) // the end of x's first row
	regs := newCumsumRegs()
	var c [4]VecVirtual
	for k := range c {
		c[k] = zero()
	}
	row := func(p Register, k int) Mem {
		switch k {
		case 0:
			return Mem{Base: p}
		case 3:
			return Mem{Base: p, Index: st3, Scale: 1}
		}
		return Mem{Base: p, Index: st, Scale: uint8(k)}
	}
	streamBranch(name, nt, func(lbl string, stream bool) {
		Label(lbl + "_loop")
		CMPQ(px, end)
		JAE(LabelRef(lbl + "_done"))
		for k := range c {
			regs.step(row(px, k), row(py, k), row(pp, k), c[k], stream)
		}
		ADDQ(U8(4*w), px)
		ADDQ(U8(4*w), py)
		ADDQ(U8(4*w), pp)
		JMP(LabelRef(lbl + "_loop"))
		Label(lbl + "_done")
	})
	VZEROUPPER()
	RET()
}
