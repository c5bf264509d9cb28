package opsbench

import (
	"runtime"
	"testing"
	"time"

	"github.com/ropgen/ropgen/internal/dispatch"
	"github.com/ropgen/ropgen/ops"
)

// benchVsCopy times op on its catalog workload label in float32 (the CPU's storage, so the
// op's EvalRoofline bytes are the bytes the kernel really moves) against a copy of as many
// bytes: see vsCopy. benchCase checks the kernel against its reference before any timing.
//
//	go test ./ops -run '^$' -bench 'ReluFwd' -benchtime 10x
func benchVsCopy(b *testing.B, op, label string) {
	dtype := "float32"
	if op == "EmbeddingFwd" {
		dtype = "int64" // the first input is the ids; the row gives the table in float32
	}
	in, _, bytes := benchCase(b, op, label, dtype)
	vsCopy(b, in, bytes)
}

// vsCopy times in.Run interleaved call by call with a two-core copy of bytes (half read,
// half written, the 1R:1W mix of a unary kernel), so that both see the same machine state,
// and reports the kernel's GB/s, the copy's, and x-copy = copy time over kernel time: 1
// means the kernel moves its bytes as fast as a plain copy does. The copy's source holds
// data and both buffers are touched before timing: an untouched source maps the kernel's
// shared zero page, which reads from cache and would flatter the copy.
func vsCopy(b *testing.B, in *ops.Instance, bytes int64) {
	n := int(bytes / 8) // float32 elements per side of the copy
	src, dst := make([]float32, n), make([]float32, n)
	for i := range src {
		src[i] = float32(i)
	}
	copy(dst, src)
	// one contiguous share per CPU on internal/dispatch's workers, as the kernels split a stream
	workers := runtime.GOMAXPROCS(0)
	var kernel, copied time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := in.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		dispatch.Each(workers, func(w int) { copy(dst[w*n/workers:(w+1)*n/workers], src[w*n/workers:(w+1)*n/workers]) })
		copied += time.Since(t1)
		kernel += t1.Sub(t0)
	}
	b.ReportMetric(float64(bytes)*float64(b.N)/kernel.Seconds()/1e9, "GB/s")
	b.ReportMetric(float64(bytes)*float64(b.N)/copied.Seconds()/1e9, "copy-GB/s")
	b.ReportMetric(copied.Seconds()/kernel.Seconds(), "x-copy")
}

// The memory-bound ops of the elementwise, reduction, norm and embedding families, each on
// its largest CPU workload (cpu-large: 64 MiB or more each way, twice the reference host's
// L3).

func BenchmarkReluFwd(b *testing.B)      { benchVsCopy(b, "ReluFwd", "cpu-large") }
func BenchmarkLeakyReluFwd(b *testing.B) { benchVsCopy(b, "LeakyReluFwd", "cpu-large") }
func BenchmarkClampFwd(b *testing.B)     { benchVsCopy(b, "ClampFwd", "cpu-large") }

// Tensor bounds: three full-size inputs (3R:1W against the copy's 1R:1W), and per-row bounds
// [4096, 1], where each row takes the scalar kernel.
func BenchmarkClampFwdTensorBounds(b *testing.B) {
	benchVsCopy(b, "ClampFwd", "cpu-large-tensor-bounds")
}
func BenchmarkClampFwdRowBounds(b *testing.B) { benchVsCopy(b, "ClampFwd", "cpu-large-row-bounds") }

func BenchmarkExpFwd(b *testing.B)        { benchVsCopy(b, "ExpFwd", "cpu-large") }
func BenchmarkTanhFwd(b *testing.B)       { benchVsCopy(b, "TanhFwd", "cpu-large") }
func BenchmarkSigmoidFwd(b *testing.B)    { benchVsCopy(b, "SigmoidFwd", "cpu-large") }
func BenchmarkSiluFwd(b *testing.B)       { benchVsCopy(b, "SiluFwd", "cpu-large") }
func BenchmarkGeluFwd(b *testing.B)       { benchVsCopy(b, "GeluFwd", "cpu-large") }
func BenchmarkAddFwd(b *testing.B)        { benchVsCopy(b, "AddFwd", "cpu-large") }
func BenchmarkSubFwd(b *testing.B)        { benchVsCopy(b, "SubFwd", "cpu-large") }
func BenchmarkMulFwd(b *testing.B)        { benchVsCopy(b, "MulFwd", "cpu-large") }
func BenchmarkDivFwd(b *testing.B)        { benchVsCopy(b, "DivFwd", "cpu-large") }
func BenchmarkSumFwd(b *testing.B)        { benchVsCopy(b, "SumFwd", "cpu-large") }
func BenchmarkSumFwdColumns(b *testing.B) { benchVsCopy(b, "SumFwd", "cpu-large-columns") }

// dim=None: one output, the whole tensor as one line.
func BenchmarkSumFwdAll(b *testing.B)  { benchVsCopy(b, "SumFwd", "cpu-large-all") }
func BenchmarkMeanFwd(b *testing.B)    { benchVsCopy(b, "MeanFwd", "cpu-large") }
func BenchmarkAmaxFwd(b *testing.B)    { benchVsCopy(b, "AmaxFwd", "cpu-large") }
func BenchmarkSoftmaxFwd(b *testing.B) { benchVsCopy(b, "SoftmaxFwd", "cpu-large") }
func BenchmarkSoftmaxFwdColumns(b *testing.B) {
	benchVsCopy(b, "SoftmaxFwd", "cpu-large-columns")
}
func BenchmarkLogSoftmaxFwd(b *testing.B) { benchVsCopy(b, "LogSoftmaxFwd", "cpu-large") }
func BenchmarkCumsumFwd(b *testing.B)     { benchVsCopy(b, "CumsumFwd", "cpu-large") }
func BenchmarkRMSNormFwd(b *testing.B)    { benchVsCopy(b, "RMSNormFwd", "cpu-large") }
func BenchmarkLayerNormFwd(b *testing.B)  { benchVsCopy(b, "LayerNormFwd", "cpu-large") }
func BenchmarkRopeFwd(b *testing.B)       { benchVsCopy(b, "RopeFwd", "cpu-large") }
func BenchmarkEmbeddingFwd(b *testing.B)  { benchVsCopy(b, "EmbeddingFwd", "cpu-large") }
