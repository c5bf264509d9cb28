package opsbench

import "testing"

// Bandwidth benchmarks of the layout, activation and statistics families, each on its
// largest CPU workload (cpu-large: 64 MiB or more each way, twice the reference host's L3),
// against a two-core copy of as many bytes in the same run (benchVsCopy,
// runtime_bench_test.go). CopyFwd is the baseline: its x-copy should read about 1.
//
//	go test ./internal/opsbench -run '^$' -bench 'CopyFwd|TransposeFwd' -benchtime 10x

func BenchmarkCopyFwd(b *testing.B)      { benchVsCopy(b, "CopyFwd", "cpu-large") }
func BenchmarkTransposeFwd(b *testing.B) { benchVsCopy(b, "TransposeFwd", "cpu-large") }
func BenchmarkTransposeFwdHeads(b *testing.B) {
	benchVsCopy(b, "TransposeFwd", "cpu-large-heads")
}
func BenchmarkConcatFwd(b *testing.B)    { benchVsCopy(b, "ConcatFwd", "cpu-large") }
func BenchmarkPadFwd(b *testing.B)       { benchVsCopy(b, "PadFwd", "cpu-large") }
func BenchmarkGeluErfFwd(b *testing.B)   { benchVsCopy(b, "GeluErfFwd", "cpu-large") }
func BenchmarkSoftplusFwd(b *testing.B)  { benchVsCopy(b, "SoftplusFwd", "cpu-large") }
func BenchmarkMishFwd(b *testing.B)      { benchVsCopy(b, "MishFwd", "cpu-large") }
func BenchmarkEluFwd(b *testing.B)       { benchVsCopy(b, "EluFwd", "cpu-large") }
func BenchmarkHardswishFwd(b *testing.B) { benchVsCopy(b, "HardswishFwd", "cpu-large") }
func BenchmarkLogsumexpFwd(b *testing.B) { benchVsCopy(b, "LogsumexpFwd", "cpu-large") }
func BenchmarkLogsumexpFwdColumns(b *testing.B) {
	benchVsCopy(b, "LogsumexpFwd", "cpu-large-columns")
}
func BenchmarkVarFwd(b *testing.B)        { benchVsCopy(b, "VarFwd", "cpu-large") }
func BenchmarkVarFwdColumns(b *testing.B) { benchVsCopy(b, "VarFwd", "cpu-large-columns") }

// Non-adjacent axes: the kept axis moved ahead of the reduced ones in a copy, then rows.
func BenchmarkVarFwdStridedAxes(b *testing.B) { benchVsCopy(b, "VarFwd", "cpu-large-strided-axes") }
