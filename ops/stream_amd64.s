//go:build amd64

#include "textflag.h"

// Streaming kernels: SSE only (the amd64 baseline), one 64-byte cache line of output per
// step, loaded with MOVUPS (the inputs may have any alignment), stored with MOVNTPS (the
// output is 64-byte aligned and its length a multiple of 16: stream_amd64.go's ntSpan),
// and an SFENCE before returning so the streamed lines are globally visible before the
// worker's range is reported done.
//
// The lines are not taken in order: each step of STREAM8 does one line in each of 8
// consecutive 4 KiB pages of the range (the lines at 0, 4096, ..., 28672 bytes from the
// pointers), 64 steps a block of 32 KiB, then jumps to the next block; the last lines, less
// than a block, go in order (STREAM4 the same over 4 pages). A core's hardware prefetcher
// follows each 4 KiB page as its own stream and runs only so far ahead in each, so a
// kernel that walks one page at a time moves about 0.7-0.8 of what the same core moves
// walking 8 at once (glibc's memcpy interleaves pages for the same reason). The result of
// each element is the same in any order.

// LINES8 and LINES4 are LINE at the same line of 8 or 4 consecutive pages.
#define LINES8(LINE) LINE(0); LINE(4096); LINE(8192); LINE(12288); LINE(16384); LINE(20480); LINE(24576); LINE(28672)
#define LINES4(LINE) LINE(0); LINE(4096); LINE(8192); LINE(12288)

// STREAM runs LINE over the CX lines at the pointers, interleaved as above over the pages
// of LINES (BLOCK lines a block), then SFENCE and RET. ADV advances the pointers by one
// line, JUMP by the pages a block skips. BX counts the 64 steps of a block.
#define STREAM(LINES, BLOCK, LINE, ADV, JUMP) \
	CMPQ CX, $BLOCK; \
	JB   tail; \
block: \
	MOVQ $64, BX; \
inner: \
	LINES(LINE); \
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
	LINE(0); \
	ADV; \
	DECQ CX; \
	JNZ  tloop; \
done: \
	SFENCE; \
	RET

// STREAM8 is STREAM over 8 pages for the kernels of one input and one output (16
// streams); the kernels of two inputs take STREAM4, 4 pages (12 streams), which did better
// than 8 for them (the prefetcher tracks a limited number of streams).
#define STREAM8(LINE) STREAM(LINES8, 512, LINE, ADV1, JUMP1)
#define STREAM4(LINE) STREAM(LINES4, 256, LINE, ADV2, JUMP2)

// The pointer steps of a kernel of one input (SI) and of two (SI, DX).
#define ADV1 ADDQ $64, SI; ADDQ $64, DI
#define JUMP1 ADDQ $28672, SI; ADDQ $28672, DI
#define ADV2 ADDQ $64, SI; ADDQ $64, DX; ADDQ $64, DI
#define JUMP2 ADDQ $12288, SI; ADDQ $12288, DX; ADDQ $12288, DI

// COPYLINE is one line of y = x.
#define COPYLINE(off) \
	MOVUPS off+0(SI), X0; \
	MOVUPS off+16(SI), X1; \
	MOVUPS off+32(SI), X2; \
	MOVUPS off+48(SI), X3; \
	MOVNTPS X0, off+0(DI); \
	MOVNTPS X1, off+16(DI); \
	MOVNTPS X2, off+32(DI); \
	MOVNTPS X3, off+48(DI)

