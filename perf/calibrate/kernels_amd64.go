//go:build amd64

package calibrate

import (
	"github.com/ropgen/ropgen/internal/simd"
	"github.com/ropgen/ropgen/internal/stream"
)

// The multiply-add kernels (fma_amd64.s), chosen with klauspost/cpuid, which reports a
// feature only when the OS also saves its registers (XGETBV: ymm state for AVX2, zmm for
// AVX-512), which the /proc/cpuinfo flags do not promise; and the memory mixes, the kernels
// of internal/stream, chosen by the SIMD level (internal/simd: the same detection).

// simdMixes are the calibration's own assembly mixes, internal/stream's read and write
// kernels where the CPU has AVX2 (the SIMD level's best: none in a purego build); the copy
// and triad mixes are the instrument's (instrument.StreamMixes).
func simdMixes() []memMix {
	if simd.Best() < simd.AVX2 {
		return nil
	}
	return []memMix{
		{Name: "read", Reads: 1, Writes: 0, How: "s += a[i], ymm loads, 8 sums", Kernel: func(a, _, _ []float32) float64 {
			return float64(stream.ReadAVX2(a))
		}},
		{Name: "write", Reads: 0, Writes: 1, How: "a[i] = s, ymm stores", Kernel: func(a, _, _ []float32) float64 {
			stream.FillAVX2(a, triadScalar)
			return 0
		}},
		{Name: "write_nt", Reads: 0, Writes: 1, How: "a[i] = s, non-temporal stores", Kernel: func(a, _, _ []float32) float64 {
			s, e := stream.Span(a)
			writeGo(a[:s])
			stream.FillNTAVX2(a[s:e], triadScalar)
			writeGo(a[e:])
			return 0
		}},
	}
}

// sweepMixes are the cache sweep's extra kernels: with AVX-512, zmm read and copy, which move
// twice the bytes per instruction and can beat ymm in L1 and L2; a cache roof must bound
// the AVX-512 kernels of the catalog too.
func sweepMixes() []memMix {
	if simd.Best() < simd.AVX512 {
		return nil
	}
	return []memMix{
		{Name: "read_zmm", Reads: 1, Writes: 0, How: "s += a[i], zmm loads, 8 sums", Kernel: func(a, _, _ []float32) float64 {
			return float64(stream.ReadAVX512(a))
		}},
		{Name: "copy_zmm", Reads: 1, Writes: 1, How: "b[i] = a[i], zmm loads and stores", Kernel: func(a, b, _ []float32) float64 {
			stream.CopyAVX512(b[:len(a)], a)
			return 0
		}},
	}
}
