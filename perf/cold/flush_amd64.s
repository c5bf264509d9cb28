#include "textflag.h"

// func flushLines(p unsafe.Pointer, n uintptr)
//
// CLFLUSH every 64-byte line of [p, p+n): write it back if dirty and drop it from every
// cache level of every core. CLFLUSH is in every x86-64 CPU (SSE2). The MFENCE orders the
// flushes before whatever the caller times next.
TEXT ·flushLines(SB), NOSPLIT, $0-16
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
