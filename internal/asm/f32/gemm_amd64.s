//go:build amd64 && !purego

#include "textflag.h"

// GEMM micro-kernels and gemv kernels (declared in gemm_amd64.go, dispatched by
// gemm_dispatch_amd64.go), written by hand: each is one short loop whose register assignment is
// the design (which accumulators, which broadcast registers), so a generator would buy
// nothing over these macros.
//
// A micro-kernel computes one MR×NR tile of c = a·b over kc steps of k from packed panels:
// a holds, for each p, the MR values a[i, p] of the tile's rows; b holds, for each p, the NR
// values b[p, j] of its columns (gemm_kernel.go's packA and packB). The accumulators start
// from c's tile when load != 0 (a later k block continues the running sum) and from zero
// otherwise, and each step is one fused multiply-add per element, p = 0, 1, ..., kc-1 in
// order, as the reference sums. c is row-major, ldc float32 between rows; the whole MR×NR
// tile is read and written.
//
// It is the register-blocked outer product of the Goto/BLIS micro-kernel: per step NR/W
// vector loads of b (W lanes per register), MR broadcasts of a, and MR·NR/W FMAs into
// accumulators that stay in registers; loads go to the load ports while both FMA ports
// stay busy (MR·NR/W independent chains, more than the FMA latency times the port count).

// ---- AVX-512F, 12×32: accumulators Z4-Z27 (row i in Z(4+2i), Z(5+2i)), b in Z0-Z1,
// a broadcast into Z2/Z3.

#define Z_ZERO2(r0, r1) VPXORD r0, r0, r0; VPXORD r1, r1, r1
#define Z_LOAD2(r0, r1) VMOVUPS (DX), r0; VMOVUPS 64(DX), r1; ADDQ R8, DX
#define Z_STORE2(r0, r1) VMOVUPS r0, (DX); VMOVUPS r1, 64(DX); ADDQ R8, DX
#define Z_ROW(off, t, r0, r1) VBROADCASTSS off(AX), t; VFMADD231PS Z0, t, r0; VFMADD231PS Z1, t, r1

#define Z_ALL(M) \
	M(Z4, Z5); M(Z6, Z7); M(Z8, Z9); M(Z10, Z11); M(Z12, Z13); M(Z14, Z15); \
	M(Z16, Z17); M(Z18, Z19); M(Z20, Z21); M(Z22, Z23); M(Z24, Z25); M(Z26, Z27)

