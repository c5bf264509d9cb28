//go:build !amd64 && !arm64

package cold

import "unsafe"

// canFlush: no flush by address here; cold samples rely on the eviction buffer alone.
const canFlush = false

func flushLines(unsafe.Pointer, uintptr) {}
