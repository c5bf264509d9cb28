//go:build arm64 && !purego

#include "textflag.h"

// The NEON GEMM micro-kernel (gemm_arm64.go), written by hand as gemm_amd64.s's are: one
// short loop whose register assignment is the design, so a generator would buy nothing
// over these macros. Its semantics are gemm_amd64.s's (see its header): an MR×NR tile of c
// from packed panels (per step p, a holds the MR values a[i, p], b the NR values b[p, j]),
// the accumulators starting from c's tile when load != 0 and from zero otherwise, one fused
// multiply-add per element and step, p = 0, 1, ..., kc-1 in order; c row-major, ldc float32
// between rows, the whole tile read and written.
//
// 8×12: per step one load of the 8 a values (V0, V1), one of the 12 b values (V2-V4) and 24
// FMLAs by element (b's vector times one lane of a) into the accumulators V8-V31, row i in
// V(8+3i), V(9+3i), V(10+3i): 24 independent chains, more than the FMA latency (4) times
// the pipes of the wide cores (4).

// FMLA Vd.4S, Vn.4S, Vm.S[i] (by element: vd += vn * vm[i], fused, one rounding), which the
// Go assembler lacks (it has FMLA's vector form only): FMLA (by element), single precision,
// Q=1; i is H:L, m is M:Rm.
#define FMLA_E(d, n, m, i) WORD $(0x4F801000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))

// ROW(m, i, c) adds b (V2-V4) times lane i of Vm to row c's three accumulators.
#define ROW(m, i, c0, c1, c2) FMLA_E(c0, 2, m, i); FMLA_E(c1, 3, m, i); FMLA_E(c2, 4, m, i)

#define C_ZERO(r0, r1, r2) VEOR r0.B16, r0.B16, r0.B16; VEOR r1.B16, r1.B16, r1.B16; VEOR r2.B16, r2.B16, r2.B16
#define C_LOAD(r0, r1, r2) VLD1 (R6), [r0.S4, r1.S4, r2.S4]; ADD R4, R6, R6
#define C_STORE(r0, r1, r2) VST1 [r0.S4, r1.S4, r2.S4], (R6); ADD R4, R6, R6

#define C_ALL(M) \
	M(V8, V9, V10); M(V11, V12, V13); M(V14, V15, V16); M(V17, V18, V19); \
	M(V20, V21, V22); M(V23, V24, V25); M(V26, V27, V28); M(V29, V30, V31)

// func GemmMicro8x12(kc int, a, b, c *float32, ldc, load int)
TEXT ·GemmMicro8x12(SB), NOSPLIT, $0-48
	MOVD kc+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD c+24(FP), R3
	MOVD ldc+32(FP), R4
	LSL  $2, R4, R4
	MOVD load+40(FP), R5
	MOVD R3, R6
	CBNZ R5, cload
	C_ALL(C_ZERO)
	B    cstart

cload:
	C_ALL(C_LOAD)

cstart:
	CBZ R0, cstore

loop:
	VLD1.P 32(R1), [V0.S4, V1.S4]
	VLD1.P 48(R2), [V2.S4, V3.S4, V4.S4]
	ROW(0, 0, 8, 9, 10)
	ROW(0, 1, 11, 12, 13)
	ROW(0, 2, 14, 15, 16)
	ROW(0, 3, 17, 18, 19)
	ROW(1, 0, 20, 21, 22)
	ROW(1, 1, 23, 24, 25)
	ROW(1, 2, 26, 27, 28)
	ROW(1, 3, 29, 30, 31)
	SUBS $1, R0, R0
	BNE  loop

cstore:
	MOVD R3, R6
	C_ALL(C_STORE)
	RET
