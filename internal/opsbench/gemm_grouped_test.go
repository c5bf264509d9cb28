package opsbench

import (
	"testing"

	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

// fp8Case is a block-scaled GEMM case of m×k by n×k.
func fp8Case(label string, m, n, k int) kcase {
	kb, nb := (k+127)/128, (n+127)/128
	return kcase{
		op: "Fp8BlockScaledGemmFwd", label: label,
		dims:   map[string]int{"M": m, "N": n, "K": k, "K_blocks": kb, "N_blocks": nb},
		shapes: map[string][]int{"a": {m, k}, "b": {n, k}, "a_scale": {m, kb}, "b_scale": {nb, kb}},
		dtype:  "float8_e4m3", dtypes: map[string]string{"a_scale": "float32", "b_scale": "float32", "c": "bfloat16"},
		outputs: []string{"c"},
	}
}

// groupedCase is a grouped GEMM case of sizes rows by g weights of k×n.
func groupedCase(label string, k, n int, sizes []int) kcase {
	m := 0
	for _, s := range sizes {
		m += s
	}
	return kcase{
		op: "GroupedGemmFwd", label: label,
		dims:    map[string]int{"M": m, "K": k, "N": n, "G": len(sizes)},
		params:  map[string]any{"group_sizes": sizes},
		shapes:  map[string][]int{"a": {m, k}, "b": {len(sizes), k, n}},
		dtype:   "bfloat16",
		outputs: []string{"c"},
	}
}

// Both FP8 paths (few rows: block by block; many: dequantize, one GEMM) on K and N that are
// not multiples of the 128 block, one K block only, and a single row; grouped GEMM with
// empty groups first, between and last, one group, and groups of one row (the gemv path).
func TestGemmFamilyMatchesReference(t *testing.T) {
	for _, k := range []kcase{
		fp8Case("one row", 1, 302, 260),
		fp8Case("few rows ragged", 7, 130, 200),
		fp8Case("one K block", 3, 64, 100),
		fp8Case("dequantized, both cores", 96, 260, 384),
		groupedCase("empty groups", 40, 33, []int{0, 17, 0, 9, 0}),
		groupedCase("one group", 64, 70, []int{50}),
		groupedCase("decode", 128, 96, []int{1, 1, 2, 1}),
		groupedCase("two cores", 256, 128, []int{100, 156}),
	} {
		checkKernel(t, k)
	}
}

// BenchmarkGemmFamily times the new GEMM-family ops on their cpu-* shapes, reporting
// GFLOP/s: the FP8 decode row (bound by reading b) and the grouped MoE row.
func BenchmarkGemmFamily(b *testing.B) {
	for _, k := range []kcase{
		fp8Case("decode", 1, 2048, 4096),
		fp8Case("prefill", 256, 1024, 1024),
		groupedCase("moe", 256, 256, []int{128, 128, 128, 128}),
	} {
		b.Run(k.op+"/"+k.label, func(b *testing.B) {
			in, err := Build(k.Case(), bench.BuildOptions{Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			flops, _, err := in.Op.(ops.Op).EvalRoofline()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := in.Run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(flops)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
