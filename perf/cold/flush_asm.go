//go:build amd64 || arm64

package cold

import "unsafe"

// canFlush: this architecture flushes lines by address (flush_amd64.s, flush_arm64.s).
const canFlush = true

//go:noescape
func flushLines(p unsafe.Pointer, n uintptr)
