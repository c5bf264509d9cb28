//go:build (amd64 || arm64) && !purego

package ops

import (
	"runtime"

	"github.com/klauspost/cpuid/v2"
)

// The blocking of the vector GEMM micro-kernels of amd64 and arm64 (gemm_amd64.go,
// gemm_arm64.go); other architectures run the Go tile alone (gemm_novec.go).

// cacheSizes returns the per-core L1 data and L2 sizes and the L3 size the CPU reports
// (CPUID through klauspost/cpuid, on any OS), with common sizes where it reports none.
func cacheSizes() (l1, l2, l3 int) {
	c := cpuid.CPU.Cache
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	return pick(c.L1D, 32<<10), pick(c.L2, 1<<20), pick(c.L3, 8<<20)
}

// vecKernel returns a vector micro-kernel with the blocking of this CPU's caches.
func vecKernel(name string, mr, nr int, tile func(kc int, a, b, c []float32, ldc int, load bool)) *microKernel {
	l1, l2, l3 := cacheSizes()
	kc, mc, nc := gemmBlocking(mr, nr, l1, l2, l3, runtime.NumCPU())
	return &microKernel{name: name, mr: mr, nr: nr, tile: tile, kc: kc, mc: mc, nc: nc}
}
