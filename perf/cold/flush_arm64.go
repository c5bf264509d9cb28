package cold

import "unsafe"

//go:noescape
func flushLines(p unsafe.Pointer, n uintptr)
