//go:build amd64 && !purego

#include "textflag.h"

// The streaming kernels (stream_amd64.go declares them, with the Go loop each equals) and
// calibration's memory mixes (perf/calibrate measures its envelope with them).
//
// The streaming kernels come in two forms: SSE (the amd64 baseline, every SIMD level's
// fallback) and AVX2 (ymm, the same operations 8 lanes wide, where the CPU has AVX2).
// Each writes whole 64-byte cache lines of output, loaded with MOVUPS or VMOVUPS (the
// inputs may have any alignment), stored with MOVNTPS or VMOVNTPS (the output is 64-byte
// aligned and its length a multiple of 16: Span), and ends with an SFENCE, so the streamed
// lines are globally visible before the worker's range is reported done (the AVX2 forms
// with a VZEROUPPER after it).
//
// The lines are not taken in order: each step of STREAM8 does one line in each of 8
// consecutive 4 KiB pages of the range (the lines at 0, 4096, ..., 28672 bytes from the
// pointers), 64 steps a block of 32 KiB, then jumps to the next block; the last lines, less
// than a block, take one half block over 4 pages where at least that many remain, and then
// go in order (STREAM4 the same over 4 pages, its half block over 2). The half block is for
// the short ranges a broadcast hands over one row at a time (a 4096-float row is 16 KiB,
// half of STREAM8's block), which would otherwise walk one page at a time. A core's
// hardware prefetcher follows each 4 KiB page as its own stream and runs only so far ahead
// in each, so a kernel that walks one page at a time moves less than the same core walking
// 8 at once (glibc's memcpy interleaves pages for the same reason).
//
// Within a step the pages go in groups: the lines of every page of a group are loaded (and
// computed) before any of them is stored, which keeps that many pages' loads in flight at
// once instead of one line's (the lines of a step alias in the low 12 address bits, and a
// store right after each line's loads waits on them). A group is as many pages as the
// registers hold: SSE holds a line in 4 XMM registers, so 2 pages (X0-X7; X8-X11 hold a
// kernel's constants, X12-X15 its temporaries); AVX2 holds it in 2 YMM registers, so 4
// pages (Y0-Y7, the same roles for Y8-Y15). The result of each element is the same in any
// order, and each element goes through the same instructions as in a one-line-at-a-time
// loop.

// PAIRS8 and PAIRS4 run LOAD over the same line of 8 or 4 consecutive pages, 2 pages a
// group: LOAD(off, a, b, c, d) loads (and computes) the line at off into a-d, STORE4 streams
// it.
#define PAIRS8(LOAD) \
	LOAD(0, X0, X1, X2, X3); LOAD(4096, X4, X5, X6, X7); \
	STORE4(0, X0, X1, X2, X3); STORE4(4096, X4, X5, X6, X7); \
	LOAD(8192, X0, X1, X2, X3); LOAD(12288, X4, X5, X6, X7); \
	STORE4(8192, X0, X1, X2, X3); STORE4(12288, X4, X5, X6, X7); \
	LOAD(16384, X0, X1, X2, X3); LOAD(20480, X4, X5, X6, X7); \
	STORE4(16384, X0, X1, X2, X3); STORE4(20480, X4, X5, X6, X7); \
	LOAD(24576, X0, X1, X2, X3); LOAD(28672, X4, X5, X6, X7); \
	STORE4(24576, X0, X1, X2, X3); STORE4(28672, X4, X5, X6, X7)
#define PAIRS4(LOAD) \
	LOAD(0, X0, X1, X2, X3); LOAD(4096, X4, X5, X6, X7); \
	STORE4(0, X0, X1, X2, X3); STORE4(4096, X4, X5, X6, X7); \
	LOAD(8192, X0, X1, X2, X3); LOAD(12288, X4, X5, X6, X7); \
	STORE4(8192, X0, X1, X2, X3); STORE4(12288, X4, X5, X6, X7)
#define PAIRS2(LOAD) \
	LOAD(0, X0, X1, X2, X3); LOAD(4096, X4, X5, X6, X7); \
	STORE4(0, X0, X1, X2, X3); STORE4(4096, X4, X5, X6, X7)

