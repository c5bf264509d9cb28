package f32

import "github.com/klauspost/cpuid/v2"

// The GEMM entry points: the vector micro-kernels of this CPU by SIMD level (GemmTiles, in
// gemm_dispatch_amd64.go and gemm_dispatch_arm64.go; none on other architectures and in
// the purego build, gemm_dispatch_novec.go) and the cache sizes their blocking is chosen
// from. The Goto loop nest that runs them, and its pure-Go micro-kernel, are ops'.

// GemmTile is one register-blocked GEMM micro-kernel: Tile computes the MR×NR tile of c at
// c[0] (ldc between rows) from packed panels a (kc·MR values) and b (kc·NR), continuing the
// running sum in c when load, from zero otherwise. The whole tile must lie in c. Name is
// the SIMD level's name, which ops.GemmKernel reports.
type GemmTile struct {
	Name   string
	MR, NR int
	Tile   func(kc int, a, b, c []float32, ldc int, load bool)
	// TileRows, where the kernel has it (nil otherwise), is Tile with a's MR rows read in
	// place, lda elements apart, rather than from a packed panel: for an a that is written
	// once and read once, where packing it would cost a copy as long as the product's reads.
	TileRows func(kc int, a []float32, lda int, b, c []float32, ldc int, load bool)
}

// CacheSizes returns the per-core L1 data and L2 sizes and the L3 size the CPU reports
// (CPUID through klauspost/cpuid, on any OS), with common sizes where it reports none.
func CacheSizes() (l1, l2, l3 int) {
	c := cpuid.CPU.Cache
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	return pick(c.L1D, 32<<10), pick(c.L2, 1<<20), pick(c.L3, 8<<20)
}
