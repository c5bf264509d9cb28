//go:build arm64

package instrument

// The NEON kernels (fma_arm64.s). Advanced SIMD is part of the arm64 baseline: every arm64
// CPU Go runs on has it, so no feature test is needed.

//go:noescape
func fmaNEONPS(iters int, out *float32)

//go:noescape
func fmaNEONPD(iters int, out *float64)

// neonAccs is the number of independent accumulators of each NEON kernel.
const neonAccs = 24

func simdFMAs() []FMA {
	return []FMA{
		{Name: "neon", DType: "fp32", Lanes: 4, Accs: neonAccs, Run: func(iters int) float64 {
			var out [neonAccs * 4]float32
			fmaNEONPS(iters, &out[0])
			return Sum32(out[:])
		}},
		{Name: "neon", DType: "fp64", Lanes: 2, Accs: neonAccs, Run: func(iters int) float64 {
			var out [neonAccs * 2]float64
			fmaNEONPD(iters, &out[0])
			return Sum64(out[:])
		}},
	}
}
