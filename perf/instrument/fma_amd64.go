//go:build amd64

package instrument

import "github.com/klauspost/cpuid/v2"

// The multiply-add kernels of fma_amd64.s, chosen with klauspost/cpuid, which reports a
// feature only when the OS also saves its registers (XGETBV: ymm state for AVX2, zmm for
// AVX-512), which the /proc/cpuinfo flags do not promise.

//go:noescape
func fmaAVX2PS(iters int, out *float32)

//go:noescape
func fmaAVX2PD(iters int, out *float64)

//go:noescape
func fmaAVX512PS(iters int, out *float32)

//go:noescape
func fmaAVX512PD(iters int, out *float64)

var (
	// HasAVX2FMA says the CPU (and OS) run AVX2 with FMA3.
	HasAVX2FMA = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3)
	// HasAVX512 says the CPU (and OS) run AVX-512F besides.
	HasAVX512 = HasAVX2FMA && cpuid.CPU.Supports(cpuid.AVX512F)
)

// FMAAccs is the number of independent accumulators of each amd64 kernel: twelve cover two
// FMA pipes of latency up to 6 cycles.
const FMAAccs = 12

func simdFMAs() []FMA {
	var ks []FMA
	if HasAVX2FMA {
		ks = append(ks,
			FMA{Name: "avx2", DType: "fp32", Lanes: 8, Accs: FMAAccs, Run: func(iters int) float64 {
				var out [FMAAccs * 8]float32
				fmaAVX2PS(iters, &out[0])
				return Sum32(out[:])
			}},
			FMA{Name: "avx2", DType: "fp64", Lanes: 4, Accs: FMAAccs, Run: func(iters int) float64 {
				var out [FMAAccs * 4]float64
				fmaAVX2PD(iters, &out[0])
				return Sum64(out[:])
			}})
	}
	if HasAVX512 {
		ks = append(ks,
			FMA{Name: "avx512", DType: "fp32", Lanes: 16, Accs: FMAAccs, Run: func(iters int) float64 {
				var out [FMAAccs * 16]float32
				fmaAVX512PS(iters, &out[0])
				return Sum32(out[:])
			}},
			FMA{Name: "avx512", DType: "fp64", Lanes: 8, Accs: FMAAccs, Run: func(iters int) float64 {
				var out [FMAAccs * 8]float64
				fmaAVX512PD(iters, &out[0])
				return Sum64(out[:])
			}})
	}
	return ks
}
