//go:build arm64 && !purego

#include "textflag.h"

// NEON kernels (declared in simd_arm64.go, wrapped by ops/simd_arm64.go), hand-written: a
// few short loops, one vector of 4 float32 per step (the row reductions two, into separate
// accumulators), so cpp macros keep them readable and a generator (asmgen writes the amd64
// kernels with avo, which has no arm64 backend) would buy nothing. Each kernel does the full
// vectors of its row (the length rounded down to 4) and returns how many elements that is;
// the Go caller does the rest. They are not tuned: there is no arm64 machine to time them on
// (qemu-user, where they are tested, says nothing of speed). Each TEXT line and argument
// load is written out, the loops are macros: go vet's asmdecl checks what it sees outside
// macros, every frame size and argument offset here.
//
// The Go assembler has FMLA's vector form but none of the other vector floating-point
// instructions; those are encoded with WORD below, the mnemonic beside each (go tool
// objdump decodes them back). d, n and m are register numbers (V0-V31).

#define VOP3(op, d, n, m) WORD $((op) | ((m)<<16) | ((n)<<5) | (d))

#define FADD4S(d, n, m) VOP3(0x4E20D400, d, n, m)  // FADD Vd.4S, Vn.4S, Vm.4S
#define FSUB4S(d, n, m) VOP3(0x4EA0D400, d, n, m)  // FSUB Vd.4S, Vn.4S, Vm.4S
#define FMUL4S(d, n, m) VOP3(0x6E20DC00, d, n, m)  // FMUL Vd.4S, Vn.4S, Vm.4S
#define FDIV4S(d, n, m) VOP3(0x6E20FC00, d, n, m)  // FDIV Vd.4S, Vn.4S, Vm.4S
#define FMAX4S(d, n, m) VOP3(0x4E20F400, d, n, m)  // FMAX Vd.4S, Vn.4S, Vm.4S (NaN wins; +0 > -0)
#define FADD2D(d, n, m) VOP3(0x4E60D400, d, n, m)  // FADD Vd.2D, Vn.2D, Vm.2D
#define FCVTL(d, n) VOP3(0x0E617800, d, n, 0)      // FCVTL Vd.2D, Vn.2S (lanes 0, 1 to float64)
#define FCVTL2(d, n) VOP3(0x4E617800, d, n, 0)     // FCVTL2 Vd.2D, Vn.4S (lanes 2, 3)
#define FADDP2D(d, n) VOP3(0x7E70D800, d, n, 0)    // FADDP Dd, Vn.2D (the two lanes' sum)
#define FMAXV4S(d, n) VOP3(0x6E30F800, d, n, 0)    // FMAXV Sd, Vn.4S (the four lanes' max)
#define FCMGT4S(d, n, m) VOP3(0x6EA0E400, d, n, m) // FCMGT Vd.4S, Vn.4S, Vm.4S (all ones where n > m)
#define FNEG4S(d, n) VOP3(0x6EA0F800, d, n, 0)     // FNEG Vd.4S, Vn.4S
#define FSUB2D(d, n, m) VOP3(0x4EE0D400, d, n, m)  // FSUB Vd.2D, Vn.2D, Vm.2D
#define FMIN4S(d, n, m) VOP3(0x4EA0F400, d, n, m)  // FMIN Vd.4S, Vn.4S, Vm.4S (NaN wins)
#define FABS4S(d, n) VOP3(0x4EA0F800, d, n, 0)     // FABS Vd.4S, Vn.4S
#define FMAX2D(d, n, m) VOP3(0x4E60F400, d, n, m)  // FMAX Vd.2D, Vn.2D, Vm.2D (NaN wins; +0 > -0)
#define FMLA2D(d, n, m) VOP3(0x4E60CC00, d, n, m)  // FMLA Vd.2D, Vn.2D, Vm.2D (d += n*m, one rounding)
#define CMLT4S(d, n) VOP3(0x4EA0A800, d, n, 0)     // CMLT Vd.4S, Vn.4S, #0 (all ones where the sign bit is set)
#define FCMGE4S(d, n, m) VOP3(0x6E20E400, d, n, m) // FCMGE Vd.4S, Vn.4S, Vm.4S (all ones where n >= m)
#define FCVTN(d, n) VOP3(0x0E616800, d, n, 0)      // FCVTN Vd.2S, Vn.2D (to float32, lanes 0, 1; upper half cleared)
#define FCVTN2(d, n) VOP3(0x4E616800, d, n, 0)     // FCVTN2 Vd.4S, Vn.2D (lanes 2, 3; lanes 0, 1 kept)
#define SCVTF4S(d, n) VOP3(0x4E21D800, d, n, 0)    // SCVTF Vd.4S, Vn.4S (int32 lanes to float32)
#define FCMEQ4S(d, n, m) VOP3(0x4E20E400, d, n, m) // FCMEQ Vd.4S, Vn.4S, Vm.4S (all ones where n == m)

// ---- Row sums in float64: each vector of x widened to two float64 pairs, added (sum) or
// multiplied and added (sumSq: x² is exact in float64, so FMLA rounds as x*x + acc does)
// into four pairs of partial sums, V4-V7, two vectors per step. ROWSUM takes x in R0 and the
// number of full-vector elements in R1 and leaves the sum in F4.

#define ADD_SUM(acc, v) FADD2D(acc, acc, v)
#define ADD_SQ(acc, v) FMLA2D(acc, v, v)

#define ROWSUM(ACC) \
	MOVD R1, R2 \
	VEOR V4.B16, V4.B16, V4.B16 \
	VEOR V5.B16, V5.B16, V5.B16 \
	VEOR V6.B16, V6.B16, V6.B16 \
	VEOR V7.B16, V7.B16, V7.B16 \
loop: \
	CMP  $8, R2 \
	BLT  tail \
	VLD1.P 32(R0), [V0.S4, V1.S4] \
	FCVTL(16, 0) \
	FCVTL2(17, 0) \
	FCVTL(18, 1) \
	FCVTL2(19, 1) \
	ACC(4, 16) \
	ACC(5, 17) \
	ACC(6, 18) \
	ACC(7, 19) \
	SUB  $8, R2, R2 \
	B    loop \
tail: \
	CBZ  R2, done \
	VLD1.P 16(R0), [V0.S4] \
	FCVTL(16, 0) \
	FCVTL2(17, 0) \
	ACC(4, 16) \
	ACC(5, 17) \
done: \
	FADD2D(4, 4, 5) \
	FADD2D(6, 6, 7) \
	FADD2D(4, 4, 6) \
	FADDP2D(4, 4)

// func SumNEON(x []float32) (n int, s float64)
TEXT ·SumNEON(SB), NOSPLIT, $0-40
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	AND  $~3, R1, R1
	ROWSUM(ADD_SUM)
	MOVD R1, n+24(FP)
	FMOVD F4, s+32(FP)
	RET

