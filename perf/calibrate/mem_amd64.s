//go:build amd64

#include "textflag.h"

// Memory-mix kernels on float64 arrays with AVX (ymm) loads and stores, 128 bytes (16
// elements) per iteration; the caller passes lengths that are multiples of 16 and, for the
// non-temporal ("NT") stores, a destination aligned to 32 bytes. NT stores bypass the
// caches (no read for ownership of the destination line) and end with an SFENCE, so the
// lines are globally visible before the worker reports done, as ops/stream_amd64.s does.

// func copyAVX(dst, src *float64, n int)
TEXT ·copyAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   done
loop:
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// The non-temporal kernels walk several 4 KiB pages at once, as the catalog's streaming
// kernels do (ops/stream_amd64.s): each step does one 64-byte line in each of 8 consecutive
// pages (4 for the triad, whose two inputs make 12 streams), 64 steps a block, then jumps to
// the next block; the lines left after the last whole block go in order. A core's hardware
// prefetcher follows each page as its own stream and runs only so far ahead in each, so a
// one-page loop moves about 0.7-0.8 of what the same core moves walking 8 (glibc's memcpy
// interleaves pages for the same reason), and an envelope measured one page at a time sits
// below what the catalog's kernels move. Each step loads its lines of every page before
// it stores any of them: copyNT storing each line right after its loads moved 0.80
// [0.76-0.87] of the grouped copyNT over 64 MiB (15 interleaved rounds, one thread, two
// runs; 0.97 and 0.81 on two threads), as a C copy does (0.81-0.82, compare/limits.c);
// the triad gained nothing measurable (0.96-1.02). The result is the same in any order.

// PAGES8 and PAGES4 are LOAD, then STORE, at the same line of 8 or 4 consecutive pages,
// each page's line in its own pair of registers.
#define PAGES8(LOAD, STORE) \
	LOAD(0, Y0, Y1); LOAD(4096, Y2, Y3); LOAD(8192, Y4, Y5); LOAD(12288, Y6, Y7); \
	LOAD(16384, Y8, Y9); LOAD(20480, Y10, Y11); LOAD(24576, Y12, Y13); LOAD(28672, Y14, Y15); \
	STORE(0, Y0, Y1); STORE(4096, Y2, Y3); STORE(8192, Y4, Y5); STORE(12288, Y6, Y7); \
	STORE(16384, Y8, Y9); STORE(20480, Y10, Y11); STORE(24576, Y12, Y13); STORE(28672, Y14, Y15)
#define PAGES4(LOAD, STORE) \
	LOAD(0, Y0, Y1); LOAD(4096, Y2, Y3); LOAD(8192, Y4, Y5); LOAD(12288, Y6, Y7); \
	STORE(0, Y0, Y1); STORE(4096, Y2, Y3); STORE(8192, Y4, Y5); STORE(12288, Y6, Y7)

// INTERLEAVE runs LOAD and STORE over the CX lines at the pointers, PAGES pages at a time
// (BLOCK lines a block), then SFENCE, VZEROUPPER and RET. ADV advances the pointers by one line, JUMP by
// the pages a block skips; BX counts the 64 steps of a block.
#define INTERLEAVE(PAGES, BLOCK, LOAD, STORE, ADV, JUMP) \
	CMPQ CX, $BLOCK; \
	JB   tail; \
block: \
	MOVQ $64, BX; \
inner: \
	PAGES(LOAD, STORE); \
	ADV; \
	DECQ BX; \
	JNZ  inner; \
	JUMP; \
	SUBQ $BLOCK, CX; \
	CMPQ CX, $BLOCK; \
	JAE  block; \
tail: \
	TESTQ CX, CX; \
	JZ   done; \
tloop: \
	LOAD(0, Y0, Y1); \
	STORE(0, Y0, Y1); \
	ADV; \
	DECQ CX; \
	JNZ  tloop; \
done: \
	SFENCE; \
	VZEROUPPER; \
	RET

// The pointer steps of a kernel of one input (SI) and of two (SI, DX): a line, and the
// pages a block skips (7 of 8, 3 of 4).
#define ADV1 ADDQ $64, SI; ADDQ $64, DI
#define JUMP1 ADDQ $28672, SI; ADDQ $28672, DI
#define ADV2 ADDQ $64, SI; ADDQ $64, DX; ADDQ $64, DI
#define JUMP2 ADDQ $12288, SI; ADDQ $12288, DX; ADDQ $12288, DI

// CLOAD and NTSTORE are the halves of one line (8 elements) of dst = src: DI = dst, SI =
// src, the line in a and b.
#define CLOAD(off, a, b) \
	VMOVUPD off+0(SI), a; \
	VMOVUPD off+32(SI), b
#define NTSTORE(off, a, b) \
	VMOVNTPD a, off+0(DI); \
	VMOVNTPD b, off+32(DI)