// QUADS8X is PAIRS8 for a kernel that holds no constants and needs no temporaries
// (copy): 4 pages a group, X0-X15.
#define QUADS8X(LOAD) \
	LOAD(0, X0, X1, X2, X3); LOAD(4096, X4, X5, X6, X7); \
	LOAD(8192, X8, X9, X10, X11); LOAD(12288, X12, X13, X14, X15); \
	STORE4(0, X0, X1, X2, X3); STORE4(4096, X4, X5, X6, X7); \
	STORE4(8192, X8, X9, X10, X11); STORE4(12288, X12, X13, X14, X15); \
	LOAD(16384, X0, X1, X2, X3); LOAD(20480, X4, X5, X6, X7); \
	LOAD(24576, X8, X9, X10, X11); LOAD(28672, X12, X13, X14, X15); \
	STORE4(16384, X0, X1, X2, X3); STORE4(20480, X4, X5, X6, X7); \
	STORE4(24576, X8, X9, X10, X11); STORE4(28672, X12, X13, X14, X15)

// LINE1 is LOAD and STORE4 at one line: the step of the in-order tail.
#define LINE1(LOAD) LOAD(0, X0, X1, X2, X3); STORE4(0, X0, X1, X2, X3)

// STORE4 streams a-d to the line of y at off.
#define STORE4(off, a, b, c, d) \
	MOVNTPS a, off+0(DI); \
	MOVNTPS b, off+16(DI); \
	MOVNTPS c, off+32(DI); \
	MOVNTPS d, off+48(DI)

// QUADS8 and QUADS4 are PAIRS8 and PAIRS4 in YMM registers, 4 pages a group:
// LOAD(off, a, b) loads (and computes) the line at off into a and b, YSTORE2 streams it.
#define QUADS8(LOAD) \
	LOAD(0, Y0, Y1); LOAD(4096, Y2, Y3); LOAD(8192, Y4, Y5); LOAD(12288, Y6, Y7); \
	YSTORE2(0, Y0, Y1); YSTORE2(4096, Y2, Y3); YSTORE2(8192, Y4, Y5); YSTORE2(12288, Y6, Y7); \
	LOAD(16384, Y0, Y1); LOAD(20480, Y2, Y3); LOAD(24576, Y4, Y5); LOAD(28672, Y6, Y7); \
	YSTORE2(16384, Y0, Y1); YSTORE2(20480, Y2, Y3); YSTORE2(24576, Y4, Y5); YSTORE2(28672, Y6, Y7)
#define QUADS4(LOAD) \
	LOAD(0, Y0, Y1); LOAD(4096, Y2, Y3); LOAD(8192, Y4, Y5); LOAD(12288, Y6, Y7); \
	YSTORE2(0, Y0, Y1); YSTORE2(4096, Y2, Y3); YSTORE2(8192, Y4, Y5); YSTORE2(12288, Y6, Y7)
#define QUADS2(LOAD) \
	LOAD(0, Y0, Y1); LOAD(4096, Y2, Y3); \
	YSTORE2(0, Y0, Y1); YSTORE2(4096, Y2, Y3)

// ALL8Y is QUADS8 for copy: all 8 pages one group, Y0-Y15.
#define ALL8Y(LOAD) \
	LOAD(0, Y0, Y1); LOAD(4096, Y2, Y3); LOAD(8192, Y4, Y5); LOAD(12288, Y6, Y7); \
	LOAD(16384, Y8, Y9); LOAD(20480, Y10, Y11); LOAD(24576, Y12, Y13); LOAD(28672, Y14, Y15); \
	YSTORE2(0, Y0, Y1); YSTORE2(4096, Y2, Y3); YSTORE2(8192, Y4, Y5); YSTORE2(12288, Y6, Y7); \
	YSTORE2(16384, Y8, Y9); YSTORE2(20480, Y10, Y11); YSTORE2(24576, Y12, Y13); YSTORE2(28672, Y14, Y15)

#define YLINE1(LOAD) LOAD(0, Y0, Y1); YSTORE2(0, Y0, Y1)

