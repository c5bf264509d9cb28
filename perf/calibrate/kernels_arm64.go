//go:build arm64

package calibrate

// The NEON kernels (fma_arm64.s). Advanced SIMD is part of the arm64 baseline: every arm64
// CPU Go runs on has it, so no feature test is needed.

//go:noescape
func fmaNEONPS(iters int, out *float32)

//go:noescape
func fmaNEONPD(iters int, out *float64)

// neonAccs is the number of independent accumulators of each NEON kernel.
const neonAccs = 24

func simdKernels() []fmaKernel {
	return []fmaKernel{
		{name: "neon", dtype: "fp32", lanes: 4, accs: neonAccs, unit: "vector", run: func(iters int) float64 {
			var out [neonAccs * 4]float32
			fmaNEONPS(iters, &out[0])
			return sum32(out[:])
		}},
		{name: "neon", dtype: "fp64", lanes: 2, accs: neonAccs, unit: "vector", run: func(iters int) float64 {
			var out [neonAccs * 2]float64
			fmaNEONPD(iters, &out[0])
			return sum64(out[:])
		}},
	}
}

// simdMixes: on arm64 the Go read and write mixes stand.
func simdMixes() []memMix { return nil }

func sweepMixes() []memMix { return nil }