// func SumSqNEON(x []float32) (n int, s float64)
TEXT ·SumSqNEON(SB), NOSPLIT, $0-40
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	AND  $~3, R1, R1
	ROWSUM(ADD_SQ)
	MOVD R1, n+24(FP)
	FMOVD F4, s+32(FP)
	RET

// func MaxNEON(x []float32) (n int, m float32, ok bool)
//
// The max of the full vectors of x (at least one) with FMAX, which keeps a NaN and takes +0
// over -0 as Go's max does; ok is false when the max is NaN (x held one).
TEXT ·MaxNEON(SB), NOSPLIT, $0-37
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	AND  $~3, R1, R1
	VLD1.P 16(R0), [V0.S4]
	VORR V0.B16, V0.B16, V1.B16
	SUB  $4, R1, R2
mloop:
	CMP  $8, R2
	BLT  mtail
	VLD1.P 32(R0), [V2.S4, V3.S4]
	FMAX4S(0, 0, 2)
	FMAX4S(1, 1, 3)
	SUB  $8, R2, R2
	B    mloop
mtail:
	CBZ  R2, mdone
	VLD1.P 16(R0), [V2.S4]
	FMAX4S(0, 0, 2)
mdone:
	FMAX4S(0, 0, 1)
	FMAXV4S(0, 0)
	MOVD R1, n+24(FP)
	FMOVS F0, m+32(FP)
	FCMPS F0, F0
	CSET VC, R3 // ordered: not NaN
	MOVB R3, ok+36(FP)
	RET

// ---- Elementwise: y = a op b over the full vectors of y (R0, R1 the full-vector count),
// a in R2, b in R3; mode (R4) 1: a is one element (broadcast), 2: b is. The count returned
// is R1.

#define ARITH(op) \
	AND  $~3, R1, R1 \
	MOVD R1, R5 \
	CBZ  R5, done \
	CMP  $1, R4 \
	BEQ  abc \
	CMP  $2, R4 \
	BEQ  bbc \
both: \
	VLD1.P 16(R2), [V0.S4] \
	VLD1.P 16(R3), [V1.S4] \
	VOP3(op, 2, 0, 1) \
	VST1.P [V2.S4], 16(R0) \
	SUBS $4, R5, R5 \
	BNE  both \
	B    done \
abc: \
	VLD1R (R2), [V0.S4] \
aloop: \
	VLD1.P 16(R3), [V1.S4] \
	VOP3(op, 2, 0, 1) \
	VST1.P [V2.S4], 16(R0) \
	SUBS $4, R5, R5 \
	BNE  aloop \
	B    done \
bbc: \
	VLD1R (R3), [V1.S4] \
bloop: \
	VLD1.P 16(R2), [V0.S4] \
	VOP3(op, 2, 0, 1) \
	VST1.P [V2.S4], 16(R0) \
	SUBS $4, R5, R5 \
	BNE  bloop \
done:

// func AddNEON(y, a, b []float32, mode int) int
TEXT ·AddNEON(SB), NOSPLIT, $0-88
	MOVD y_base+0(FP), R0
	MOVD y_len+8(FP), R1
	MOVD a_base+24(FP), R2
	MOVD b_base+48(FP), R3
	MOVD mode+72(FP), R4
	ARITH(0x4E20D400) // FADD
	MOVD R1, ret+80(FP)
	RET

// func SubNEON(y, a, b []float32, mode int) int
TEXT ·SubNEON(SB), NOSPLIT, $0-88
	MOVD y_base+0(FP), R0
	MOVD y_len+8(FP), R1
	MOVD a_base+24(FP), R2
	MOVD b_base+48(FP), R3
	MOVD mode+72(FP), R4
	ARITH(0x4EA0D400) // FSUB
	MOVD R1, ret+80(FP)
	RET

// func MulNEON(y, a, b []float32, mode int) int
TEXT ·MulNEON(SB), NOSPLIT, $0-88
	MOVD y_base+0(FP), R0
	MOVD y_len+8(FP), R1
	MOVD a_base+24(FP), R2
	MOVD b_base+48(FP), R3
	MOVD mode+72(FP), R4
	ARITH(0x6E20DC00) // FMUL
	MOVD R1, ret+80(FP)
	RET

// func DivNEON(y, a, b []float32, mode int) int
TEXT ·DivNEON(SB), NOSPLIT, $0-88
	MOVD y_base+0(FP), R0
	MOVD y_len+8(FP), R1
	MOVD a_base+24(FP), R2
	MOVD b_base+48(FP), R3
	MOVD mode+72(FP), R4
	ARITH(0x6E20FC00) // FDIV
	MOVD R1, ret+80(FP)
	RET

// func ReluNEON(y, x []float32) int
//
// y = max(x, 0) over the full vectors of x with FMAX: NaN kept, -0 to +0, as Go's max.
TEXT ·ReluNEON(SB), NOSPLIT, $0-56
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	AND  $~3, R1, R1
	MOVD R1, R5
	VEOR V1.B16, V1.B16, V1.B16
	CBZ  R5, rdone