// func GemmMicro12x32(kc int, a, b, c *float32, ldc, load int)
TEXT ·GemmMicro12x32(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	MOVQ DI, DX
	CMPQ load+40(FP), $0
	JNE  zload
	Z_ALL(Z_ZERO2)
	JMP  zstart
zload:
	Z_ALL(Z_LOAD2)
zstart:
	TESTQ CX, CX
	JZ    zstore
zloop:
	VMOVUPS (BX), Z0
	VMOVUPS 64(BX), Z1
	Z_ROW(0, Z2, Z4, Z5)
	Z_ROW(4, Z3, Z6, Z7)
	Z_ROW(8, Z2, Z8, Z9)
	Z_ROW(12, Z3, Z10, Z11)
	Z_ROW(16, Z2, Z12, Z13)
	Z_ROW(20, Z3, Z14, Z15)
	Z_ROW(24, Z2, Z16, Z17)
	Z_ROW(28, Z3, Z18, Z19)
	Z_ROW(32, Z2, Z20, Z21)
	Z_ROW(36, Z3, Z22, Z23)
	Z_ROW(40, Z2, Z24, Z25)
	Z_ROW(44, Z3, Z26, Z27)
	ADDQ $48, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  zloop
zstore:
	MOVQ DI, DX
	Z_ALL(Z_STORE2)
	VZEROUPPER
	RET

// func GemmMicro12x32Rows(kc int, a *float32, lda int, b, c *float32, ldc, load int)
// GemmMicro12x32 with a's 12 rows read in place, lda float32 apart, instead of from a packed
// panel: step p broadcasts a[i*lda + p] of each row i. Rows 0-3, 4-7 and 8-11 are
// addressed from three row pointers (AX, R11, R12) plus 0, lda, 2·lda and 3·lda bytes
// (R9 = lda·4, R10 = 3·lda·4), and each step moves the three pointers one element on.
#define ZR_ROW(base, idx, t, r0, r1) VBROADCASTSS (base)(idx*1), t; VFMADD231PS Z0, t, r0; VFMADD231PS Z1, t, r1
#define ZR_ROW0(base, t, r0, r1) VBROADCASTSS (base), t; VFMADD231PS Z0, t, r0; VFMADD231PS Z1, t, r1
#define ZR_ROW2(base, t, r0, r1) VBROADCASTSS (base)(R9*2), t; VFMADD231PS Z0, t, r0; VFMADD231PS Z1, t, r1

TEXT ·GemmMicro12x32Rows(SB), NOSPLIT, $0-56
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10
	LEAQ (AX)(R9*4), R11
	LEAQ (R11)(R9*4), R12
	MOVQ b+24(FP), BX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	MOVQ DI, DX
	CMPQ load+48(FP), $0
	JNE  rload
	Z_ALL(Z_ZERO2)
	JMP  rstart
rload:
	Z_ALL(Z_LOAD2)
rstart:
	TESTQ CX, CX
	JZ    rstore
rloop:
	VMOVUPS (BX), Z0
	VMOVUPS 64(BX), Z1
	ZR_ROW0(AX, Z2, Z4, Z5)
	ZR_ROW(AX, R9, Z3, Z6, Z7)
	ZR_ROW2(AX, Z2, Z8, Z9)
	ZR_ROW(AX, R10, Z3, Z10, Z11)
	ZR_ROW0(R11, Z2, Z12, Z13)
	ZR_ROW(R11, R9, Z3, Z14, Z15)
	ZR_ROW2(R11, Z2, Z16, Z17)
	ZR_ROW(R11, R10, Z3, Z18, Z19)
	ZR_ROW0(R12, Z2, Z20, Z21)
	ZR_ROW(R12, R9, Z3, Z22, Z23)
	ZR_ROW2(R12, Z2, Z24, Z25)
	ZR_ROW(R12, R10, Z3, Z26, Z27)
	ADDQ $4, AX
	ADDQ $4, R11
	ADDQ $4, R12
	ADDQ $128, BX
	DECQ CX
	JNZ  rloop
rstore:
	MOVQ DI, DX
	Z_ALL(Z_STORE2)
	VZEROUPPER
	RET

// ---- AVX2+FMA, 6×16: accumulators Y4-Y15 (row i in Y(4+2i), Y(5+2i)), b in Y0-Y1,
// a broadcast into Y2/Y3: all sixteen ymm registers.

#define Y_ZERO2(r0, r1) VXORPS r0, r0, r0; VXORPS r1, r1, r1
#define Y_LOAD2(r0, r1) VMOVUPS (DX), r0; VMOVUPS 32(DX), r1; ADDQ R8, DX
#define Y_STORE2(r0, r1) VMOVUPS r0, (DX); VMOVUPS r1, 32(DX); ADDQ R8, DX
#define Y_ROW(off, t, r0, r1) VBROADCASTSS off(AX), t; VFMADD231PS Y0, t, r0; VFMADD231PS Y1, t, r1

#define Y_ALL(M) M(Y4, Y5); M(Y6, Y7); M(Y8, Y9); M(Y10, Y11); M(Y12, Y13); M(Y14, Y15)

// func GemmMicro6x16(kc int, a, b, c *float32, ldc, load int)
TEXT ·GemmMicro6x16(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	MOVQ DI, DX
	CMPQ load+40(FP), $0
	JNE  yload
	Y_ALL(Y_ZERO2)
	JMP  ystart
yload:
	Y_ALL(Y_LOAD2)
ystart:
	TESTQ CX, CX
	JZ    ystore
yloop:
	VMOVUPS (BX), Y0
	VMOVUPS 32(BX), Y1
	Y_ROW(0, Y2, Y4, Y5)
	Y_ROW(4, Y3, Y6, Y7)
	Y_ROW(8, Y2, Y8, Y9)
	Y_ROW(12, Y3, Y10, Y11)
	Y_ROW(16, Y2, Y12, Y13)
	Y_ROW(20, Y3, Y14, Y15)
	ADDQ $24, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  yloop
ystore:
	MOVQ DI, DX
	Y_ALL(Y_STORE2)
	VZEROUPPER
	RET

// func GemmMicro6x16Rows(kc int, a *float32, lda int, b, c *float32, ldc, load int)
// GemmMicro6x16 with a's 6 rows read in place, lda float32 apart, as GemmMicro12x32Rows:
// rows 0-3 from AX plus 0-3·lda bytes, rows 4-5 from R11 plus 0 and lda.
#define YR_ROW(base, idx, t, r0, r1) VBROADCASTSS (base)(idx*1), t; VFMADD231PS Y0, t, r0; VFMADD231PS Y1, t, r1
#define YR_ROW0(base, t, r0, r1) VBROADCASTSS (base), t; VFMADD231PS Y0, t, r0; VFMADD231PS Y1, t, r1
#define YR_ROW2(base, t, r0, r1) VBROADCASTSS (base)(R9*2), t; VFMADD231PS Y0, t, r0; VFMADD231PS Y1, t, r1

TEXT ·GemmMicro6x16Rows(SB), NOSPLIT, $0-56
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10
	LEAQ (AX)(R9*4), R11
	MOVQ b+24(FP), BX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	MOVQ DI, DX
	CMPQ load+48(FP), $0
	JNE  yrload
	Y_ALL(Y_ZERO2)
	JMP  yrstart
yrload:
	Y_ALL(Y_LOAD2)
yrstart:
	TESTQ CX, CX
	JZ    yrstore
yrloop:
	VMOVUPS (BX), Y0
	VMOVUPS 32(BX), Y1
	YR_ROW0(AX, Y2, Y4, Y5)
	YR_ROW(AX, R9, Y3, Y6, Y7)
	YR_ROW2(AX, Y2, Y8, Y9)
	YR_ROW(AX, R10, Y3, Y10, Y11)
	YR_ROW0(R11, Y2, Y12, Y13)
	YR_ROW(R11, R9, Y3, Y14, Y15)
	ADDQ $4, AX
	ADDQ $4, R11
	ADDQ $64, BX
	DECQ CX
	JNZ  yrloop
yrstore:
	MOVQ DI, DX
	Y_ALL(Y_STORE2)
	VZEROUPPER
	RET

// ---- gemv (AVX2+FMA): a product with one row of a reads b once, at the memory's speed.

// G_FMA4(off) is one ymm of c (Y_c = Y0..Y3 by off) through the four rows of b.
#define G_COL(off, yc) \
	VMOVUPS off(DI), yc; \
	VFMADD231PS off(SI), Y12, yc; \
	VFMADD231PS off(R9), Y13, yc; \
	VFMADD231PS off(R10), Y14, yc; \
	VFMADD231PS off(R11), Y15, yc; \
	VMOVUPS yc, off(DI)

// func GemvAcc4(n int, x, b *float32, ldb int, c *float32)
//
// c[j] = fma(x3, b3[j], fma(x2, b2[j], fma(x1, b1[j], fma(x0, b0[j], c[j])))) for j < n,
// where b_r is the row b + r·ldb: four steps of the running sum, in order. n is a multiple
// of 32 (Go does the tail).
TEXT ·GemvAcc4(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	SHRQ $5, CX
	JZ   gdone
	MOVQ x+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ ldb+24(FP), R8
	SHLQ $2, R8
	MOVQ c+32(FP), DI
	VBROADCASTSS 0(AX), Y12
	VBROADCASTSS 4(AX), Y13
	VBROADCASTSS 8(AX), Y14
	VBROADCASTSS 12(AX), Y15
	LEAQ (SI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
gloop:
	G_COL(0, Y0)
	G_COL(32, Y1)
	G_COL(64, Y2)
	G_COL(96, Y3)
	ADDQ $128, SI
	ADDQ $128, R9
	ADDQ $128, R10
	ADDQ $128, R11
	ADDQ $128, DI
	DECQ CX
	JNZ  gloop
	VZEROUPPER
gdone:
	RET

// func GemvAcc1(n int, x, b, c *float32)
//
// c[j] = fma(x, b[j], c[j]) for j < n, n a multiple of 32: one step of the running sum.
TEXT ·GemvAcc1(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	SHRQ $5, CX
	JZ   g1done
	MOVQ x+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ c+24(FP), DI
	VBROADCASTSS (AX), Y12
g1loop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VFMADD231PS (SI), Y12, Y0
	VFMADD231PS 32(SI), Y12, Y1
	VFMADD231PS 64(SI), Y12, Y2
	VFMADD231PS 96(SI), Y12, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  g1loop
	VZEROUPPER
g1done:
	RET

// D_ROW(ptr, y0, y1) adds 16 products of x (Y8, Y9) and one row of w.
#define D_ROW(ptr, y0, y1) VFMADD231PS (ptr), Y8, y0; VFMADD231PS 32(ptr), Y9, y1

// func Dot4(k int, x, w *float32, ldw int, out *float32)
//
// out[r] = Σ_p x[p]·w[r·ldw + p] for r < 4 and p < k, k a multiple of 16: the product of a
// row vector with four rows of a transposed matrix (linear's weight), reading each row once.
// Each row keeps 16 partial sums (two ymm) that are added pairwise at the end.
TEXT ·Dot4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), R9
	MOVQ ldw+24(FP), R8
	SHLQ $2, R8
	MOVQ out+32(FP), DI
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	SHRQ $4, CX
	JZ   dsum
dloop:
	VMOVUPS (SI), Y8
	VMOVUPS 32(SI), Y9
	D_ROW(R9, Y0, Y1)
	D_ROW(R10, Y2, Y3)
	D_ROW(R11, Y4, Y5)
	D_ROW(R12, Y6, Y7)
	ADDQ $64, SI
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R11
	ADDQ $64, R12
	DECQ CX
	JNZ  dloop
dsum:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	VHADDPS Y2, Y0, Y0 // per 128-bit lane: row 0 pairs, row 1 pairs
	VHADDPS Y6, Y4, Y4 // rows 2, 3
	VHADDPS Y4, Y0, Y0 // per lane: rows 0..3
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVUPS X0, (DI)
	VZEROUPPER
	RET

// ---- Packing (gemm_kernel.go's packA and packB for whole panels of contiguous rows).

// P_MOV(src, off) copies one float32 from src to off(DI) through a general register.
#define P_MOV(src, off) MOVL src, R11; MOVL R11, off(DI)

// func PackA12(kc int, a *float32, lda int, dst *float32)
//
// dst[12p + i] = a[i·lda + p] for i < 12, p < kc: twelve rows of a interleaved, the order
// the 12×32 micro-kernel broadcasts them. Rows are addressed from three bases (rows 0, 3,
// 6) with index lda or 3·lda.
TEXT ·PackA12(SB), NOSPLIT, $0-32
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R9
	SHLQ $2, R9
	MOVQ dst+24(FP), DI
	LEAQ (R9)(R9*2), R10       // 3·lda
	LEAQ (AX)(R10*1), SI       // row 3
	LEAQ (SI)(R10*1), DX       // row 6
	TESTQ CX, CX
	JZ    pa12done
pa12loop:
	P_MOV((AX), 0)
	P_MOV((AX)(R9*1), 4)
	P_MOV((AX)(R9*2), 8)
	P_MOV((SI), 12)
	P_MOV((AX)(R9*4), 16)
	P_MOV((SI)(R9*2), 20)
	P_MOV((DX), 24)
	P_MOV((SI)(R9*4), 28)
	P_MOV((AX)(R9*8), 32)
	P_MOV((DX)(R10*1), 36)
	P_MOV((DX)(R9*4), 40)
	P_MOV((SI)(R9*8), 44)
	ADDQ $4, AX
	ADDQ $4, SI
	ADDQ $4, DX
	ADDQ $48, DI
	DECQ CX
	JNZ  pa12loop
pa12done:
	RET

// func PackA6(kc int, a *float32, lda int, dst *float32)
//
// dst[6p + i] = a[i·lda + p] for i < 6, p < kc (the 6×16 micro-kernel's order).
TEXT ·PackA6(SB), NOSPLIT, $0-32
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R9
	SHLQ $2, R9
	MOVQ dst+24(FP), DI
	LEAQ (R9)(R9*2), R10
	LEAQ (AX)(R10*1), SI       // row 3
	TESTQ CX, CX
	JZ    pa6done
pa6loop:
	P_MOV((AX), 0)
	P_MOV((AX)(R9*1), 4)
	P_MOV((AX)(R9*2), 8)
	P_MOV((SI), 12)
	P_MOV((AX)(R9*4), 16)
	P_MOV((SI)(R9*2), 20)
	ADDQ $4, AX
	ADDQ $4, SI
	ADDQ $24, DI
	DECQ CX
	JNZ  pa6loop
pa6done:
	RET

// func PackB32(kc int, b *float32, ldb int, dst *float32)
//
// dst[32p + j] = b[p·ldb + j] for j < 32, p < kc: a column panel of row-major b (AVX).
TEXT ·PackB32(SB), NOSPLIT, $0-32
	MOVQ kc+0(FP), CX
	MOVQ b+8(FP), SI
	MOVQ ldb+16(FP), R9
	SHLQ $2, R9
	MOVQ dst+24(FP), DI
	TESTQ CX, CX
	JZ    pb32done
pb32loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ R9, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  pb32loop
	VZEROUPPER
pb32done:
	RET

// func PackB16(kc int, b *float32, ldb int, dst *float32)
//
// dst[16p + j] = b[p·ldb + j] for j < 16, p < kc (AVX).
TEXT ·PackB16(SB), NOSPLIT, $0-32
	MOVQ kc+0(FP), CX
	MOVQ b+8(FP), SI
	MOVQ ldb+16(FP), R9
	SHLQ $2, R9
	MOVQ dst+24(FP), DI
	TESTQ CX, CX
	JZ    pb16done
pb16loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ R9, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  pb16loop
	VZEROUPPER
pb16done:
	RET
