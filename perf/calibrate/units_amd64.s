//go:build amd64

#include "textflag.h"

// The low-precision and matrix units (units_amd64.go): the same shape as the FMA kernels of
// fma_amd64.s, twelve independent zmm accumulators (four tile accumulators for AMX). Go's
// assembler has no mnemonic for AVX512-BF16, AVX512-FP16 or AMX, so those instructions are
// written as BYTEs, each line followed by the GNU as mnemonic it encodes; TestUnitEncodings
// assembles those mnemonics with binutils and compares the bytes, line by line.

#define ZERO_Z12 \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11

#define STORE_Z12 \
	VMOVDQU32 Z0, 0(DI); VMOVDQU32 Z1, 64(DI); VMOVDQU32 Z2, 128(DI); VMOVDQU32 Z3, 192(DI); \
	VMOVDQU32 Z4, 256(DI); VMOVDQU32 Z5, 320(DI); VMOVDQU32 Z6, 384(DI); VMOVDQU32 Z7, 448(DI); \
	VMOVDQU32 Z8, 512(DI); VMOVDQU32 Z9, 576(DI); VMOVDQU32 Z10, 640(DI); VMOVDQU32 Z11, 704(DI)

// func dpbf16AVX512(iters int, out *float32)
// acc += pairwise dot of bf16 (2^-10, 2^-10) pairs (VDPBF16PS): 32 bf16 products and their
// sums a zmm, every fp32 lane gaining exactly 2^-19 an iteration.
TEXT ·dpbf16AVX512(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ out+8(FP), DI
	MOVL $0x3a803a80, AX // two bf16 2^-10
	VMOVD AX, X12
	VPBROADCASTD X12, Z12
	ZERO_Z12
	TESTQ CX, CX
	JLE  done
loop:
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xc4 // as: vdpbf16ps zmm0, zmm12, zmm12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xcc // as: vdpbf16ps zmm1, zmm12, zmm12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xd4 // as: vdpbf16ps zmm2, zmm12, zmm12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xdc // as: vdpbf16ps zmm3, zmm12, zmm12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xe4 // as: vdpbf16ps zmm4, zmm12, zmm12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xec // as: vdpbf16ps zmm5, zmm12, zmm12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xf4 // as: vdpbf16ps zmm6, zmm12, zmm12
	BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xfc // as: vdpbf16ps zmm7, zmm12, zmm12
	BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xc4 // as: vdpbf16ps zmm8, zmm12, zmm12
	BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xcc // as: vdpbf16ps zmm9, zmm12, zmm12
	BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xd4 // as: vdpbf16ps zmm10, zmm12, zmm12
	BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xdc // as: vdpbf16ps zmm11, zmm12, zmm12
	DECQ CX
	JNZ  loop
done:
	STORE_Z12
	VZEROUPPER
	RET

// func fmaphAVX512(iters int, out *uint16)
// acc += 1.0 x 1.0 in fp16 (VFMADD231PH), 32 lanes a zmm: exact up to 2048 iterations
// (fp16 has 11 significant bits), after which each lane stays at 2048 with no overflow and no
// subnormal, so the rate is the instruction's at any count.
TEXT ·fmaphAVX512(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ out+8(FP), DI
	MOVL $0x3c003c00, AX // two fp16 1.0
	VMOVD AX, X12
	VPBROADCASTD X12, Z12
	ZERO_Z12
	TESTQ CX, CX
	JLE  done
loop:
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xc4 // as: vfmadd231ph zmm0, zmm12, zmm12
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xcc // as: vfmadd231ph zmm1, zmm12, zmm12
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xd4 // as: vfmadd231ph zmm2, zmm12, zmm12
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xdc // as: vfmadd231ph zmm3, zmm12, zmm12
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xe4 // as: vfmadd231ph zmm4, zmm12, zmm12
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xec // as: vfmadd231ph zmm5, zmm12, zmm12
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xf4 // as: vfmadd231ph zmm6, zmm12, zmm12
	BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xfc // as: vfmadd231ph zmm7, zmm12, zmm12
	BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xc4 // as: vfmadd231ph zmm8, zmm12, zmm12
	BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xcc // as: vfmadd231ph zmm9, zmm12, zmm12
	BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xd4 // as: vfmadd231ph zmm10, zmm12, zmm12
	BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xb8; BYTE $0xdc // as: vfmadd231ph zmm11, zmm12, zmm12
	DECQ CX
	JNZ  loop
done:
	STORE_Z12
	VZEROUPPER
	RET

#define VNNI12(OP) \
	OP Z12, Z12, Z0; OP Z12, Z12, Z1; OP Z12, Z12, Z2; OP Z12, Z12, Z3; \
	OP Z12, Z12, Z4; OP Z12, Z12, Z5; OP Z12, Z12, Z6; OP Z12, Z12, Z7; \
	OP Z12, Z12, Z8; OP Z12, Z12, Z9; OP Z12, Z12, Z10; OP Z12, Z12, Z11

// func dpbusdAVX512(iters int, out *int32)
// acc += u8 x s8 dot products of 1s (VPDPBUSD, AVX512-VNNI): 64 products a zmm, each int32
// lane gaining exactly 4 an iteration.
TEXT ·dpbusdAVX512(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ out+8(FP), DI
	MOVL $0x01010101, AX
	VMOVD AX, X12
	VPBROADCASTD X12, Z12
	ZERO_Z12
	TESTQ CX, CX
	JLE  done
loop:
	VNNI12(VPDPBUSD)
	DECQ CX
	JNZ  loop
done:
	STORE_Z12
	VZEROUPPER
	RET

// The AMX kernels: cfg is the 64-byte tile configuration (palette 1, eight tiles of 16 rows
// of 64 bytes), a one 1 KiB tile of inputs loaded into tmm4-tmm7, out four 1 KiB tiles for
// the accumulators tmm0-tmm3, which each iteration updates once each from independent
// inputs. The caller has asked Linux for the tile data permission (amx_linux_amd64.go).
// NOT EXECUTED where the CPU (or a virtual machine) exposes no AMX: only their encodings
// are tested there.

// func tdpbf16AMX(iters int, cfg, a, out *byte)
TEXT ·tdpbf16AMX(SB), NOSPLIT, $0-32
	MOVQ iters+0(FP), CX
	MOVQ cfg+8(FP), SI
	MOVQ a+16(FP), AX
	MOVQ out+24(FP), DI
	MOVQ $64, DX // row stride of every tile
	BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0x06 // as: ldtilecfg [rsi]
	MOVQ AX, SI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x24; BYTE $0x16 // as: tileloadd tmm4, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x2c; BYTE $0x16 // as: tileloadd tmm5, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x34; BYTE $0x16 // as: tileloadd tmm6, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x3c; BYTE $0x16 // as: tileloadd tmm7, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xc0 // as: tilezero tmm0
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xc8 // as: tilezero tmm1
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xd0 // as: tilezero tmm2
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xd8 // as: tilezero tmm3
	TESTQ CX, CX
	JLE  done
loop:
	BYTE $0xc4; BYTE $0xe2; BYTE $0x4a; BYTE $0x5c; BYTE $0xc4 // as: tdpbf16ps tmm0, tmm4, tmm6
	BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xcc // as: tdpbf16ps tmm1, tmm4, tmm7
	BYTE $0xc4; BYTE $0xe2; BYTE $0x4a; BYTE $0x5c; BYTE $0xd5 // as: tdpbf16ps tmm2, tmm5, tmm6
	BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xdd // as: tdpbf16ps tmm3, tmm5, tmm7
	DECQ CX
	JNZ  loop
done:
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x04; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm0
	ADDQ $1024, DI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x0c; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm1
	ADDQ $1024, DI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x14; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm2
	ADDQ $1024, DI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x1c; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm3
	BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0xc0 // as: tilerelease
	RET

// func tdpbssdAMX(iters int, cfg, a, out *byte)
TEXT ·tdpbssdAMX(SB), NOSPLIT, $0-32
	MOVQ iters+0(FP), CX
	MOVQ cfg+8(FP), SI
	MOVQ a+16(FP), AX
	MOVQ out+24(FP), DI
	MOVQ $64, DX
	BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0x06 // as: ldtilecfg [rsi]
	MOVQ AX, SI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x24; BYTE $0x16 // as: tileloadd tmm4, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x2c; BYTE $0x16 // as: tileloadd tmm5, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x34; BYTE $0x16 // as: tileloadd tmm6, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x3c; BYTE $0x16 // as: tileloadd tmm7, [rsi+rdx*1]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xc0 // as: tilezero tmm0
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xc8 // as: tilezero tmm1
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xd0 // as: tilezero tmm2
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xd8 // as: tilezero tmm3
	TESTQ CX, CX
	JLE  done
loop:
	BYTE $0xc4; BYTE $0xe2; BYTE $0x4b; BYTE $0x5e; BYTE $0xc4 // as: tdpbssd tmm0, tmm4, tmm6
	BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5e; BYTE $0xcc // as: tdpbssd tmm1, tmm4, tmm7
	BYTE $0xc4; BYTE $0xe2; BYTE $0x4b; BYTE $0x5e; BYTE $0xd5 // as: tdpbssd tmm2, tmm5, tmm6
	BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5e; BYTE $0xdd // as: tdpbssd tmm3, tmm5, tmm7
	DECQ CX
	JNZ  loop
done:
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x04; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm0
	ADDQ $1024, DI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x0c; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm1
	ADDQ $1024, DI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x14; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm2
	ADDQ $1024, DI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7a; BYTE $0x4b; BYTE $0x1c; BYTE $0x17 // as: tilestored [rdi+rdx*1], tmm3
	BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0xc0 // as: tilerelease
	RET

// func xgetbv0() (eax, edx uint32)
// XCR0: the register state the OS saves (bits 17 and 18: the AMX tile configuration and data).
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