rloop:
	VLD1.P 16(R2), [V0.S4]
	FMAX4S(2, 0, 1)
	VST1.P [V2.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  rloop
rdone:
	MOVD R1, ret+48(FP)
	RET

// func LeakyReluNEON(y, x []float32, s float32) int
//
// y = x * f, f = s where x's sign bit is set (NaN and -0 included) and 1 elsewhere, over the
// full vectors of x: the Go loop's x * factor[sign bit], x the first operand of the multiply
// as there (which NaN a two-NaN product keeps).
TEXT ·LeakyReluNEON(SB), NOSPLIT, $0-64
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $s+48(FP), R6
	VLD1R (R6), [V3.S4]
	MOVW $0x3f800000, R6 // 1.0
	VDUP R6, V4.S4
	AND  $~3, R1, R1
	MOVD R1, R5
	CBZ  R5, lkdone
lkloop:
	VLD1.P 16(R2), [V0.S4]
	CMLT4S(1, 0)
	VBSL V4.B16, V3.B16, V1.B16 // V1 = s where the sign bit is set, else 1
	FMUL4S(1, 0, 1)
	VST1.P [V1.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  lkloop
lkdone:
	MOVD R1, ret+56(FP)
	RET

// func ClampNEON(y, x []float32, lo, hi float32) int
//
// y = min(max(x, lo), hi) over the full vectors of x: FMAX then FMIN with the Go builtins'
// operands in Go's order (FMAXS and FMINS on arm64), so NaN, the NaN kept of two and the
// signed zeros are Go's, bit for bit.
TEXT ·ClampNEON(SB), NOSPLIT, $0-64
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R6
	VLD1R (R6), [V3.S4]
	MOVD $hi+52(FP), R6
	VLD1R (R6), [V4.S4]
	AND  $~3, R1, R1
	MOVD R1, R5
	CBZ  R5, cldone
clloop:
	VLD1.P 16(R2), [V0.S4]
	FMAX4S(1, 0, 3)
	FMIN4S(1, 1, 4)
	VST1.P [V1.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  clloop
cldone:
	MOVD R1, ret+56(FP)
	RET

// func HardswishNEON(y, x []float32) int
//
// y = x * min(max(x + 3, 0), 6) / 6 over the full vectors of x, hardswish's operations in
// its order and with its operands as Go compiles it on arm64 (FADDS, FMAXS, FMINS, FMULS
// with x first, FDIVS): bit for bit, NaN and infinities included.
TEXT ·HardswishNEON(SB), NOSPLIT, $0-56
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVW $0x40400000, R6 // 3.0
	VDUP R6, V3.S4
	MOVW $0x40c00000, R6 // 6.0
	VDUP R6, V4.S4
	VEOR V5.B16, V5.B16, V5.B16
	AND  $~3, R1, R1
	MOVD R1, R5
	CBZ  R5, hsdone
hsloop:
	VLD1.P 16(R2), [V0.S4]
	FADD4S(1, 0, 3)
	FMAX4S(1, 1, 5)
	FMIN4S(1, 1, 4)
	FMUL4S(1, 0, 1)
	FDIV4S(1, 1, 4)
	VST1.P [V1.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  hsloop
hsdone:
	MOVD R1, ret+48(FP)
	RET

// func ScaleNEON(y, x, w []float32, s float32, hasW int) int
//
// y = x * s, and y = (x * s) * w when hasW != 0, over the full vectors of x: the Go loop's
// order of operations.
TEXT ·ScaleNEON(SB), NOSPLIT, $0-96
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD w_base+48(FP), R3
	MOVD $s+72(FP), R6
	VLD1R (R6), [V3.S4]
	MOVD hasW+80(FP), R4
	AND  $~3, R1, R1
	MOVD R1, R5
	CBZ  R5, sdone
	CBNZ R4, swloop
sloop:
	VLD1.P 16(R2), [V0.S4]
	FMUL4S(0, 0, 3)
	VST1.P [V0.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  sloop
	B    sdone
swloop:
	VLD1.P 16(R2), [V0.S4]
	VLD1.P 16(R3), [V1.S4]
	FMUL4S(0, 0, 3)
	FMUL4S(0, 0, 1)
	VST1.P [V0.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  swloop
sdone:
	MOVD R1, ret+88(FP)
	RET

// ---- exp and the activations built on it: y = f(x) over the full vectors of x until the
// first vector with a lane outside the kernel's range (lo, hi) (NaN included), where the
// kernel stops and returns how many elements it did: the Go caller computes that vector with
// the Go function and calls the kernel again past it (blocks, simd.go).
//
// UNARY(BODY) takes y in R0, x in R2, len(x) in R1, the constants c (neonExpConsts) in R3,
// lo and hi at R8 and R9 and the kernel's two parameters p and q at R10 and R11 (their
// addresses), and leaves the count done in R5. Registers: x in V0, f(x) in V1, V2-V8
// temporaries; c in V16-V25, lo and hi in V26, V27, roundShift's bits - 127 in V28, p and q
// in V29 and V30.

// IN_RANGE branches to stop unless every lane of V0 is in (lo, hi): lo < x and x < hi, all
// ones in both halves of the mask (a NaN fails both compares).
#define IN_RANGE(stop) \
	FCMGT4S(6, 0, 26) \
	FCMGT4S(7, 27, 0) \
	VAND V7.B16, V6.B16, V6.B16 \
	VMOV V6.D[0], R6 \
	VMOV V6.D[1], R7 \
	AND  R7, R6, R6 \
	CMN  $1, R6 \
	BNE  stop

// EXP: V1 = e**V0 by expf's steps (elementwise_math.go), each of its multiply-adds one fused
// FMLA or FMLS as Go compiles them on arm64: t = x*log2e + roundShift (k in t's low bits),
// fk = t - roundShift, r = x - fk*ln2hi - fk*ln2lo, expPoly's Horner steps from c6 (each a
// copy of the coefficient and an FMLA), times 2**k = (t's bits - (roundShift's - 127)) << 23.
#define EXP \
	VORR  V17.B16, V17.B16, V2.B16 \
	VFMLA V16.S4, V0.S4, V2.S4 \
	FSUB4S(3, 2, 17) \
	VORR  V0.B16, V0.B16, V4.B16 \
	VFMLS V18.S4, V3.S4, V4.S4 \
	VFMLS V19.S4, V3.S4, V4.S4 \
	VORR  V21.B16, V21.B16, V5.B16 \
	VFMLA V20.S4, V4.S4, V5.S4 \
	VORR  V22.B16, V22.B16, V1.B16 \
	VFMLA V5.S4, V4.S4, V1.S4 \
	VORR  V23.B16, V23.B16, V5.B16 \
	VFMLA V1.S4, V4.S4, V5.S4 \
	VORR  V24.B16, V24.B16, V1.B16 \
	VFMLA V5.S4, V4.S4, V1.S4 \
	VORR  V25.B16, V25.B16, V5.B16 \
	VFMLA V1.S4, V4.S4, V5.S4 \
	VORR  V25.B16, V25.B16, V1.B16 \
	VFMLA V5.S4, V4.S4, V1.S4 \
	VSUB  V28.S4, V2.S4, V2.S4 \
	VSHL  $23, V2.S4, V2.S4 \
	FMUL4S(1, 1, 2)

// SIGMOID: V1 = 1 / (1 + e**-x), x kept in V8 (sigmoidf's steps).
#define SIGMOID \
	VORR V0.B16, V0.B16, V8.B16 \
	FNEG4S(0, 0) \
	EXP \
	FADD4S(1, 1, 25) \
	FDIV4S(1, 25, 1)

// SILU: V1 = x * sigmoid(x) (siluf's steps).
#define SILU \
	SIGMOID \
	FMUL4S(1, 8, 1)

// EXP_CONSTS loads exp's constants from c (R3) into V16-V25, lo and hi from their addresses
// (R8, R9) into V26 and V27, and roundShift's bits - 127 into V28.
#define EXP_CONSTS \
	VLD1R.P 4(R3), [V16.S4] \
	VLD1R.P 4(R3), [V17.S4] \
	VLD1R.P 4(R3), [V18.S4] \
	VLD1R.P 4(R3), [V19.S4] \
	VLD1R.P 4(R3), [V20.S4] \
	VLD1R.P 4(R3), [V21.S4] \
	VLD1R.P 4(R3), [V22.S4] \
	VLD1R.P 4(R3), [V23.S4] \
	VLD1R.P 4(R3), [V24.S4] \
	VLD1R.P 4(R3), [V25.S4] \
	VLD1R (R8), [V26.S4] \
	VLD1R (R9), [V27.S4] \
	MOVW $127, R6 \
	VDUP R6, V28.S4 \
	VSUB V28.S4, V17.S4, V28.S4

// ELU: V1 = max(x, 0) + alpha*(e**min(x, 0) - 1), alpha = p (V29) and q = 0 (V30), as elu
// (activation_math.go) compiles on arm64: the multiply by alpha and the add of max(x, 0) one
// fused FMLA (FMADDS in the Go loop), as asmgen's elu. FMAX and FMIN with +0: +0 for x = -0
// in max, -0 in min, as Go's max and min.
#define ELU \
	FMAX4S(8, 0, 30) \
	FMIN4S(0, 0, 30) \
	EXP \
	FSUB4S(1, 1, 25) \
	VFMLA V29.S4, V1.S4, V8.S4 \
	VORR V8.B16, V8.B16, V1.B16

// MISH: V1 = x * (n / (n + 2)), n = e*(e + 2), e = e**min(x, 20), 20 = p (V29) and 2 = q
// (V30), as mish (activation_math.go) compiles on arm64: n + 2 is e*(e + 2) + 2 in one fused
// FMLA (FMADDS in the Go function), n the same product rounded.
#define MISH \
	VORR V0.B16, V0.B16, V8.B16 \
	FMIN4S(0, 0, 29) \
	EXP \
	FADD4S(2, 1, 30) \
	FMUL4S(3, 1, 2) \
	VORR V30.B16, V30.B16, V4.B16 \
	VFMLA V2.S4, V1.S4, V4.S4 \
	FDIV4S(1, 3, 4) \
	FMUL4S(1, 8, 1)

// GELU: V1 = x / (1 + e**-2z), z = x*(c1*x² + c0) (geluf's tanh form), with -2z in one step
// as asmgen's gelu: x*(p*x² + q), p = -2c1 (V29) and q = -2c0 (V30), the multiply-add fused
// as Go fuses geluf's (FMADDS); scaling by -2 is exact, so this is -2 times geluf's z.
#define GELU \
	VORR V0.B16, V0.B16, V8.B16 \
	FMUL4S(2, 0, 0) \
	VORR V30.B16, V30.B16, V3.B16 \
	VFMLA V29.S4, V2.S4, V3.S4 \
	FMUL4S(0, 8, 3) \
	EXP \
	FADD4S(1, 1, 25) \
	FDIV4S(1, 8, 1)

// SOFTPLUS: V1 = x where x > 20 (p, V29), else log1pf(e) with e = e**min(x, 20): softplus's
// steps (activation_math.go) as Go compiles them on arm64, each lane of both sides computed
// and the side selected. log1pf: w = 1 + e, e itself where w == 1, else logf(w) * (e / (w -
// 1)). logf(w) for w in (1, 2**29): math.Frexp's m in [0.5, 1) and exponent k from w's bits
// (k = exponent field - 126, m's bits w's minus k << 23), m doubled and k less one where
// m < sqrt(1/2), f = m - 1, z = f², the polynomial's Horner steps from c8 (each an FMLA into
// a copy of the coefficient, the subtracted ones stored negated: FNMSUBS in the Go function
// rounds as that FMLA), y = f*p*z, y += k*ln2lo and y -= z*0.5 (q, V30) fused, then f + y +
// k*ln2hi, the last add fused: ln2hi and ln2lo are exp's V18 and V19. The log constants
// (neonLogConsts: c8, -c7, ..., c0, sqrt(1/2)) in V9-V11, 126 in V31; V12, V13 masks.
#define SOFTPLUS \
	VORR V0.B16, V0.B16, V8.B16 \
	FMIN4S(0, 0, 29) \
	EXP \
	FADD4S(2, 1, 25) \
	VUSHR $23, V2.S4, V3.S4 \
	VSUB V31.S4, V3.S4, V3.S4 \
	VSHL $23, V3.S4, V4.S4 \
	VSUB V4.S4, V2.S4, V4.S4 \
	VDUP V11.S[1], V5.S4 \
	FCMGT4S(6, 5, 4) \
	VAND V6.B16, V4.B16, V7.B16 \
	FADD4S(4, 4, 7) \
	VADD V6.S4, V3.S4, V3.S4 \
	SCVTF4S(3, 3) \
	FSUB4S(4, 4, 25) \
	FMUL4S(5, 4, 4) \
	VDUP  V9.S[0], V6.S4 \
	VDUP  V9.S[1], V7.S4 \
	VFMLA V6.S4, V4.S4, V7.S4 \
	VDUP  V9.S[2], V6.S4 \
	VFMLA V7.S4, V4.S4, V6.S4 \
	VDUP  V9.S[3], V7.S4 \
	VFMLA V6.S4, V4.S4, V7.S4 \
	VDUP  V10.S[0], V6.S4 \
	VFMLA V7.S4, V4.S4, V6.S4 \
	VDUP  V10.S[1], V7.S4 \
	VFMLA V6.S4, V4.S4, V7.S4 \
	VDUP  V10.S[2], V6.S4 \
	VFMLA V7.S4, V4.S4, V6.S4 \
	VDUP  V10.S[3], V7.S4 \
	VFMLA V6.S4, V4.S4, V7.S4 \
	VDUP  V11.S[0], V6.S4 \
	VFMLA V7.S4, V4.S4, V6.S4 \
	FMUL4S(6, 4, 6) \
	FMUL4S(6, 6, 5) \
	VFMLA V19.S4, V3.S4, V6.S4 \
	VFMLS V30.S4, V5.S4, V6.S4 \
	FADD4S(7, 4, 6) \
	VFMLA V18.S4, V3.S4, V7.S4 \
	FCMEQ4S(12, 2, 25) \
	FSUB4S(2, 2, 25) \
	FDIV4S(2, 1, 2) \
	FMUL4S(7, 7, 2) \
	VBSL V7.B16, V1.B16, V12.B16 \
	FCMGT4S(13, 8, 29) \
	VBSL V12.B16, V8.B16, V13.B16 \
	VORR V13.B16, V13.B16, V1.B16

#define UNARY(BODY) \
	AND  $~3, R1, R1 \
	MOVD $0, R5 \
	EXP_CONSTS \
	VLD1R (R10), [V29.S4] \
	VLD1R (R11), [V30.S4] \
	CMP  R1, R5 \
	BGE  done \
loop: \
	VLD1 (R2), [V0.S4] \
	IN_RANGE(done) \
	BODY \
	VST1.P [V1.S4], 16(R0) \
	ADD  $16, R2, R2 \
	ADD  $4, R5, R5 \
	CMP  R1, R5 \
	BLT  loop \
done:

// func ExpNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int
TEXT ·ExpNEON(SB), NOSPLIT, $0-80
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD c+64(FP), R3
	UNARY(EXP)
	MOVD R5, ret+72(FP)
	RET

// func SigmoidNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int
TEXT ·SigmoidNEON(SB), NOSPLIT, $0-80
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD c+64(FP), R3
	UNARY(SIGMOID)
	MOVD R5, ret+72(FP)
	RET

// func SiluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int
TEXT ·SiluNEON(SB), NOSPLIT, $0-80
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD c+64(FP), R3
	UNARY(SILU)
	MOVD R5, ret+72(FP)
	RET

// func EluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int
//
// y = elu(x) with alpha = p; q = 0.
TEXT ·EluNEON(SB), NOSPLIT, $0-80
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD c+64(FP), R3
	UNARY(ELU)
	MOVD R5, ret+72(FP)
	RET

// func MishNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int
//
// y = mish(x); p = 20, q = 2.
TEXT ·MishNEON(SB), NOSPLIT, $0-80
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD c+64(FP), R3
	UNARY(MISH)
	MOVD R5, ret+72(FP)
	RET

// func GeluNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32) int
//
// y = gelu(x), tanh form; p = -2c1, q = -2c0.
TEXT ·GeluNEON(SB), NOSPLIT, $0-80
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD c+64(FP), R3
	UNARY(GELU)
	MOVD R5, ret+72(FP)
	RET

// func SoftplusNEON(y, x []float32, lo, hi, p, q float32, c *[10]float32, l *[12]float32) int
//
// y = softplus(x); p = 20, q = 0.5, l the log constants (neonLogConsts).
TEXT ·SoftplusNEON(SB), NOSPLIT, $0-88
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD c+64(FP), R3
	MOVD l+72(FP), R12
	VLD1 (R12), [V9.S4, V10.S4, V11.S4]
	MOVW $126, R6
	VDUP R6, V31.S4
	UNARY(SOFTPLUS)
	MOVD R5, ret+80(FP)
	RET

// func GeluErfNEON(y, x []float32, lo, hi, p, q float32, l *[8]float32) int
//
// y = geluErf(x) = 0.5*x * erf1p(z), z = x*p (p = sqrt(1/2), q = 0.5), over the full vectors
// of x until the first vector with a lane whose z is outside (lo, hi) = (-1, 1) (NaN
// included): erf1p's branch there is erfc's, which the Go function does. Inside, erf1p's odd
// polynomial as Go compiles it on arm64: s = z², Horner's steps from c6 (each an FMLA into a
// copy of the coefficient, the subtracted ones stored negated, as Go's FNMSUBS rounds), then
// 1 + z*p fused. l holds c6, -c5, c4, -c3, c2, -c1, c0 and 1 (neonErfConsts), in V16-V23.
TEXT ·GeluErfNEON(SB), NOSPLIT, $0-80
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $lo+48(FP), R8
	MOVD $hi+52(FP), R9
	MOVD $p+56(FP), R10
	MOVD $q+60(FP), R11
	MOVD l+64(FP), R3
	VLD1R (R8), [V26.S4]
	VLD1R (R9), [V27.S4]
	VLD1R (R10), [V29.S4]
	VLD1R (R11), [V30.S4]
	MOVD R3, R4
	VLD1R.P 4(R4), [V16.S4]
	VLD1R.P 4(R4), [V17.S4]
	VLD1R.P 4(R4), [V18.S4]
	VLD1R.P 4(R4), [V19.S4]
	VLD1R.P 4(R4), [V20.S4]
	VLD1R.P 4(R4), [V21.S4]
	VLD1R.P 4(R4), [V22.S4]
	VLD1R.P 4(R4), [V23.S4]
	AND  $~3, R1, R1
	MOVD $0, R5
	CMP  R1, R5
	BGE  gedone
geloop:
	VLD1 (R2), [V8.S4]
	FMUL4S(0, 8, 29) // z
	IN_RANGE(gedone)
	FMUL4S(1, 0, 0) // s = z²
	VORR  V17.B16, V17.B16, V3.B16
	VFMLA V16.S4, V1.S4, V3.S4
	VORR  V18.B16, V18.B16, V2.B16
	VFMLA V3.S4, V1.S4, V2.S4
	VORR  V19.B16, V19.B16, V3.B16
	VFMLA V2.S4, V1.S4, V3.S4
	VORR  V20.B16, V20.B16, V2.B16
	VFMLA V3.S4, V1.S4, V2.S4
	VORR  V21.B16, V21.B16, V3.B16
	VFMLA V2.S4, V1.S4, V3.S4
	VORR  V22.B16, V22.B16, V2.B16
	VFMLA V3.S4, V1.S4, V2.S4
	VORR  V23.B16, V23.B16, V4.B16
	VFMLA V2.S4, V0.S4, V4.S4 // 1 + z*p
	FMUL4S(5, 8, 30)          // 0.5*x
	FMUL4S(1, 5, 4)
	VST1.P [V1.S4], 16(R0)
	ADD  $16, R2, R2
	ADD  $4, R5, R5
	CMP  R1, R5
	BLT  geloop
gedone:
	MOVD R5, ret+72(FP)
	RET

// TANH: V1 = tanh(V0) as asmgen's tanh (transc.go): em / (em + 2) with x's sign, em =
// e**2a - 1 from expm1's steps and a = |x| capped at 9.02 (FMIN keeps a NaN, which then
// passes every step): y = 2a, k and r = y - k*ln2 as EXP's, q = e**r - 1 = r + r²P(r)
// (P's Horner steps from V20, then one FMLA), em = q*2**k + (2**k - 1) in one FMLA. The
// constants (neonTanhConsts) in V16-V28: log2e, roundShift, ln2hi, ln2lo, P's six
// coefficients, 9.02, 1, 2; roundShift's bits - 127 in V29, the sign bit in V30.
#define TANH \
	FABS4S(2, 0) \
	FMIN4S(2, 2, 26) \
	FADD4S(2, 2, 2) \
	VORR  V17.B16, V17.B16, V3.B16 \
	VFMLA V16.S4, V2.S4, V3.S4 \
	FSUB4S(4, 3, 17) \
	VORR  V2.B16, V2.B16, V5.B16 \
	VFMLS V18.S4, V4.S4, V5.S4 \
	VFMLS V19.S4, V4.S4, V5.S4 \
	VORR  V21.B16, V21.B16, V6.B16 \
	VFMLA V20.S4, V5.S4, V6.S4 \
	VORR  V22.B16, V22.B16, V1.B16 \
	VFMLA V6.S4, V5.S4, V1.S4 \
	VORR  V23.B16, V23.B16, V6.B16 \
	VFMLA V1.S4, V5.S4, V6.S4 \
	VORR  V24.B16, V24.B16, V1.B16 \
	VFMLA V6.S4, V5.S4, V1.S4 \
	VORR  V25.B16, V25.B16, V6.B16 \
	VFMLA V1.S4, V5.S4, V6.S4 \
	FMUL4S(7, 5, 5) \
	VFMLA V6.S4, V7.S4, V5.S4 \
	VSUB  V29.S4, V3.S4, V3.S4 \
	VSHL  $23, V3.S4, V3.S4 \
	FSUB4S(1, 3, 27) \
	VFMLA V3.S4, V5.S4, V1.S4 \
	FADD4S(2, 28, 1) \
	FDIV4S(1, 1, 2) \
	VAND  V30.B16, V0.B16, V6.B16 \
	VORR  V6.B16, V1.B16, V1.B16

// func TanhNEON(y, x []float32, c *[13]float32) int
//
// y = tanh(x) over the full vectors of x: every lane (no range stop).
TEXT ·TanhNEON(SB), NOSPLIT, $0-64
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD c+48(FP), R3
	AND  $~3, R1, R1
	VLD1R.P 4(R3), [V16.S4]
	VLD1R.P 4(R3), [V17.S4]
	VLD1R.P 4(R3), [V18.S4]
	VLD1R.P 4(R3), [V19.S4]
	VLD1R.P 4(R3), [V20.S4]
	VLD1R.P 4(R3), [V21.S4]
	VLD1R.P 4(R3), [V22.S4]
	VLD1R.P 4(R3), [V23.S4]
	VLD1R.P 4(R3), [V24.S4]
	VLD1R.P 4(R3), [V25.S4]
	VLD1R.P 4(R3), [V26.S4]
	VLD1R.P 4(R3), [V27.S4]
	VLD1R.P 4(R3), [V28.S4]
	MOVW $127, R6
	VDUP R6, V29.S4
	VSUB V29.S4, V17.S4, V29.S4
	MOVW $0x80000000, R6
	VDUP R6, V30.S4
	MOVD R1, R5
	CBZ  R5, thdone
thloop:
	VLD1.P 16(R2), [V0.S4]
	TANH
	VST1.P [V1.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  thloop
thdone:
	MOVD R1, ret+56(FP)
	RET

// ---- The softmax family's exp passes: d = x - m (m at least every x in the callers; the
// kernels check d's range all the same, as UNARY, and stop at a vector with a lane outside
// (lo, hi), NaN included), then e**d by EXP. m in V29; no prefetch of the caller's next row
// (nothing to tune it on).

// func ExpSumNEON(y, x []float32, m, lo, hi float32, store int, c *[10]float32) (n int, s float64)
//
// e = exp(x - m) into y when store != 0 (else y is never written), each vector's four e
// widened to float64 and added into two pairs of partial sums (V30, V31): s is their sum.
TEXT ·ExpSumNEON(SB), NOSPLIT, $0-96
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD $m+48(FP), R10
	MOVD $lo+52(FP), R8
	MOVD $hi+56(FP), R9
	MOVD store+64(FP), R4
	MOVD c+72(FP), R3
	AND  $~3, R1, R1
	MOVD $0, R5
	EXP_CONSTS
	VLD1R (R10), [V29.S4]
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16
	CMP  R1, R5
	BGE  esdone
esloop:
	VLD1.P 16(R2), [V0.S4]
	FSUB4S(0, 0, 29)
	IN_RANGE(esdone)
	EXP
	CBZ  R4, esadd
	VST1 [V1.S4], (R0)
esadd:
	ADD  $16, R0, R0
	FCVTL(2, 1)
	FCVTL2(3, 1)
	FADD2D(30, 30, 2)
	FADD2D(31, 31, 3)
	ADD  $4, R5, R5
	CMP  R1, R5
	BLT  esloop
esdone:
	FADD2D(30, 30, 31)
	FADDP2D(30, 30)
	MOVD R5, n+80(FP)
	FMOVD F30, s+88(FP)
	RET

// func NormalizeNEON(y, x, w, b []float32, m, r float32, mode int) int
//
// y = (x - m) * r, times w (mode&1), plus b (mode&2), over the full vectors of x, in
// normalizeRow's order of operations as Go compiles it on arm64: the add of b fused with the
// multiply before it (FMLA; FMADD in the Go loop), so (x - m)*r*w + b rounds once after
// (x - m)*r, and (x - m)*r + b once after x - m.
TEXT ·NormalizeNEON(SB), NOSPLIT, $0-120
	MOVD y_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	MOVD w_base+48(FP), R3
	MOVD b_base+72(FP), R6
	MOVD $m+96(FP), R7
	VLD1R (R7), [V29.S4]
	MOVD $r+100(FP), R7
	VLD1R (R7), [V30.S4]
	MOVD mode+104(FP), R4
	AND  $~3, R1, R1
	MOVD R1, R5
	CBZ  R5, ndone
nloop:
	VLD1.P 16(R2), [V0.S4]
	FSUB4S(0, 0, 29)          // x - m
	CMP  $2, R4
	BEQ  nb
	FMUL4S(0, 0, 30)          // (x - m) * r
	TBZ  $0, R4, nstore
	VLD1.P 16(R3), [V1.S4]
	TBNZ $1, R4, nwb
	FMUL4S(0, 0, 1)           // (x - m) * r * w
	B    nstore
nwb:
	VLD1.P 16(R6), [V2.S4]
	VFMLA V1.S4, V0.S4, V2.S4 // (x - m) * r * w + b, one rounding
	B    nstoreb
nb:
	VLD1.P 16(R6), [V2.S4]
	VFMLA V30.S4, V0.S4, V2.S4 // (x - m) * r + b, one rounding
nstoreb:
	VST1.P [V2.S4], 16(R0)
	B    nnext
nstore:
	VST1.P [V0.S4], 16(R0)
nnext:
	SUBS $4, R5, R5
	BNE  nloop
ndone:
	MOVD R1, ret+112(FP)
	RET

// ADD_VAR is ROWSUM's step for varRow: d = x - x0 (x0 in V29.2D), d into the sums V4-V7 and
// d² into V8-V11 (FMLA, as Go fuses varRow's d*d + a1 on arm64).
#define ADD_VAR(acc, v) \
	FSUB2D(v, v, 29) \
	FADD2D(acc, acc, v) \
	FMLA2D((acc)+4, v, v)

// func VarRowNEON(x []float32, x0 float64) (n int, s1, s2 float64)
//
// The shifted sums Σ(x - x0) and Σ(x - x0)² of the full vectors of x, in float64.
TEXT ·VarRowNEON(SB), NOSPLIT, $0-56
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	MOVD $x0+24(FP), R6
	VLD1R (R6), [V29.D2]
	AND  $~3, R1, R1
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	ROWSUM(ADD_VAR)
	FADD2D(8, 8, 9)
	FADD2D(10, 10, 11)
	FADD2D(8, 8, 10)
	FADDP2D(8, 8)
	MOVD R1, n+32(FP)
	FMOVD F4, s1+40(FP)
	FMOVD F8, s2+48(FP)
	RET

// ---- The column folds: row folded into the accumulators elementwise, the Go loops'
// operations with the accumulator the first operand as there (acc[i] += float64(x[i]) is
// FADDD acc, x; max(acc[i], ...) FMAXD acc, x), so bit for bit, NaN and signed zeros
// included. One vector of x (two float64 pairs of acc) a step.

// COLS(OP) folds x (R2) into the float64 accumulators acc (R0), R1 the full-vector count:
// each vector of x widened (FCVTL, FCVTL2; exact, a signaling NaN quieted as Go's FCVTSD
// does), OP with the two pairs of acc, stored back.
#define COLS(OP) \
	MOVD R1, R5 \
	CBZ  R5, done \
loop: \
	VLD1.P 16(R2), [V0.S4] \
	VLD1 (R0), [V2.D2, V3.D2] \
	FCVTL(16, 0) \
	FCVTL2(17, 0) \
	OP(2, 2, 16) \
	OP(3, 3, 17) \
	VST1.P [V2.D2, V3.D2], 32(R0) \
	SUBS $4, R5, R5 \
	BNE  loop \
done:

// func SumColsNEON(acc []float64, x []float32) int
//
// acc[i] += float64(x[i]) over the full vectors of x.
TEXT ·SumColsNEON(SB), NOSPLIT, $0-56
	MOVD acc_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	AND  $~3, R1, R1
	COLS(FADD2D)
	MOVD R1, ret+48(FP)
	RET

// func MaxColsNEON(acc []float64, x []float32) int
//
// acc[i] = max(acc[i], float64(x[i])) over the full vectors of x.
TEXT ·MaxColsNEON(SB), NOSPLIT, $0-56
	MOVD acc_base+0(FP), R0
	MOVD x_base+24(FP), R2
	MOVD x_len+32(FP), R1
	AND  $~3, R1, R1
	COLS(FMAX2D)
	MOVD R1, ret+48(FP)
	RET

// func VarColsNEON(s1, s2, x0 []float64, row []float32) int
//
// d = float64(row[i]) - x0[i], s1[i] += d and s2[i] += d*d (one FMLA, as Go fuses the Go
// loop's d*d + s2 on arm64; its add d + s1 with d first) over the full vectors of row.
TEXT ·VarColsNEON(SB), NOSPLIT, $0-104
	MOVD s1_base+0(FP), R0
	MOVD s2_base+24(FP), R3
	MOVD x0_base+48(FP), R4
	MOVD row_base+72(FP), R2
	MOVD row_len+80(FP), R1
	AND  $~3, R1, R1
	MOVD R1, R5
	CBZ  R5, vcdone
vcloop:
	VLD1.P 16(R2), [V0.S4]
	VLD1.P 32(R4), [V4.D2, V5.D2]
	VLD1 (R0), [V6.D2, V7.D2]
	VLD1 (R3), [V8.D2, V9.D2]
	FCVTL(16, 0)
	FCVTL2(17, 0)
	FSUB2D(16, 16, 4)
	FSUB2D(17, 17, 5)
	FADD2D(6, 16, 6)
	FADD2D(7, 17, 7)
	FMLA2D(8, 16, 16)
	FMLA2D(9, 17, 17)
	VST1.P [V6.D2, V7.D2], 32(R0)
	VST1.P [V8.D2, V9.D2], 32(R3)
	SUBS $4, R5, R5
	BNE  vcloop
vcdone:
	MOVD R1, ret+96(FP)
	RET

// func ExpSumColsNEON(s []float64, sh, row []float32, lo, hi float32, c *[10]float32) int
//
// s[i] += float64(exp(row[i] - sh[i])) over the full vectors of row until the first vector
// whose d = row - sh has a lane outside (lo, hi) (NaN included), where it stops, as UNARY;
// e**d by EXP, widened (exact) and added with s first as in the Go loop.
TEXT ·ExpSumColsNEON(SB), NOSPLIT, $0-96
	MOVD s_base+0(FP), R0
	MOVD sh_base+24(FP), R4
	MOVD row_base+48(FP), R2
	MOVD row_len+56(FP), R1
	MOVD $lo+72(FP), R8
	MOVD $hi+76(FP), R9
	MOVD c+80(FP), R3
	AND  $~3, R1, R1
	MOVD $0, R5
	EXP_CONSTS
	CMP  R1, R5
	BGE  ecdone
ecloop:
	VLD1 (R2), [V0.S4]
	VLD1 (R4), [V8.S4]
	FSUB4S(0, 0, 8)
	IN_RANGE(ecdone)
	EXP
	VLD1 (R0), [V10.D2, V11.D2]
	FCVTL(2, 1)
	FCVTL2(3, 1)
	FADD2D(10, 10, 2)
	FADD2D(11, 11, 3)
	VST1.P [V10.D2, V11.D2], 32(R0)
	ADD  $16, R2, R2
	ADD  $16, R4, R4
	ADD  $4, R5, R5
	CMP  R1, R5
	BLT  ecloop
ecdone:
	MOVD R5, ret+88(FP)
	RET

// func MaxIntoNEON(m, row []float32) int
//
// m[i] = max(m[i], row[i]) over the full vectors of row, m the first operand of FMAX as of
// Go's FMAXS.
TEXT ·MaxIntoNEON(SB), NOSPLIT, $0-56
	MOVD m_base+0(FP), R0
	MOVD row_base+24(FP), R2
	MOVD row_len+32(FP), R1
	AND  $~3, R1, R1
	MOVD R1, R5
	CBZ  R5, midone
miloop:
	VLD1 (R0), [V0.S4]
	VLD1.P 16(R2), [V1.S4]
	FMAX4S(0, 0, 1)
	VST1.P [V0.S4], 16(R0)
	SUBS $4, R5, R5
	BNE  miloop
midone:
	MOVD R1, ret+48(FP)
	RET

// ---- Top-k's scan and the transpose.

// func AboveNEON(x []float32, t float32) int
//
// The offset of the first full vector of x with a lane above t or NaN (not x <= t: FCMGE
// t >= x is all ones in a lane that is neither, -0 and +0 equal as in Go's compare), or the
// full-vector length when none has.
TEXT ·AboveNEON(SB), NOSPLIT, $0-40
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	MOVD $t+24(FP), R6
	VLD1R (R6), [V3.S4]
	AND  $~3, R1, R1
	MOVD $0, R5
	CMP  R1, R5
	BGE  abdone
abloop:
	VLD1.P 16(R0), [V0.S4]
	FCMGE4S(1, 3, 0)
	VMOV V1.D[0], R6
	VMOV V1.D[1], R7
	AND  R7, R6, R6
	CMN  $1, R6
	BNE  abdone
	ADD  $4, R5, R5
	CMP  R1, R5
	BLT  abloop
abdone:
	MOVD R5, ret+32(FP)
	RET

// func Transpose4NEON(y, x *float32, ys, xs, n int)
//
// y[j*ys + i] = x[i*xs + j] for the 4 rows i of x from x and its first n columns (n a
// multiple of 4, at least 4), ys and xs in elements: each 4x4 tile (4 vectors of x, one per
// row) transposed in registers (TRN1/TRN2 of the lanes, then of the lane pairs) and stored
// as 4 vectors, one per y row.
TEXT ·Transpose4NEON(SB), NOSPLIT, $0-40
	MOVD y+0(FP), R0
	MOVD x+8(FP), R2
	MOVD ys+16(FP), R3
	MOVD xs+24(FP), R4
	MOVD n+32(FP), R5
	LSL  $2, R3, R3 // strides in bytes
	LSL  $2, R4, R4
	ADD  R4, R2, R6 // x rows 1-3
	ADD  R4, R6, R7
	ADD  R4, R7, R8
	LSL  $2, R3, R9 // y advances 4 rows a tile
trloop:
	VLD1.P 16(R2), [V0.S4]
	VLD1.P 16(R6), [V1.S4]
	VLD1.P 16(R7), [V2.S4]
	VLD1.P 16(R8), [V3.S4]
	VTRN1 V1.S4, V0.S4, V4.S4  // a0 b0 a2 b2
	VTRN2 V1.S4, V0.S4, V5.S4  // a1 b1 a3 b3
	VTRN1 V3.S4, V2.S4, V6.S4  // c0 d0 c2 d2
	VTRN2 V3.S4, V2.S4, V7.S4  // c1 d1 c3 d3
	VTRN1 V6.D2, V4.D2, V16.D2 // a0 b0 c0 d0: y row j
	VTRN1 V7.D2, V5.D2, V17.D2 // a1 b1 c1 d1
	VTRN2 V6.D2, V4.D2, V18.D2 // a2 b2 c2 d2
	VTRN2 V7.D2, V5.D2, V19.D2 // a3 b3 c3 d3
	MOVD R0, R10
	VST1 [V16.S4], (R10)
	ADD  R3, R10, R10
	VST1 [V17.S4], (R10)
	ADD  R3, R10, R10
	VST1 [V18.S4], (R10)
	ADD  R3, R10, R10
	VST1 [V19.S4], (R10)
	ADD  R9, R0, R0
	SUBS $4, R5, R5
	BNE  trloop
	RET

// func CumsumNEON(y, x []float32, carry float64) float64
//
// y[i] = carry + x[0] + ... + x[i] over the full vectors of x, in float64 rounded to float32,
// and the carry after them. Each vector widened to two pairs a = (x0, x1), b = (x2, x3);
// each pair's prefix formed in the register (the pair plus itself moved up a lane, zero
// below: EXT with zero), b plus a's total, both plus the carry, and the carry plus the
// step's total: one add on the chain from step to step, as asmgen's cumsum. The sums are
// associated differently from the Go loop's (TestSIMDCumsum states the bound).
TEXT ·CumsumNEON(SB), NOSPLIT, $0-64
	MOVD  y_base+0(FP), R0
	MOVD  x_base+24(FP), R2
	MOVD  x_len+32(FP), R1
	FMOVD carry+48(FP), F5
	VDUP  V5.D[0], V5.D2
	VEOR  V31.B16, V31.B16, V31.B16
	AND   $~3, R1, R1
	CBZ   R1, csdone
csloop:
	VLD1.P 16(R2), [V0.S4]
	FCVTL(1, 0)                      // a = x0 x1
	FCVTL2(2, 0)                     // b = x2 x3
	VEXT  $8, V1.B16, V31.B16, V3.B16 // 0 x0
	VEXT  $8, V2.B16, V31.B16, V4.B16 // 0 x2
	FADD2D(1, 1, 3)                  // x0, x0+x1
	FADD2D(2, 2, 4)                  // x2, x2+x3
	VDUP  V1.D[1], V6.D2
	FADD2D(2, 2, 6)                  // x0+x1+x2, x0+x1+x2+x3
	VDUP  V2.D[1], V7.D2             // the step's total
	FADD2D(1, 1, 5)
	FADD2D(2, 2, 5)
	FADD2D(5, 5, 7)                  // the carry after the step
	FCVTN(0, 1)
	FCVTN2(0, 2)
	VST1.P [V0.S4], 16(R0)
	SUBS  $4, R1, R1
	BNE   csloop
csdone:
	FMOVD F5, ret+56(FP)
	RET

// func RopeNEON(y1, y2, x1, x2, c1, c2, s1, s2 []float32) int
//
// One rotate-half row over the full vectors of x1: y1 = x1*c1 - x2*s1, y2 = x2*c2 + x1*s2,
// as Go compiles rope's loop on arm64: the first product rounded (FMUL), the second fused
// with the subtract or add (FMLS, FMLA; FMSUBS, FMADDS in the Go loop).
TEXT ·RopeNEON(SB), NOSPLIT, $0-200
	MOVD y1_base+0(FP), R0
	MOVD y2_base+24(FP), R1
	MOVD x1_base+48(FP), R2
	MOVD x1_len+56(FP), R9
	MOVD x2_base+72(FP), R3
	MOVD c1_base+96(FP), R4
	MOVD c2_base+120(FP), R5
	MOVD s1_base+144(FP), R6
	MOVD s2_base+168(FP), R7
	AND  $~3, R9, R9
	MOVD R9, R10
	CBZ  R10, rpdone
rploop:
	VLD1.P 16(R2), [V0.S4] // a = x1
	VLD1.P 16(R3), [V1.S4] // b = x2
	VLD1.P 16(R4), [V2.S4]
	VLD1.P 16(R5), [V3.S4]
	VLD1.P 16(R6), [V4.S4]
	VLD1.P 16(R7), [V5.S4]
	FMUL4S(6, 0, 2)           // a*c1
	VFMLS V4.S4, V1.S4, V6.S4 // a*c1 - b*s1, b*s1 unrounded
	FMUL4S(7, 1, 3)           // b*c2
	VFMLA V5.S4, V0.S4, V7.S4 // b*c2 + a*s2, a*s2 unrounded
	VST1.P [V6.S4], 16(R0)
	VST1.P [V7.S4], 16(R1)
	SUBS $4, R10, R10
	BNE  rploop
rpdone:
	MOVD R9, ret+192(FP)
	RET
