//go:build amd64

#include "textflag.h"

// Streaming kernels: SSE only (the amd64 baseline), one 64-byte cache line of output per
// iteration, loaded with MOVUPS (the inputs may have any alignment), stored with MOVNTPS
// (the output is 64-byte aligned and its length a multiple of 16: stream_amd64.go's
// ntSpan), and an SFENCE before returning so the streamed lines are globally visible
// before the worker's range is reported done.

// func reluNT(y, x []float32)
//
// y = relu(x) bit for bit as Go's max(x, 0): MAXPS with +0 as the destination returns its
// source x when x is NaN or either zero, the larger otherwise; clearing the sign bit then
// maps -0 to +0 and clears a NaN's sign, as Go's max does (the NaN keeps its payload).
TEXT ·reluNT(SB), NOSPLIT, $0-48
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	JZ   done
	XORPS X8, X8               // +0
	PCMPEQL X9, X9
	PSRLL $1, X9               // 0x7fffffff in each lane
loop:
	MOVUPS 0(SI), X0
	MOVUPS 16(SI), X1
	MOVUPS 32(SI), X2
	MOVUPS 48(SI), X3
	MOVAPS X8, X4
	MOVAPS X8, X5
	MOVAPS X8, X6
	MOVAPS X8, X7
	MAXPS  X0, X4              // X4 = max(+0, x0), x0 if NaN or zero
	MAXPS  X1, X5
	MAXPS  X2, X6
	MAXPS  X3, X7
	ANDPS  X9, X4
	ANDPS  X9, X5
	ANDPS  X9, X6
	ANDPS  X9, X7
	MOVNTPS X4, 0(DI)
	MOVNTPS X5, 16(DI)
	MOVNTPS X6, 32(DI)
	MOVNTPS X7, 48(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// ARITH is one line of y = a OP b: DI = y, SI = a, DX = b. SSE arithmetic is IEEE single
// precision, the same operation Go's float32 operators compile to.
#define ARITH(OP) \
	MOVUPS 0(SI), X0; \
	MOVUPS 16(SI), X1; \
	MOVUPS 32(SI), X2; \
	MOVUPS 48(SI), X3; \
	MOVUPS 0(DX), X4; \
	MOVUPS 16(DX), X5; \
	MOVUPS 32(DX), X6; \
	MOVUPS 48(DX), X7; \
	OP X4, X0; \
	OP X5, X1; \
	OP X6, X2; \
	OP X7, X3; \
	MOVNTPS X0, 0(DI); \
	MOVNTPS X1, 16(DI); \
	MOVNTPS X2, 32(DI); \
	MOVNTPS X3, 48(DI); \
	ADDQ $64, SI; \
	ADDQ $64, DX; \
	ADDQ $64, DI

// func addNT(y, a, b []float32)
TEXT ·addNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	JZ   done
loop:
	ARITH(ADDPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func subNT(y, a, b []float32)
TEXT ·subNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	JZ   done
loop:
	ARITH(SUBPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func mulNT(y, a, b []float32)
TEXT ·mulNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	JZ   done
loop:
	ARITH(MULPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func divNT(y, a, b []float32)
TEXT ·divNT(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $4, CX
	JZ   done
loop:
	ARITH(DIVPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// The per-row scalar forms, y = a OP s and y = s OP a, where s is one element broadcast
// over the row (a [R, N] ∘ [R, 1] operand): DI = y, CX = the number of whole lines, SI = a,
// X8 = s in every lane (SHUFPS). Memory operands of SSE arithmetic must be 16-byte
// aligned, which a is not required to be, so a is always loaded with MOVUPS first. (The
// argument loads are written out in each function, not in a macro, so that vet's asmdecl
// checks them against the Go declarations.)

// STORE4 streams X0-X3 to one line of y and advances SI and DI.
#define STORE4 \
	MOVNTPS X0, 0(DI); \
	MOVNTPS X1, 16(DI); \
	MOVNTPS X2, 32(DI); \
	MOVNTPS X3, 48(DI); \
	ADDQ $64, SI; \
	ADDQ $64, DI

// ARITHS is one line of y = a OP s.
#define ARITHS(OP) \
	MOVUPS 0(SI), X0; \
	MOVUPS 16(SI), X1; \
	MOVUPS 32(SI), X2; \
	MOVUPS 48(SI), X3; \
	OP X8, X0; \
	OP X8, X1; \
	OP X8, X2; \
	OP X8, X3; \
	STORE4

// RARITHS is one line of y = s OP a.
#define RARITHS(OP) \
	MOVUPS 0(SI), X4; \
	MOVUPS 16(SI), X5; \
	MOVUPS 32(SI), X6; \
	MOVUPS 48(SI), X7; \
	MOVAPS X8, X0; \
	MOVAPS X8, X1; \
	MOVAPS X8, X2; \
	MOVAPS X8, X3; \
	OP X4, X0; \
	OP X5, X1; \
	OP X6, X2; \
	OP X7, X3; \
	STORE4

// func addSNT(y, a []float32, s float32)
TEXT ·addSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	JZ   done
loop:
	ARITHS(ADDPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func subSNT(y, a []float32, s float32)
TEXT ·subSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	JZ   done
loop:
	ARITHS(SUBPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func mulSNT(y, a []float32, s float32)
TEXT ·mulSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	JZ   done
loop:
	ARITHS(MULPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func divSNT(y, a []float32, s float32)
TEXT ·divSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	JZ   done
loop:
	ARITHS(DIVPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func rsubSNT(y, a []float32, s float32)
TEXT ·rsubSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	JZ   done
loop:
	RARITHS(SUBPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

// func rdivSNT(y, a []float32, s float32)
TEXT ·rdivSNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVSS s+48(FP), X8
	SHUFPS $0, X8, X8
	SHRQ $4, CX
	JZ   done
loop:
	RARITHS(DIVPS)
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

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

// func leakyReluNT(y, x []float32, s float32)
TEXT ·leakyReluNT(SB), NOSPLIT, $0-52
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	JZ   done
	MOVSS s+48(FP), X11
	SHUFPS $0, X11, X11
	MOVL $0x3f800000, AX       // 1.0
	MOVQ AX, X10
	SHUFPS $0, X10, X10
	XORPS X10, X11
loop:
	LEAKY(0)
	LEAKY(16)
	LEAKY(32)
	LEAKY(48)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET

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

// func clampNT(y, x []float32, lo, hi float32)
TEXT ·clampNT(SB), NOSPLIT, $0-56
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	SHRQ $4, CX
	JZ   done
	PCMPEQL X9, X9
	PSLLL $31, X9              // 0x80000000 in each lane
	MOVSS lo+48(FP), X10
	SHUFPS $0, X10, X10
	XORPS X9, X10
	MOVSS hi+52(FP), X11
	SHUFPS $0, X11, X11
loop:
	CLAMP(0)
	CLAMP(16)
	CLAMP(32)
	CLAMP(48)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	SFENCE
done:
	RET
