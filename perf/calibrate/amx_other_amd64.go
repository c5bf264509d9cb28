//go:build amd64 && !linux

package calibrate

// requestTileData: the tile data permission is requested on Linux only; elsewhere the AMX
// kernels are not run rather than run without knowing whether the OS saves their state.
func requestTileData() (bool, string) {
	return false, "the AMX kernels run on Linux only (where the tile data permission is requested)"
}
