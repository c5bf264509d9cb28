package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// tileArgs loads the arguments of a transpose tile kernel, func(y, x *float32, ys, xs, nt
// int), with the two strides turned from elements into bytes.
func tileArgs() (y, x, ys, xs, nt Register) {
	y = Load(Param("y"), GP64())
	x = Load(Param("x"), GP64())
	ys = Load(Param("ys"), GP64())
	xs = Load(Param("xs"), GP64())
	nt = Load(Param("nt"), GP64())
	SHLQ(U8(2), ys)
	SHLQ(U8(2), xs)
	return y, x, ys, xs, nt
}

// streamKernels emits the memory-path kernels of this file: at AVX-512, the 16×16
// transpose.
func streamKernels() {
	if cur.wide {
		transpose16x16()
	}
}

// transpose16x16 writes y[c*ys + r] = x[r*xs + c] for r, c < 16 in registers: 16 row
// loads, four rounds of 16 shuffles (32-bit pairs, 64-bit pairs, then 128-bit lanes twice),
// and 16 stores of one whole 64-byte row of y each. Each y line is written by one store,
// so the streamed form completes every line it opens: the 16×8 AVX2 kernel writes the
// two halves of 8 lines in two rounds and has 16 lines half-written at once, more than the
// core's write-combining buffers.
func transpose16x16() {
	TEXT("transpose16x16AVX512", NOSPLIT, "func(y, x *float32, ys, xs, nt int)")
	Pragma("noescape")
	Doc("transpose16x16AVX512 writes the 16×16 tile y[c*ys + r] = x[r*xs + c] (r, c < 16) in",
		"registers; nt != 0 stores with VMOVNTPS (the rows of y must then start 64-byte aligned;",
		"the caller fences with sfence).")
	y, x, ys, xs, nt := tileArgs()
	var r, t [16]VecVirtual
	p := GP64()
	MOVQ(x, p)
	for k := range r {
		r[k] = ZMM()
		VMOVUPS(Mem{Base: p}, r[k])
		if k < 15 {
			ADDQ(xs, p)
		}
	}
	// Rows a..p are r[0..15]. After the 32-bit unpacks, t[2k] holds pairs (row 2k, row
	// 2k+1) of columns 0,1 | 4,5 | 8,9 | 12,13 and t[2k+1] of columns 2,3 | 6,7 | ...
	for k := 0; k < 8; k++ {
		t[2*k], t[2*k+1] = ZMM(), ZMM()
		VUNPCKLPS(r[2*k+1], r[2*k], t[2*k])
		VUNPCKHPS(r[2*k+1], r[2*k], t[2*k+1])
	}
	// 64-bit unpacks: for each group g of 4 rows, u[4g+c] holds column c, c+4, c+8, c+12
	// of the group's 4 rows in its four 128-bit lanes.
	var u [16]VecVirtual
	for g := 0; g < 4; g++ {
		a, b, c, d := t[4*g], t[4*g+1], t[4*g+2], t[4*g+3]
		for k := range 4 {
			u[4*g+k] = ZMM()
		}
		VUNPCKLPD(c, a, u[4*g])   // column 0 (4, 8, 12)
		VUNPCKHPD(c, a, u[4*g+1]) // column 1
		VUNPCKLPD(d, b, u[4*g+2]) // column 2
		VUNPCKHPD(d, b, u[4*g+3]) // column 3
	}
	// 128-bit lanes, groups 0 with 1 and 2 with 3: v[c] and v[8+c] (c < 4) hold columns c
	// and c+8 of rows a-h and i-p; v[4+c] and v[12+c] columns c+4 and c+12.
	var v [16]VecVirtual
	for h := 0; h < 2; h++ {
		for c := 0; c < 4; c++ {
			lo, hi := u[8*h+c], u[8*h+4+c]
			v[8*h+c], v[8*h+4+c] = ZMM(), ZMM()
			VSHUFF32X4(U8(0x88), hi, lo, v[8*h+c])   // lanes 0, 2 of each: columns c, c+8
			VSHUFF32X4(U8(0xdd), hi, lo, v[8*h+4+c]) // lanes 1, 3: columns c+4, c+12
		}
	}
	// The last round joins rows a-h and i-p: column c < 8 from lanes 0, 2, column c+8 from
	// lanes 1, 3.
	var col [16]VecVirtual
	for c := 0; c < 8; c++ {
		col[c], col[c+8] = ZMM(), ZMM()
		VSHUFF32X4(U8(0x88), v[8+c], v[c], col[c])
		VSHUFF32X4(U8(0xdd), v[8+c], v[c], col[c+8])
	}
	q := GP64()
	for _, stream := range []bool{false, true} {
		if !stream {
			TESTQ(nt, nt)
			JNZ(LabelRef("transpose16_nt"))
		} else {
			Label("transpose16_nt")
		}
		MOVQ(y, q)
		for c := range col {
			if stream {
				VMOVNTPS(col[c], Mem{Base: q})
			} else {
				VMOVUPS(col[c], Mem{Base: q})
			}
			if c < 15 {
				ADDQ(ys, q)
			}
		}
		VZEROUPPER()
		RET()
	}
}

// segMin is the least number of elements of each of a row reduction's four segments: a
// shorter row is read in one walk (the prefetcher gains little on runs of a few lines).
const segMin = 512

// segments emits the page-interleaved walk of a row reduction over x's n full-vector
// elements: for n >= 4*segMin, the row is cut into four segments of qn whole 64-byte lines
// each and body(k, m) runs for each vector m of a line of every segment k at each step, one
// segment after the other; i ends at 4*qn, where the kernel's ordinary loop takes the rest.
// (Otherwise i stays 0.) A core's prefetcher follows each 4 KiB page as its own stream and
// runs only so far ahead in each, so four walks at once read more of DRAM's bandwidth than
// one walk along the row (internal/asm/f32's streaming kernels interleave pages the same
// way).
func segments(name string, x, n, i Register, body func(k int, m Mem)) {
	segmentsAt(name, n, i, func(k int, j Register, v int) { body(k, vat(x, j, v)) }, nil)
}

// segmentsAt is segments with the element index j of segment k's line and the vector v
// within it (for the other slices of a fused kernel) and, where done is not nil, done() after
// each step's lines: a fused kernel streams its output's lines there, each line's vectors
// back to back (AVX2's two halves of a line stored a quarter apart ran its streamed row
// passes far slower: see quartered).
func segmentsAt(name string, n, i Register, body func(k int, j Register, v int), done func()) {
	qn := GP64()
	MOVQ(n, qn)
	SHRQ(U8(2), qn)
	ANDQ(I32(^15), qn) // whole lines per segment
	CMPQ(qn, U32(segMin))
	JB(LabelRef(name + "_seg_skip"))
	j := [4]Register{i}
	for k := 1; k < 4; k++ {
		j[k] = GP64()
		LEAQ(Mem{Base: j[k-1], Index: qn, Scale: 1}, j[k])
	}
	Label(name + "_seg_loop")
	for v := range 16 / cur.lanes {
		for k := range j {
			body(k, j[k], v)
		}
	}
	if done != nil {
		done()
	}
	for k := range j {
		ADDQ(U8(16), j[k])
	}
	CMPQ(i, qn)
	JB(LabelRef(name + "_seg_loop"))
	SHLQ(U8(2), i) // 4*qn: the elements done
	Label(name + "_seg_skip")
}
