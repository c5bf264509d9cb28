package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/internal/cputime"
	"github.com/ropgen/ropgen/manifest"
)

// syntheticManifest writes n inline ops of three shapes: fixed-rank dims, arbitrary rank with
// vars, and an optional input.
func syntheticManifest(n int) []byte { return syntheticRange(0, n) }

// syntheticRange writes ops start to end-1 of the synthetic manifest.
func syntheticRange(start, end int) []byte {
	var b strings.Builder
	for i := start; i < end; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `Gemm%d:
  family: gemm
  status: implemented
  signature:
    inputs:
      a: {dtype: "float16", shape: "[M, K]"}
      b: {dtype: "same_as(a)", shape: "[K, N]"}
    outputs:
      c: {dtype: "same_as(a)", shape: "[M, N]"}
  workloads:
    - {M: 1, N: 4096, K: 4096, dtypes: [float16]}
  roofline:
    flops: "2 * M * N * K"
    bytes: "(M * K + K * N + M * N) * elem_bytes"
`, i)
		case 1:
			fmt.Fprintf(&b, `Softmax%d:
  family: softmax
  status: implemented
  signature:
    inputs:
      x: {dtype: "float32"}
    outputs:
      y: {dtype: "same_as(x)"}
    params:
      dim: {type: int, default: -1}
  workloads:
    - {x_shape: [4, 128], dtypes: [float32]}
  roofline:
    vars:
      d: "normdim(dim, x.ndim)"
      N: "x.shape[d]"
      T: "product(x.shape)"
    flops: "4 * T + cdiv(T, N)"
    bytes: "2 * T * elem_bytes"
`, i)
		default:
			fmt.Fprintf(&b, `Linear%d:
  family: gemm
  status: implemented
  signature:
    inputs:
      x: {dtype: "float16", shape: "[M, K]"}
      w: {dtype: "same_as(x)", shape: "[N, K]"}
      bias: {dtype: "same_as(x)", shape: "[N]", optional: true}
    outputs:
      y: {dtype: "same_as(x)", shape: "[M, N]"}
  workloads:
    - {M: 1, N: 16, K: 16, dtypes: [float16]}
  roofline:
    flops: "2 * M * N * K + cond(bias != nil, M * N, 0)"
    bytes: "(M * K + N * K + M * N + cond(bias != nil, N, 0)) * elem_bytes"
`, i)
		}
	}
	return []byte(b.String())
}

// BenchmarkGenerateSynthetic5000 runs the gate, the type check and the emission over 5,000
// inline ops (no package loading: the binding check needs Go types, which synthetic ops lack).
// Target: under 0.5 s; BenchmarkGenerateSynthetic20000 shows it linear (ms/entry the same).
func BenchmarkGenerateSynthetic5000(b *testing.B) { benchmarkGenerateSynthetic(b, 5000) }

func BenchmarkGenerateSynthetic20000(b *testing.B) { benchmarkGenerateSynthetic(b, 20000) }

func benchmarkGenerateSynthetic(b *testing.B, n int) {
	var files []*manifest.File
	const perFile = 5000 // within manifest.MaxFileBytes
	for start := 0; start < n; start += perFile {
		file, fs := manifest.Parse(fmt.Sprintf("synthetic%d.yaml", start/perFile), syntheticRange(start, min(start+perFile, n)))
		if len(fs) > 0 {
			b.Fatal(fs)
		}
		files = append(files, file)
	}
	cat, fs := manifest.Decode(files)
	if len(fs) > 0 {
		b.Fatal(fs)
	}
	cpu := cputime.Process()
	for b.Loop() {
		if _, fs := Generate(Config{Catalog: cat, Package: "ops", FormulasImport: "github.com/ropgen/ropgen/perf/formulas"}); len(fs) > 0 {
			b.Fatal(fs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/float64(n), "ms/entry")
	// The CPU time (all threads, the collector's too) of one run: on a shared machine the
	// wall time stretches with the other processes' load.
	b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}