// func copyNT(dst, src *float64, n int)
TEXT ·copyNT(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	INTERLEAVE(PAGES8, 512, CLOAD, NTSTORE, ADV1, JUMP1)

// TRIAD is a[i] = b[i] + s*c[i] over 16 elements: DI = a, SI = b, DX = c, Y15 = s.
#define TRIAD(STORE) \
	VMOVUPD 0(DX), Y0; \
	VMOVUPD 32(DX), Y1; \
	VMOVUPD 64(DX), Y2; \
	VMOVUPD 96(DX), Y3; \
	VFMADD213PD 0(SI), Y15, Y0; \
	VFMADD213PD 32(SI), Y15, Y1; \
	VFMADD213PD 64(SI), Y15, Y2; \
	VFMADD213PD 96(SI), Y15, Y3; \
	STORE Y0, 0(DI); \
	STORE Y1, 32(DI); \
	STORE Y2, 64(DI); \
	STORE Y3, 96(DI); \
	ADDQ $128, SI; \
	ADDQ $128, DX; \
	ADDQ $128, DI

// func triadAVX(a, b, c *float64, n int, s float64)
TEXT ·triadAVX(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD s+32(FP), Y15
	SHRQ $4, CX
	JZ   done
loop:
	TRIAD(VMOVUPD)
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// TLOAD is the arithmetic of one line (8 elements) of a = b + s*c into x and y, stored by
// NTSTORE: DI = a, SI = b, DX = c, Y15 = s.
#define TLOAD(off, x, y) \
	VMOVUPD off+0(DX), x; \
	VMOVUPD off+32(DX), y; \
	VFMADD213PD off+0(SI), Y15, x; \
	VFMADD213PD off+32(SI), Y15, y

// func triadNT(a, b, c *float64, n int, s float64)
TEXT ·triadNT(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD s+32(FP), Y15
	SHRQ $3, CX
	INTERLEAVE(PAGES4, 256, TLOAD, NTSTORE, ADV2, JUMP2)

// func readAVX(a *float64, n int) float64
//
// Eight independent sums of ymm lanes, so add latency never limits the load rate (two
// loads a cycle from L1 need eight adds in flight at latency 4).
TEXT ·readAVX(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), SI
	MOVQ n+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	SHRQ $5, CX
	JZ   sum
loop:
	VADDPD 0(SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	VADDPD 128(SI), Y4, Y4
	VADDPD 160(SI), Y5, Y5
	VADDPD 192(SI), Y6, Y6
	VADDPD 224(SI), Y7, Y7
	ADDQ $256, SI
	DECQ CX
	JNZ  loop
sum:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y2, Y0, Y0
	VADDPD Y6, Y4, Y4
	VADDPD Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0
	VZEROUPPER
	MOVSD X0, ret+16(FP)
	RET

// func writeAVX(a *float64, n int, s float64)
TEXT ·writeAVX(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSD s+16(FP), Y0
	SHRQ $4, CX
	JZ   done
loop:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y0, 32(DI)
	VMOVUPD Y0, 64(DI)
	VMOVUPD Y0, 96(DI)
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func writeNT(a *float64, n int, s float64)
TEXT ·writeNT(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSD s+16(FP), Y0
	SHRQ $4, CX
	JZ   done
loop:
	VMOVNTPD Y0, 0(DI)
	VMOVNTPD Y0, 32(DI)
	VMOVNTPD Y0, 64(DI)
	VMOVNTPD Y0, 96(DI)
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	SFENCE
done:
	VZEROUPPER
	RET

// func copyAVX512(dst, src *float64, n int)
//
// The cache sweep's zmm copy: 256 bytes (32 elements) per iteration; n a multiple of 32.
TEXT ·copyAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX
	JZ   done
loop:
	VMOVUPD 0(SI), Z0
	VMOVUPD 64(SI), Z1
	VMOVUPD 128(SI), Z2
	VMOVUPD 192(SI), Z3
	VMOVUPD Z0, 0(DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	ADDQ $256, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func readAVX512(a *float64, n int) float64
//
// The cache sweep's zmm read: eight independent zmm sums, 512 bytes (64 elements) per
// iteration; n a multiple of 64.
TEXT ·readAVX512(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), SI
	MOVQ n+8(FP), CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	SHRQ $6, CX
	JZ   sum
loop:
	VADDPD 0(SI), Z0, Z0
	VADDPD 64(SI), Z1, Z1
	VADDPD 128(SI), Z2, Z2
	VADDPD 192(SI), Z3, Z3
	VADDPD 256(SI), Z4, Z4
	VADDPD 320(SI), Z5, Z5
	VADDPD 384(SI), Z6, Z6
	VADDPD 448(SI), Z7, Z7
	ADDQ $512, SI
	DECQ CX
	JNZ  loop
sum:
	VADDPD Z1, Z0, Z0
	VADDPD Z3, Z2, Z2
	VADDPD Z5, Z4, Z4
	VADDPD Z7, Z6, Z6
	VADDPD Z2, Z0, Z0
	VADDPD Z6, Z4, Z4
	VADDPD Z4, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0
	VZEROUPPER
	MOVSD X0, ret+16(FP)
	RET
