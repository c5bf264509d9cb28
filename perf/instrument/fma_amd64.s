//go:build amd64

#include "textflag.h"

// Multiply-add throughput kernels: FMAAccs independent accumulators, each acc += a*b per
// iteration (VFMADD231), with a = b = 2^-10, so every lane gains exactly 2^-20 per iteration
// and the accumulators stay normal (no denormal slowdown) and exact for the tests. Twelve
// accumulators cover two FMA pipes of latency up to 6 cycles. The accumulators are stored to
// out at the end, so the caller can check how many iterations ran.

#define ZERO_Y \
	VXORPS Y0, Y0, Y0; VXORPS Y1, Y1, Y1; VXORPS Y2, Y2, Y2; VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; VXORPS Y5, Y5, Y5; VXORPS Y6, Y6, Y6; VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; VXORPS Y9, Y9, Y9; VXORPS Y10, Y10, Y10; VXORPS Y11, Y11, Y11

#define STORE_Y \
	VMOVUPS Y0, 0(DI); VMOVUPS Y1, 32(DI); VMOVUPS Y2, 64(DI); VMOVUPS Y3, 96(DI); \
	VMOVUPS Y4, 128(DI); VMOVUPS Y5, 160(DI); VMOVUPS Y6, 192(DI); VMOVUPS Y7, 224(DI); \
	VMOVUPS Y8, 256(DI); VMOVUPS Y9, 288(DI); VMOVUPS Y10, 320(DI); VMOVUPS Y11, 352(DI)

#define FMA12Y(OP) \
	OP Y12, Y12, Y0; OP Y12, Y12, Y1; OP Y12, Y12, Y2; OP Y12, Y12, Y3; \
	OP Y12, Y12, Y4; OP Y12, Y12, Y5; OP Y12, Y12, Y6; OP Y12, Y12, Y7; \
	OP Y12, Y12, Y8; OP Y12, Y12, Y9; OP Y12, Y12, Y10; OP Y12, Y12, Y11

#define FMA12Z(OP) \
	OP Z12, Z12, Z0; OP Z12, Z12, Z1; OP Z12, Z12, Z2; OP Z12, Z12, Z3; \
	OP Z12, Z12, Z4; OP Z12, Z12, Z5; OP Z12, Z12, Z6; OP Z12, Z12, Z7; \
	OP Z12, Z12, Z8; OP Z12, Z12, Z9; OP Z12, Z12, Z10; OP Z12, Z12, Z11

// func fmaAVX2PS(iters int, out *float32)
TEXT ·fmaAVX2PS(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ out+8(FP), DI
	MOVL $0x3a800000, AX       // 2^-10
	VMOVD AX, X12
	VBROADCASTSS X12, Y12
	ZERO_Y
	TESTQ CX, CX
	JLE  done
loop:
	FMA12Y(VFMADD231PS)
	DECQ CX
	JNZ  loop
done:
	STORE_Y
	VZEROUPPER
	RET

// func fmaAVX2PD(iters int, out *float64)
TEXT ·fmaAVX2PD(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ out+8(FP), DI
	MOVQ $0x3f50000000000000, AX   // 2^-10
	VMOVQ AX, X12
	VBROADCASTSD X12, Y12
	ZERO_Y
	TESTQ CX, CX
	JLE  done
loop:
	FMA12Y(VFMADD231PD)
	DECQ CX
	JNZ  loop
done:
	STORE_Y
	VZEROUPPER
	RET

#define ZERO_Z \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11

#define STORE_Z \
	VMOVUPS Z0, 0(DI); VMOVUPS Z1, 64(DI); VMOVUPS Z2, 128(DI); VMOVUPS Z3, 192(DI); \
	VMOVUPS Z4, 256(DI); VMOVUPS Z5, 320(DI); VMOVUPS Z6, 384(DI); VMOVUPS Z7, 448(DI); \
	VMOVUPS Z8, 512(DI); VMOVUPS Z9, 576(DI); VMOVUPS Z10, 640(DI); VMOVUPS Z11, 704(DI)

// func fmaAVX512PS(iters int, out *float32)
TEXT ·fmaAVX512PS(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ out+8(FP), DI
	MOVL $0x3a800000, AX
	VPBROADCASTD AX, Z12
	ZERO_Z
	TESTQ CX, CX
	JLE  done
loop:
	FMA12Z(VFMADD231PS)
	DECQ CX
	JNZ  loop
done:
	STORE_Z
	VZEROUPPER
	RET

// func fmaAVX512PD(iters int, out *float64)
TEXT ·fmaAVX512PD(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ out+8(FP), DI
	MOVQ $0x3f50000000000000, AX
	VPBROADCASTQ AX, Z12
	ZERO_Z
	TESTQ CX, CX
	JLE  done
loop:
	FMA12Z(VFMADD231PD)
	DECQ CX
	JNZ  loop
done:
	STORE_Z
	VZEROUPPER
	RET
