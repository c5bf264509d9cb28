//go:build amd64

package calibrate

import (
	"github.com/klauspost/cpuid/v2"

	"github.com/ropgen/ropgen/internal/simd"
	"github.com/ropgen/ropgen/internal/stream"
)

// The multiply-add kernels (fma_amd64.s), chosen with klauspost/cpuid, which reports a
// feature only when the OS also saves its registers (XGETBV: ymm state for AVX2, zmm for
// AVX-512), which the /proc/cpuinfo flags do not promise; and the memory mixes, the kernels
// of internal/stream, chosen by the SIMD level (internal/simd: the same detection).

//go:noescape
func fmaAVX2PS(iters int, out *float32)

//go:noescape
func fmaAVX2PD(iters int, out *float64)

//go:noescape
func fmaAVX512PS(iters int, out *float32)

//go:noescape
func fmaAVX512PD(iters int, out *float64)

var (
	hasAVX2FMA = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3)
	hasAVX512  = hasAVX2FMA && cpuid.CPU.Supports(cpuid.AVX512F)
)

// fmaAccs is the number of independent accumulators of each SIMD kernel.
const fmaAccs = 12

func simdKernels() []fmaKernel {
	var ks []fmaKernel
	if hasAVX2FMA {
		ks = append(ks,
			fmaKernel{name: "avx2", dtype: "fp32", lanes: 8, run: func(iters int) float64 {
				var out [fmaAccs * 8]float32
				fmaAVX2PS(iters, &out[0])
				return sum32(out[:])
			}},
			fmaKernel{name: "avx2", dtype: "fp64", lanes: 4, run: func(iters int) float64 {
				var out [fmaAccs * 4]float64
				fmaAVX2PD(iters, &out[0])
				return sum64(out[:])
			}})
	}
	if hasAVX512 {
		ks = append(ks,
			fmaKernel{name: "avx512", dtype: "fp32", lanes: 16, run: func(iters int) float64 {
				var out [fmaAccs * 16]float32
				fmaAVX512PS(iters, &out[0])
				return sum32(out[:])
			}},
			fmaKernel{name: "avx512", dtype: "fp64", lanes: 8, run: func(iters int) float64 {
				var out [fmaAccs * 8]float64
				fmaAVX512PD(iters, &out[0])
				return sum64(out[:])
			}})
	}
	for i := range ks {
		ks[i].accs, ks[i].unit = fmaAccs, "vector"
	}
	return ks
}

// simdMixes are the assembly mixes, internal/stream's kernels where the CPU has AVX2 (its
// SIMD level, simd.Best: none in a purego build). copy_nt is the catalog's streaming copy
// itself (stream.CopyNT, which ops' CopyFwd runs on a large output), at the level in use.
func simdMixes() []memMix {
	if simd.Best() < simd.AVX2 {
		return nil
	}
	return []memMix{
		{"copy", 1, 1, "b[i] = a[i], ymm loads and stores", func(a, b, _ []float32) float64 {
			stream.CopyAVX2(b[:len(a)], a)
			return 0
		}},
		{"copy_nt", 1, 1, "b[i] = a[i], the catalog's streaming copy (stream.CopyNT): non-temporal stores, 8 pages at once", func(a, b, _ []float32) float64 {
			b = b[:len(a)]
			s, e := stream.Span(b)
			copy(b[:s], a[:s])
			stream.CopyNT(b[s:e], a[s:e])
			copy(b[e:], a[e:])
			return 0
		}},
		{"triad", 2, 1, "a[i] = b[i] + s*c[i], ymm FMA", func(a, b, c []float32) float64 {
			stream.TriadAVX2(a, b, c, triadScalar)
			return 0
		}},
		{"triad_nt", 2, 1, "a[i] = b[i] + s*c[i], ymm FMA, non-temporal stores, 4 pages at once", func(a, b, c []float32) float64 {
			b, c = b[:len(a)], c[:len(a)]
			s, e := stream.Span(a)
			triadGo(a[:s], b[:s], c[:s])
			stream.TriadNTAVX2(a[s:e], b[s:e], c[s:e], triadScalar)
			triadGo(a[e:], b[e:], c[e:])
			return 0
		}},
		{"read", 1, 0, "s += a[i], ymm loads, 8 sums", func(a, _, _ []float32) float64 {
			return float64(stream.ReadAVX2(a))
		}},
		{"write", 0, 1, "a[i] = s, ymm stores", func(a, _, _ []float32) float64 {
			stream.FillAVX2(a, triadScalar)
			return 0
		}},
		{"write_nt", 0, 1, "a[i] = s, non-temporal stores", func(a, _, _ []float32) float64 {
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
		{"read_zmm", 1, 0, "s += a[i], zmm loads, 8 sums", func(a, _, _ []float32) float64 {
			return float64(stream.ReadAVX512(a))
		}},
		{"copy_zmm", 1, 1, "b[i] = a[i], zmm loads and stores", func(a, b, _ []float32) float64 {
			stream.CopyAVX512(b[:len(a)], a)
			return 0
		}},
	}
}
