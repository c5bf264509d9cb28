//go:build linux && amd64

package calibrate

import (
	"fmt"
	"syscall"
)

// Linux keeps the AMX tile data state off until a process asks for it: the first tile
// instruction without the permission is a SIGILL. The permission is the process's, for
// every thread, so asking once before any kernel runs covers every worker.
const (
	archReqXcompPerm = 0x1023 // ARCH_REQ_XCOMP_PERM
	xfeatureTileData = 18     // XFEATURE_XTILEDATA
)

func requestTileData() (bool, string) {
	if _, _, errno := syscall.Syscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureTileData, 0); errno != 0 {
		return false, fmt.Sprintf("Linux refused the AMX tile data permission (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): %v)", errno)
	}
	return true, ""
}
