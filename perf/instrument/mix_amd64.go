//go:build amd64

package instrument

import (
	"github.com/ropgen/ropgen/internal/simd"
	"github.com/ropgen/ropgen/internal/stream"
)

// simdStreamMixes are the assembly copy and triad, internal/stream's kernels where the CPU has
// AVX2 (the SIMD level's best: none in a purego build). copy_nt is the catalog's streaming
// copy itself (stream.CopyNT, which ops' CopyFwd runs on a large output), at the level in
// use.
func simdStreamMixes() []Mix {
	if simd.Best() < simd.AVX2 {
		return nil
	}
	return []Mix{
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
			stream.TriadAVX2(a, b, c, TriadScalar)
			return 0
		}},
		{"triad_nt", 2, 1, "a[i] = b[i] + s*c[i], ymm FMA, non-temporal stores, 4 pages at once", func(a, b, c []float32) float64 {
			b, c = b[:len(a)], c[:len(a)]
			s, e := stream.Span(a)
			stream.TriadGo(a[:s], b[:s], c[:s], TriadScalar)
			stream.TriadNTAVX2(a[s:e], b[s:e], c[s:e], TriadScalar)
			stream.TriadGo(a[e:], b[e:], c[e:], TriadScalar)
			return 0
		}},
	}
}
