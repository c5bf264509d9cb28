#include "textflag.h"

// func flushLines(p unsafe.Pointer, n uintptr)
//
// DC CIVAC (clean and invalidate by address to the point of coherency) every 64-byte line
// of [p, p+n); Linux lets user code issue it. DSB SY orders the flushes before whatever the
// caller times next. Lines may be larger than 64 bytes; flushing every 64 covers them.
TEXT ·flushLines(SB), NOSPLIT, $0-16
	MOVD p+0(FP), R0
	MOVD n+8(FP), R1
	ADD R0, R1, R1
	AND $~63, R0, R0
loop:
	CMP R1, R0
	BHS done
	DC CIVAC, R0
	ADD $64, R0, R0
	B loop
done:
	DSB $15
	RET
