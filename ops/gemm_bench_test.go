package ops

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkGemmKernels times the GEMM of every micro-kernel this CPU runs on the shapes of
// the targets (square 256 and 1024, and the 1×4096×4096 gemv), reporting GFLOP/s.
func BenchmarkGemmKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range [][3]int{{256, 256, 256}, {1024, 1024, 1024}, {1, 4096, 4096}} {
		m, n, k := s[0], s[1], s[2]
		a, bm, c := randMat(rng, m*k, false), randMat(rng, k*n, false), make([]float32, m*n)
		for _, level := range slices.Sorted(maps.Keys(gemmKernels)) {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", gemmKernels[level].name, m, n, k), func(b *testing.B) {
				defer SetSIMD(level)()
				for b.Loop() {
					gemm(m, n, k, rowMajor(a, k), rowMajor(bm, n), c)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkPackA and BenchmarkPackB time the packing of a 256×256 block for the AVX-512 kernel.
func BenchmarkPackA(b *testing.B) {
	a := make([]float32, 256*256)
	dst := make([]float32, 264*256)
	for b.Loop() {
		packA(256, 256, 12, rowMajor(a, 256), dst)
	}
}
func BenchmarkPackB(b *testing.B) {
	a := make([]float32, 256*256)
	dst := make([]float32, 264*256)
	for b.Loop() {
		packB(256, 256, 32, rowMajor(a, 256), dst)
	}
}
