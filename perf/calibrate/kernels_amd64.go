//go:build amd64

package calibrate

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// The assembly kernels (fma_amd64.s, mem_amd64.s), chosen with the same CPUID detection as
// the ops GEMM kernels (klauspost/cpuid): it reports a feature only when the OS also saves
// its registers (XGETBV: ymm state for AVX2, zmm for AVX-512), which the /proc/cpuinfo
// flags do not promise.

//go:noescape
func fmaAVX2PS(iters int, out *float32)

//go:noescape
func fmaAVX2PD(iters int, out *float64)

//go:noescape
func fmaAVX512PS(iters int, out *float32)

//go:noescape
func fmaAVX512PD(iters int, out *float64)

//go:noescape
func copyAVX(dst, src *float64, n int)

//go:noescape
func copyNT(dst, src *float64, n int)

//go:noescape
func triadAVX(a, b, c *float64, n int, s float64)

//go:noescape
func triadNT(a, b, c *float64, n int, s float64)

//go:noescape
func readAVX(a *float64, n int) float64

//go:noescape
func copyAVX512(dst, src *float64, n int)

//go:noescape
func readAVX512(a *float64, n int) float64

//go:noescape
func writeAVX(a *float64, n int, s float64)

//go:noescape
func writeNT(a *float64, n int, s float64)

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

// ntSplit splits dst for a non-temporal kernel: head elements until dst is 32-byte aligned,
// then bulk elements, a multiple of 16; the rest is the tail.
func ntSplit(dst []float64) (head, bulk int) {
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(dst)))
	head = min(len(dst), int((32-addr%32)%32/8))
	return head, (len(dst) - head) &^ 15
}

func simdMixes() []memMix {
	if !hasAVX2FMA {
		return nil
	}
	return []memMix{
		{"copy", 1, 1, "b[i] = a[i], ymm loads and stores", func(a, b, _ []float64) float64 {
			b = b[:len(a)]
			n := len(a) &^ 15
			if n > 0 {
				copyAVX(&b[0], &a[0], n)
			}
			copy(b[n:], a[n:])
			return 0
		}},
		{"copy_nt", 1, 1, "b[i] = a[i], ymm loads, non-temporal stores (VMOVNTPD), 8 pages at once", func(a, b, _ []float64) float64 {
			b = b[:len(a)]
			h, n := ntSplit(b)
			copy(b[:h], a[:h])
			if n > 0 {
				copyNT(&b[h], &a[h], n)
			}
			copy(b[h+n:], a[h+n:])
			return 0
		}},
		{"triad", 2, 1, "a[i] = b[i] + s*c[i], ymm FMA", func(a, b, c []float64) float64 {
			b, c = b[:len(a)], c[:len(a)]
			n := len(a) &^ 15
			if n > 0 {
				triadAVX(&a[0], &b[0], &c[0], n, triadScalar)
			}
			triadGo(a[n:], b[n:], c[n:])
			return 0
		}},
		{"triad_nt", 2, 1, "a[i] = b[i] + s*c[i], ymm FMA, non-temporal stores, 4 pages at once", func(a, b, c []float64) float64 {
			b, c = b[:len(a)], c[:len(a)]
			h, n := ntSplit(a)
			triadGo(a[:h], b[:h], c[:h])
			if n > 0 {
				triadNT(&a[h], &b[h], &c[h], n, triadScalar)
			}
			triadGo(a[h+n:], b[h+n:], c[h+n:])
			return 0
		}},
		{"read", 1, 0, "s += a[i], ymm loads, 8 sums", func(a, _, _ []float64) float64 {
			n := len(a) &^ 31
			s := 0.0
			if n > 0 {
				s = readAVX(&a[0], n)
			}
			return s + sum8(a[n:])
		}},
		{"write", 0, 1, "a[i] = s, ymm stores", func(a, _, _ []float64) float64 {
			n := len(a) &^ 15
			if n > 0 {
				writeAVX(&a[0], n, triadScalar)
			}
			writeGo(a[n:])
			return 0
		}},
		{"write_nt", 0, 1, "a[i] = s, non-temporal stores", func(a, _, _ []float64) float64 {
			h, n := ntSplit(a)
			writeGo(a[:h])
			if n > 0 {
				writeNT(&a[h], n, triadScalar)
			}
			writeGo(a[h+n:])
			return 0
		}},
	}
}

// sweepMixes are the cache sweep's extra kernels: with AVX-512, zmm read and copy, which move
// twice the bytes per instruction and can beat ymm in L1 and L2; a cache roof must bound
// the AVX-512 kernels of the catalog too.
func sweepMixes() []memMix {
	if !hasAVX512 {
		return nil
	}
	return []memMix{
		{"read_zmm", 1, 0, "s += a[i], zmm loads, 8 sums", func(a, _, _ []float64) float64 {
			n := len(a) &^ 63
			s := 0.0
			if n > 0 {
				s = readAVX512(&a[0], n)
			}
			return s + sum8(a[n:])
		}},
		{"copy_zmm", 1, 1, "b[i] = a[i], zmm loads and stores", func(a, b, _ []float64) float64 {
			b = b[:len(a)]
			n := len(a) &^ 31
			if n > 0 {
				copyAVX512(&b[0], &a[0], n)
			}
			copy(b[n:], a[n:])
			return 0
		}},
	}
}
