#include "textflag.h"

// func flushLinesSerial(p unsafe.Pointer, n uintptr)
//
// CLFLUSH every 64-byte line of [p, p+n): write it back if dirty and drop it from every
// cache level of every core. CLFLUSH is in every x86-64 CPU (SSE2). The MFENCE orders the
// flushes before whatever the caller times next.
TEXT ·flushLinesSerial(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	ADDQ AX, CX
	ANDQ $~63, AX
loop:
	CMPQ AX, CX
	JAE done
	CLFLUSH (AX)
	ADDQ $64, AX
	JMP loop
done:
	MFENCE
	RET

// func flushLinesOpt(p unsafe.Pointer, n uintptr)
//
// flushLinesSerial with CLFLUSHOPT: the same write-back and drop from every level, without
// ordering each flush after the one before, so they overlap. Only fences order them: the
// MFENCE waits for all of them before whatever the caller times next.
TEXT ·flushLinesOpt(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	ADDQ AX, CX
	ANDQ $~63, AX
loopopt:
	CMPQ AX, CX
	JAE doneopt
	CLFLUSHOPT (AX)
	ADDQ $64, AX
	JMP loopopt
doneopt:
	MFENCE
	RET

// func hasCLFLUSHOPT() bool
//
// CPUID leaf 7, subleaf 0, EBX bit 23, where the CPU has leaf 7.
TEXT ·hasCLFLUSHOPT(SB), NOSPLIT, $0-1
	XORL AX, AX
	CPUID
	CMPL AX, $7
	JB no
	MOVL $7, AX
	XORL CX, CX
	CPUID
	SHRL $23, BX
	ANDL $1, BX
	MOVB BX, ret+0(FP)
	RET
no:
	MOVB $0, ret+0(FP)
	RET
