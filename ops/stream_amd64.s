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