// YSTORE2 streams a and b to the line of y at off.
#define YSTORE2(off, a, b) \
	VMOVNTPS a, off+0(DI); \
	VMOVNTPS b, off+32(DI)

// STREAM runs LOAD over the CX lines at the pointers, interleaved as above over the pages
// of PAGES (BLOCK lines a block), then at most one half block over the pages of HALF, the
// tail one line at a time by ONE, then END (SFENCE and RET; AVX2: a VZEROUPPER between
// them). ADV advances the pointers by one line, JUMP by the pages a block skips, HJUMP by
// those a half block skips. BX counts the 64 steps of a block.
#define STREAM(PAGES, BLOCK, HALF, ONE, LOAD, ADV, JUMP, HJUMP, END) \
	CMPQ CX, $BLOCK; \
	JB   half; \
block: \
	MOVQ $64, BX; \
inner: \
	PAGES(LOAD); \
	ADV; \
	DECQ BX; \
	JNZ  inner; \
	JUMP; \
	SUBQ $BLOCK, CX; \
	CMPQ CX, $BLOCK; \
	JAE  block; \
half: \
	CMPQ CX, $(BLOCK/2); \
	JB   tail; \
	MOVQ $64, BX; \
hinner: \
	HALF(LOAD); \
	ADV; \
	DECQ BX; \
	JNZ  hinner; \
	HJUMP; \
	SUBQ $(BLOCK/2), CX; \
tail: \
	TESTQ CX, CX; \
	JZ   done; \
tloop: \
	ONE(LOAD); \
	ADV; \
	DECQ CX; \
	JNZ  tloop; \
done: \
	END

#define SSEEND SFENCE; RET
#define AVXEND SFENCE; VZEROUPPER; RET

// STREAM8 is STREAM over 8 pages for the kernels of one input and one output (16
// streams); the kernels of two inputs take STREAM4, 4 pages (12 streams), which did better
// than 8 for them (the prefetcher tracks a limited number of streams). YSTREAM8 and
// YSTREAM4 are the AVX2 forms.
#define STREAM8(LOAD) STREAM(PAIRS8, 512, PAIRS4, LINE1, LOAD, ADV1, JUMP1, HJUMP1, SSEEND)
#define STREAM4(LOAD) STREAM(PAIRS4, 256, PAIRS2, LINE1, LOAD, ADV2, JUMP2, HJUMP2, SSEEND)
#define YSTREAM8(LOAD) STREAM(QUADS8, 512, QUADS4, YLINE1, LOAD, ADV1, JUMP1, HJUMP1, AVXEND)
#define YSTREAM4(LOAD) STREAM(QUADS4, 256, QUADS2, YLINE1, LOAD, ADV2, JUMP2, HJUMP2, AVXEND)

// The pointer steps of a kernel of one input (SI) and of two (SI, DX).
#define ADV1 ADDQ $64, SI; ADDQ $64, DI
#define JUMP1 ADDQ $28672, SI; ADDQ $28672, DI
#define HJUMP1 ADDQ $12288, SI; ADDQ $12288, DI
#define ADV2 ADDQ $64, SI; ADDQ $64, DX; ADDQ $64, DI
#define JUMP2 ADDQ $12288, SI; ADDQ $12288, DX; ADDQ $12288, DI
#define HJUMP2 ADDQ $4096, SI; ADDQ $4096, DX; ADDQ $4096, DI

// ---- SSE ----

// COPY is one line of y = x.
#define COPY(off, a, b, c, d) \
	MOVUPS off+0(SI), a; \
	MOVUPS off+16(SI), b; \
	MOVUPS off+32(SI), c; \
	MOVUPS off+48(SI), d