// func copyNT(y, x []float32)
TEXT ·copyNT(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	STREAM8(COPYLINE)

// func reluNT(y, x []float32)
//
// y = relu(x) bit for bit as Go's max(x, 0): MAXPS with +0 as the destination returns its
// source x when x is NaN or either zero, the larger otherwise; clearing the sign bit then
// maps -0 to +0 and clears a NaN's sign, as Go's max does (the NaN keeps its payload).
// RELULINE is one line of relu; X8 = +0, X9 = 0x7fffffff.
#define RELULINE(off) \
	MOVUPS off+0(SI), X0; \
	MOVUPS off+16(SI), X1; \
	MOVUPS off+32(SI), X2; \
	MOVUPS off+48(SI), X3; \
	MOVAPS X8, X4; \
	MOVAPS X8, X5; \
	MOVAPS X8, X6; \
	MOVAPS X8, X7; \
	MAXPS  X0, X4; \
	MAXPS  X1, X5; \
	MAXPS  X2, X6; \
	MAXPS  X3, X7; \
	ANDPS  X9, X4; \
	ANDPS  X9, X5; \
	ANDPS  X9, X6; \
	ANDPS  X9, X7; \
	MOVNTPS X4, off+0(DI); \
	MOVNTPS X5, off+16(DI); \
	MOVNTPS X6, off+32(DI); \
	MOVNTPS X7, off+48(DI)

TEXT ·reluNT(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	XORPS X8, X8               // +0
	PCMPEQL X9, X9
	PSRLL $1, X9               // 0x7fffffff in each lane
	STREAM8(RELULINE)

// ARITH is one line of y = a OP b at off: DI = y, SI = a, DX = b. SSE arithmetic is IEEE
// single precision, the same operation Go's float32 operators compile to.
#define ARITH(OP, off) \
	MOVUPS off+0(SI), X0; \
	MOVUPS off+16(SI), X1; \
	MOVUPS off+32(SI), X2; \
	MOVUPS off+48(SI), X3; \
	MOVUPS off+0(DX), X4; \
	MOVUPS off+16(DX), X5; \
	MOVUPS off+32(DX), X6; \
	MOVUPS off+48(DX), X7; \
	OP X4, X0; \
	OP X5, X1; \
	OP X6, X2; \
	OP X7, X3; \
	STORE4(off)

// STORE4 streams X0-X3 to the line of y at off.
#define STORE4(off) \
	MOVNTPS X0, off+0(DI); \
	MOVNTPS X1, off+16(DI); \
	MOVNTPS X2, off+32(DI); \
	MOVNTPS X3, off+48(DI)

#define ADDLINE(off) ARITH(ADDPS, off)
#define SUBLINE(off) ARITH(SUBPS, off)
#define MULLINE(off) ARITH(MULPS, off)
#define DIVLINE(off) ARITH(DIVPS, off)

// func addNT(y, a, b []float32)
TEXT ·addNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(ADDLINE)

// func subNT(y, a, b []float32)
TEXT ·subNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(SUBLINE)

// func mulNT(y, a, b []float32)
TEXT ·mulNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(MULLINE)

// func divNT(y, a, b []float32)
TEXT ·divNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	STREAM4(DIVLINE)

// The per-row scalar forms, y = a OP s and y = s OP a, where s is one element broadcast
// over the row (a [R, N] ∘ [R, 1] operand): DI = y, CX = the number of whole lines, SI = a,
// X8 = s in every lane (SHUFPS). Memory operands of SSE arithmetic must be 16-byte
// aligned, which a is not required to be, so a is always loaded with MOVUPS first. (The
// argument loads are written out in each function, not in a macro, so that vet's asmdecl
// checks them against the Go declarations.)

// ARITHS is one line of y = a OP s.
#define ARITHS(OP, off) \
	MOVUPS off+0(SI), X0; \
	MOVUPS off+16(SI), X1; \
	MOVUPS off+32(SI), X2; \
	MOVUPS off+48(SI), X3; \
	OP X8, X0; \
	OP X8, X1; \
	OP X8, X2; \
	OP X8, X3; \
	STORE4(off)

// RARITHS is one line of y = s OP a.
#define RARITHS(OP, off) \
	MOVUPS off+0(SI), X4; \
	MOVUPS off+16(SI), X5; \
	MOVUPS off+32(SI), X6; \
	MOVUPS off+48(SI), X7; \
	MOVAPS X8, X0; \
	MOVAPS X8, X1; \
	MOVAPS X8, X2; \
	MOVAPS X8, X3; \
	OP X4, X0; \
	OP X5, X1; \
	OP X6, X2; \
	OP X7, X3; \
	STORE4(off)

#define ADDSLINE(off) ARITHS(ADDPS, off)
#define SUBSLINE(off) ARITHS(SUBPS, off)
#define MULSLINE(off) ARITHS(MULPS, off)
#define DIVSLINE(off) ARITHS(DIVPS, off)
#define RSUBSLINE(off) RARITHS(SUBPS, off)
#define RDIVSLINE(off) RARITHS(DIVPS, off)

// func addSNT(y, a []float32, s float32)
TEXT ·addSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(ADDSLINE)

// func subSNT(y, a []float32, s float32)
TEXT ·subSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(SUBSLINE)

// func mulSNT(y, a []float32, s float32)
TEXT ·mulSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(MULSLINE)

// func divSNT(y, a []float32, s float32)
TEXT ·divSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(DIVSLINE)

// func rsubSNT(y, a []float32, s float32)
TEXT ·rsubSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(RSUBSLINE)

// func rdivSNT(y, a []float32, s float32)
TEXT ·rdivSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	STREAM8(RDIVSLINE)

// LEAKY is y = x * f for 16 bytes at off, where f is 1 in the lanes whose sign bit is
// clear and the slope where it is set, as the Go kernel's factor table: f = 1 XOR (mask
// AND (1 XOR slope)), the mask from the sign bit by an arithmetic shift. X10 = 1, X11 =
// 1 XOR slope. MULPS is Go's float32 multiply; f is never NaN, so a NaN x comes out
// quieted with its payload and sign, as in Go.
#define LEAKY(off) \
	MOVUPS off(SI), X0; \
	MOVAPS X0, X1; \
	PSRAL  $31, X1; \
	ANDPS  X11, X1; \
	XORPS  X10, X1; \
	MULPS  X1, X0; \
	MOVNTPS X0, off(DI)

#define LEAKYLINE(off) LEAKY(off+0); LEAKY(off+16); LEAKY(off+32); LEAKY(off+48)

// func leakyReluNT(y, x []float32, s float32)
TEXT ·leakyReluNT(SB), NOSPLIT, $0-52
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

// CLAMP is y = min(max(x, lo), hi) for 16 bytes at off, in the very sequence the Go
// compiler emits for float32 min and max on amd64 (ssa/_gen/AMD64.rules), so that NaN
// payloads and signed zeros come out as in the Go loop:
//	min(u, v) = t1 | MINPS(t1, u) with t1 = MINPS(u, v)  (MINPS(p, q) = p < q ? p : q)
//	max(u, v) = -min(-u, -v)
// X9 = the sign bit, X10 = -lo, X11 = hi.
#define CLAMP(off) \
	MOVUPS off(SI), X0; \
	XORPS  X9, X0; \
	MOVAPS X0, X1; \
	MINPS  X10, X1; \
	MOVAPS X1, X2; \
	MINPS  X0, X2; \
	ORPS   X2, X1; \
	XORPS  X9, X1; \
	MOVAPS X1, X0; \
	MINPS  X11, X0; \
	MOVAPS X0, X2; \
	MINPS  X1, X2; \
	ORPS   X2, X0; \
	MOVNTPS X0, off(DI)

#define CLAMPLINE(off) CLAMP(off+0); CLAMP(off+16); CLAMP(off+32); CLAMP(off+48)

// func clampNT(y, x []float32, lo, hi float32)
TEXT ·clampNT(SB), NOSPLIT, $0-56
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