// func copyNTSSE(y, x []float32)
TEXT ·copyNTSSE(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	STREAM(QUADS8X, 512, PAIRS4, LINE1, COPY, ADV1, JUMP1, HJUMP1, SSEEND)

// func reluNTSSE(y, x []float32)
//
// y = relu(x) bit for bit as Go's max(x, 0): MAXPS with +0 as the destination returns its
// source x when x is NaN or either zero, the larger otherwise; clearing the sign bit then
// maps -0 to +0 and clears a NaN's sign, as Go's max does (the NaN keeps its payload).
// RELU is one line of relu; X8 = +0, X9 = 0x7fffffff.
#define RELU(off, a, b, c, d) \
	MOVUPS off+0(SI), X12; \
	MOVUPS off+16(SI), X13; \
	MOVUPS off+32(SI), X14; \
	MOVUPS off+48(SI), X15; \
	MOVAPS X8, a; \
	MOVAPS X8, b; \
	MOVAPS X8, c; \
	MOVAPS X8, d; \
	MAXPS  X12, a; \
	MAXPS  X13, b; \
	MAXPS  X14, c; \
	MAXPS  X15, d; \
	ANDPS  X9, a; \
	ANDPS  X9, b; \
	ANDPS  X9, c; \
	ANDPS  X9, d

TEXT ·reluNTSSE(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	XORPS X8, X8               // +0
	PCMPEQL X9, X9
	PSRLL $1, X9               // 0x7fffffff in each lane
	STREAM8(RELU)

// ARITH is one line of y = a OP b at off into r0-r3: DI = y, SI = a, DX = b. SSE
// arithmetic is IEEE single precision, the same operation Go's float32 operators compile
// to.
#define ARITH(OP, off, r0, r1, r2, r3) \
	MOVUPS off+0(SI), r0; \
	MOVUPS off+16(SI), r1; \
	MOVUPS off+32(SI), r2; \
	MOVUPS off+48(SI), r3; \
	MOVUPS off+0(DX), X12; \
	MOVUPS off+16(DX), X13; \
	MOVUPS off+32(DX), X14; \
	MOVUPS off+48(DX), X15; \
	OP X12, r0; \
	OP X13, r1; \
	OP X14, r2; \
	OP X15, r3

#define ADD(off, a, b, c, d) ARITH(ADDPS, off, a, b, c, d)
#define SUB(off, a, b, c, d) ARITH(SUBPS, off, a, b, c, d)
#define MUL(off, a, b, c, d) ARITH(MULPS, off, a, b, c, d)
#define DIV(off, a, b, c, d) ARITH(DIVPS, off, a, b, c, d)

// func addNTSSE(y, a, b []float32)
TEXT ·addNTSSE(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(ADD)

// func subNTSSE(y, a, b []float32)
TEXT ·subNTSSE(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(SUB)

// func mulNTSSE(y, a, b []float32)
TEXT ·mulNTSSE(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(MUL)

// func divNTSSE(y, a, b []float32)
TEXT ·divNTSSE(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(DIV)

// The per-row scalar forms, y = a OP s and y = s OP a, where s is one element broadcast
// over the row (a [R, N] ∘ [R, 1] operand): DI = y, CX = the number of whole lines, SI = a,
// X8 = s in every lane (SHUFPS). Memory operands of SSE arithmetic must be 16-byte
// aligned, which a is not required to be, so a is always loaded with MOVUPS first. (The
// argument loads are written out in each function, not in a macro, so that vet's asmdecl
// checks them against the Go declarations.)

// ARITHS is one line of y = a OP s into r0-r3.
#define ARITHS(OP, off, r0, r1, r2, r3) \
	MOVUPS off+0(SI), r0; \
	MOVUPS off+16(SI), r1; \
	MOVUPS off+32(SI), r2; \
	MOVUPS off+48(SI), r3; \
	OP X8, r0; \
	OP X8, r1; \
	OP X8, r2; \
	OP X8, r3

// RARITHS is one line of y = s OP a into r0-r3.
#define RARITHS(OP, off, r0, r1, r2, r3) \
	MOVUPS off+0(SI), X12; \
	MOVUPS off+16(SI), X13; \
	MOVUPS off+32(SI), X14; \
	MOVUPS off+48(SI), X15; \
	MOVAPS X8, r0; \
	MOVAPS X8, r1; \
	MOVAPS X8, r2; \
	MOVAPS X8, r3; \
	OP X12, r0; \
	OP X13, r1; \
	OP X14, r2; \
	OP X15, r3

#define ADDS(off, a, b, c, d) ARITHS(ADDPS, off, a, b, c, d)
#define SUBS(off, a, b, c, d) ARITHS(SUBPS, off, a, b, c, d)
#define MULS(off, a, b, c, d) ARITHS(MULPS, off, a, b, c, d)
#define DIVS(off, a, b, c, d) ARITHS(DIVPS, off, a, b, c, d)
#define RSUBS(off, a, b, c, d) RARITHS(SUBPS, off, a, b, c, d)
#define RDIVS(off, a, b, c, d) RARITHS(DIVPS, off, a, b, c, d)

// func addSNTSSE(y, a []float32, s float32)
TEXT ·addSNTSSE(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(ADDS)

// func subSNTSSE(y, a []float32, s float32)
TEXT ·subSNTSSE(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(SUBS)

// func mulSNTSSE(y, a []float32, s float32)
TEXT ·mulSNTSSE(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(MULS)

// func divSNTSSE(y, a []float32, s float32)
TEXT ·divSNTSSE(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(DIVS)

// func rsubSNTSSE(y, a []float32, s float32)
TEXT ·rsubSNTSSE(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(RSUBS)

// func rdivSNTSSE(y, a []float32, s float32)
TEXT ·rdivSNTSSE(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(RDIVS)

// LEAKY is y = x * f for 16 bytes at off into r (t a temporary), where f is 1 in the lanes
// whose sign bit is clear and the slope where it is set, as the Go kernel's factor table:
// f = 1 XOR (mask AND (1 XOR slope)), the mask from the sign bit by an arithmetic shift.
// X10 = 1, X11 = 1 XOR slope. MULPS is Go's float32 multiply; f is never NaN, so a NaN x
// comes out quieted with its payload and sign, as in Go.
#define LEAKY(off, r, t) \
	MOVUPS off(SI), r; \
	MOVAPS r, t; \
	PSRAL  $31, t; \
	ANDPS  X11, t; \
	XORPS  X10, t; \
	MULPS  t, r

#define LEAKYLINE(off, a, b, c, d) \
	LEAKY(off+0, a, X12); LEAKY(off+16, b, X13); LEAKY(off+32, c, X14); LEAKY(off+48, d, X15)

// func leakyReluNTSSE(y, x []float32, s float32)
TEXT ·leakyReluNTSSE(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	MOVSS s+48(FP), X11
	SHUFPS $0, X11, X11
	MOVL $0x3f800000, AX       // 1.0
	MOVQ AX, X10
	SHUFPS $0, X10, X10
	XORPS X10, X11
	STREAM8(LEAKYLINE)

// CLAMP is y = min(max(x, lo), hi) for 16 bytes at off into r (t1, t2 temporaries), in the
// very sequence the Go compiler emits for float32 min and max on amd64
// (ssa/_gen/AMD64.rules), so that NaN payloads and signed zeros come out as in the Go loop:
//	min(u, v) = t1 | MINPS(t1, u) with t1 = MINPS(u, v)  (MINPS(p, q) = p < q ? p : q)
//	max(u, v) = -min(-u, -v)
// X9 = the sign bit, X10 = -lo, X11 = hi.
#define CLAMP(off, r, t1, t2) \
	MOVUPS off(SI), r; \
	XORPS  X9, r; \
	MOVAPS r, t1; \
	MINPS  X10, t1; \
	MOVAPS t1, t2; \
	MINPS  r, t2; \
	ORPS   t2, t1; \
	XORPS  X9, t1; \
	MOVAPS t1, r; \
	MINPS  X11, r; \
	MOVAPS r, t2; \
	MINPS  t1, t2; \
	ORPS   t2, r

#define CLAMPLINE(off, a, b, c, d) \
	CLAMP(off+0, a, X12, X13); CLAMP(off+16, b, X14, X15); \
	CLAMP(off+32, c, X12, X13); CLAMP(off+48, d, X14, X15)

// func clampNTSSE(y, x []float32, lo, hi float32)
TEXT ·clampNTSSE(SB), NOSPLIT, $0-56
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	PCMPEQL X9, X9
	PSLLL $31, X9              // 0x80000000 in each lane
	MOVSS lo+48(FP), X10
	SHUFPS $0, X10, X10
	XORPS X9, X10
	MOVSS hi+52(FP), X11
	SHUFPS $0, X11, X11
	STREAM8(CLAMPLINE)

// ---- AVX2 ----
//
// The same operations on 8 lanes, element for element: VEX arithmetic takes unaligned
// memory operands, so an input is read by the operation itself where the SSE form loads it
// first; the VEX operand order keeps the SSE form's first source (Go asm lists the
// destination last and the first source before it: VSUBPS b, a, r is r = a - b), so MAXPS
// and MINPS return the same operand on a NaN or a pair of zeros, and the same NaN comes
// out of a NaN operand.

// YCOPY is one line of y = x.
#define YCOPY(off, a, b) \
	VMOVUPS off+0(SI), a; \
	VMOVUPS off+32(SI), b

// func copyNTAVX2(y, x []float32)
TEXT ·copyNTAVX2(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	STREAM(ALL8Y, 512, QUADS4, YLINE1, YCOPY, ADV1, JUMP1, HJUMP1, AVXEND)

// YRELU is one line of relu (reluNTSSE): max(+0, x), then the sign cleared; Y8 = +0, Y9 =
// 0x7fffffff.
#define YRELU(off, a, b) \
	VMAXPS off+0(SI), Y8, a; \
	VMAXPS off+32(SI), Y8, b; \
	VANDPS Y9, a, a; \
	VANDPS Y9, b, b

// func reluNTAVX2(y, x []float32)
TEXT ·reluNTAVX2(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	VXORPS Y8, Y8, Y8          // +0
	VPCMPEQD Y9, Y9, Y9
	VPSRLD $1, Y9, Y9          // 0x7fffffff in each lane
	YSTREAM8(YRELU)

// YARITH is one line of y = a OP b into r0, r1: DI = y, SI = a, DX = b.
#define YARITH(OP, off, r0, r1) \
	VMOVUPS off+0(SI), r0; \
	VMOVUPS off+32(SI), r1; \
	OP off+0(DX), r0, r0; \
	OP off+32(DX), r1, r1

#define YADD(off, a, b) YARITH(VADDPS, off, a, b)
#define YSUB(off, a, b) YARITH(VSUBPS, off, a, b)
#define YMUL(off, a, b) YARITH(VMULPS, off, a, b)
#define YDIV(off, a, b) YARITH(VDIVPS, off, a, b)

// func addNTAVX2(y, a, b []float32)
TEXT ·addNTAVX2(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	YSTREAM4(YADD)

// func subNTAVX2(y, a, b []float32)
TEXT ·subNTAVX2(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	YSTREAM4(YSUB)

// func mulNTAVX2(y, a, b []float32)
TEXT ·mulNTAVX2(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	YSTREAM4(YMUL)

// func divNTAVX2(y, a, b []float32)
TEXT ·divNTAVX2(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	YSTREAM4(YDIV)

// YARITHS is one line of y = a OP s into r0, r1, YRARITHS of y = s OP a; Y8 = s in every
// lane.
#define YARITHS(OP, off, r0, r1) \
	VMOVUPS off+0(SI), r0; \
	VMOVUPS off+32(SI), r1; \
	OP Y8, r0, r0; \
	OP Y8, r1, r1
#define YRARITHS(OP, off, r0, r1) \
	OP off+0(SI), Y8, r0; \
	OP off+32(SI), Y8, r1

#define YADDS(off, a, b) YARITHS(VADDPS, off, a, b)
#define YSUBS(off, a, b) YARITHS(VSUBPS, off, a, b)
#define YMULS(off, a, b) YARITHS(VMULPS, off, a, b)
#define YDIVS(off, a, b) YARITHS(VDIVPS, off, a, b)
#define YRSUBS(off, a, b) YRARITHS(VSUBPS, off, a, b)
#define YRDIVS(off, a, b) YRARITHS(VDIVPS, off, a, b)

// func addSNTAVX2(y, a []float32, s float32)
TEXT ·addSNTAVX2(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	VBROADCASTSS s+48(FP), Y8
	SHRQ $4, CX
	YSTREAM8(YADDS)

// func subSNTAVX2(y, a []float32, s float32)
TEXT ·subSNTAVX2(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	VBROADCASTSS s+48(FP), Y8
	SHRQ $4, CX
	YSTREAM8(YSUBS)

// func mulSNTAVX2(y, a []float32, s float32)
TEXT ·mulSNTAVX2(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	VBROADCASTSS s+48(FP), Y8
	SHRQ $4, CX
	YSTREAM8(YMULS)

// func divSNTAVX2(y, a []float32, s float32)
TEXT ·divSNTAVX2(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	VBROADCASTSS s+48(FP), Y8
	SHRQ $4, CX
	YSTREAM8(YDIVS)

// func rsubSNTAVX2(y, a []float32, s float32)
TEXT ·rsubSNTAVX2(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	VBROADCASTSS s+48(FP), Y8
	SHRQ $4, CX
	YSTREAM8(YRSUBS)

// func rdivSNTAVX2(y, a []float32, s float32)
TEXT ·rdivSNTAVX2(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	VBROADCASTSS s+48(FP), Y8
	SHRQ $4, CX
	YSTREAM8(YRDIVS)

// YLEAKY is LEAKY on 32 bytes at off into r (t a temporary); Y10 = 1, Y11 = 1 XOR slope.
#define YLEAKY(off, r, t) \
	VMOVUPS off(SI), r; \
	VPSRAD  $31, r, t; \
	VANDPS  Y11, t, t; \
	VXORPS  Y10, t, t; \
	VMULPS  t, r, r

#define YLEAKYLINE(off, a, b) YLEAKY(off+0, a, Y12); YLEAKY(off+32, b, Y13)

// func leakyReluNTAVX2(y, x []float32, s float32)
TEXT ·leakyReluNTAVX2(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	VBROADCASTSS s+48(FP), Y11
	MOVL $0x3f800000, AX       // 1.0
	MOVQ AX, X10
	VBROADCASTSS X10, Y10
	VXORPS Y10, Y11, Y11
	YSTREAM8(YLEAKYLINE)

// YCLAMP is CLAMP on 32 bytes at off into r (t1, t2 temporaries); Y9 = the sign bit, Y10 =
// -lo, Y11 = hi.
#define YCLAMP(off, r, t1, t2) \
	VXORPS off(SI), Y9, r; \
	VMINPS Y10, r, t1; \
	VMINPS r, t1, t2; \
	VORPS  t2, t1, t1; \
	VXORPS Y9, t1, t1; \
	VMINPS Y11, t1, r; \
	VMINPS t1, r, t2; \
	VORPS  t2, r, r

#define YCLAMPLINE(off, a, b) YCLAMP(off+0, a, Y12, Y13); YCLAMP(off+32, b, Y14, Y15)

// func clampNTAVX2(y, x []float32, lo, hi float32)
TEXT ·clampNTAVX2(SB), NOSPLIT, $0-56
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	VPCMPEQD Y9, Y9, Y9
	VPSLLD $31, Y9, Y9         // 0x80000000 in each lane
	VBROADCASTSS lo+48(FP), Y10
	VXORPS Y9, Y10, Y10
	VBROADCASTSS hi+52(FP), Y11
	YSTREAM8(YCLAMPLINE)

// ---- Calibration's memory mixes ----
//
// perf/calibrate's mixes besides the streaming copy (which is copyNTAVX2 above): ordinary
// loads and stores in ymm and zmm, the triad a = b + s*c, and two more non-temporal
// kernels, the triad walking 4 pages at once as the two-input streaming kernels do and the
// fill in order. Each of the ordinary ones does the whole iterations of its slice (its
// iteration's bytes are in its comment) and leaves the rest to its Go wrapper.

// func copyAVX2(y, x []float32)
//
// 128 bytes an iteration.
TEXT ·copyAVX2(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $5, CX
	JZ   done
loop:
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func triadAVX2(a, b, c []float32, s float32)
//
// a = b + s*c, fused; 128 bytes of each array an iteration.
TEXT ·triadAVX2(SB), NOSPLIT, $0-76
	MOVQ a_base+0(FP), DI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), SI
	MOVQ c_base+48(FP), DX
	VBROADCASTSS s+72(FP), Y15
	SHRQ $5, CX
	JZ   done
loop:
	VMOVUPS 0(DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS 64(DX), Y2
	VMOVUPS 96(DX), Y3
	VFMADD213PS 0(SI), Y15, Y0
	VFMADD213PS 32(SI), Y15, Y1
	VFMADD213PS 64(SI), Y15, Y2
	VFMADD213PS 96(SI), Y15, Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DX
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// YTRIAD is one line of a = b + s*c (triadNTAVX2): DI = a, SI = b, DX = c, Y15 = s.
#define YTRIAD(off, x, y) \
	VMOVUPS off+0(DX), x; \
	VMOVUPS off+32(DX), y; \
	VFMADD213PS off+0(SI), Y15, x; \
	VFMADD213PS off+32(SI), Y15, y

// func triadNTAVX2(a, b, c []float32, s float32)
TEXT ·triadNTAVX2(SB), NOSPLIT, $0-76
	MOVQ a_base+0(FP), DI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), SI
	MOVQ c_base+48(FP), DX
	VBROADCASTSS s+72(FP), Y15
	SHRQ $4, CX
	YSTREAM4(YTRIAD)

// func readAVX2(x []float32) float32
//
// Eight independent sums of ymm lanes, so add latency never limits the load rate (two
// loads a cycle from L1 need eight adds in flight at latency 4); 256 bytes an iteration.
TEXT ·readAVX2(SB), NOSPLIT, $0-28
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	SHRQ $6, CX
	JZ   sum
loop:
	VADDPS 0(SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	VADDPS 128(SI), Y4, Y4
	VADDPS 160(SI), Y5, Y5
	VADDPS 192(SI), Y6, Y6
	VADDPS 224(SI), Y7, Y7
	ADDQ $256, SI
	DECQ CX
	JNZ  loop
sum:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	VADDPS Y2, Y0, Y0
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func fillAVX2(y []float32, s float32)
//
// 128 bytes an iteration.
TEXT ·fillAVX2(SB), NOSPLIT, $0-28
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	VBROADCASTSS s+24(FP), Y0
	SHRQ $5, CX
	JZ   done
loop:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y0, 32(DI)
	VMOVUPS Y0, 64(DI)
	VMOVUPS Y0, 96(DI)
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func fillNTAVX2(y []float32, s float32)
//
// In order, two lines (128 bytes) an iteration, then the odd line.
TEXT ·fillNTAVX2(SB), NOSPLIT, $0-28
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	VBROADCASTSS s+24(FP), Y0
	SHRQ $4, CX
	MOVQ CX, BX
	SHRQ $1, CX
	JZ   odd
loop:
	VMOVNTPS Y0, 0(DI)
	VMOVNTPS Y0, 32(DI)
	VMOVNTPS Y0, 64(DI)
	VMOVNTPS Y0, 96(DI)
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
odd:
	TESTQ $1, BX
	JZ    done
	VMOVNTPS Y0, 0(DI)
	VMOVNTPS Y0, 32(DI)
done:
	SFENCE
	VZEROUPPER
	RET

// func copyAVX512(y, x []float32)
//
// 256 bytes an iteration.
TEXT ·copyAVX512(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $6, CX
	JZ   done
loop:
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS 128(SI), Z2
	VMOVUPS 192(SI), Z3
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func readAVX512(x []float32) float32
//
// Eight independent zmm sums; 512 bytes an iteration.
TEXT ·readAVX512(SB), NOSPLIT, $0-28
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	SHRQ $7, CX
	JZ   sum
loop:
	VADDPS 0(SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	VADDPS 128(SI), Z2, Z2
	VADDPS 192(SI), Z3, Z3
	VADDPS 256(SI), Z4, Z4
	VADDPS 320(SI), Z5, Z5
	VADDPS 384(SI), Z6, Z6
	VADDPS 448(SI), Z7, Z7
	ADDQ $512, SI
	DECQ CX
	JNZ  loop
sum:
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z5, Z4, Z4
	VADDPS Z7, Z6, Z6
	VADDPS Z2, Z0, Z0
	VADDPS Z6, Z4, Z4
	VADDPS Z4, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
