package ops

import (
	"strings"
	"testing"
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
		fp8Case("dequantized ragged", fp8DequantRows, 200, 300),
		fp8Case("dequantized, both cores", 96, 260, 384),
		groupedCase("empty groups", 40, 33, []int{0, 17, 0, 9, 0}),
		groupedCase("one group", 64, 70, []int{50}),
		groupedCase("decode", 128, 96, []int{1, 1, 2, 1}),
		groupedCase("two cores", 256, 128, []int{100, 156}),
	} {
		checkKernel(t, k)
	}
}

func TestGemmFamilyErrors(t *testing.T) {
	for _, c := range []struct {
		err  func() error
		want string
	}{
		{func() error { _, err := NewGroupedGemmFwd(10, 4, 4, 2, []int{5, 4}, BFloat16); return err }, "add up to 9, want M = 10"},
		{func() error { _, err := NewGroupedGemmFwd(10, 4, 4, 2, []int{11, -1}, BFloat16); return err }, "group_sizes[1] is -1"},
		{func() error { _, err := NewGroupedGemmFwd(10, 4, 4, 3, []int{5, 5}, BFloat16); return err }, "2 entries, want G = 3"},
		{func() error { _, err := NewGroupedGemmFwd(10, 4, 4, 1, []int{10}, Float8E4M3); return err }, "no matrix-unit roof"},
		{func() error { _, err := NewFp8BlockScaledGemmFwd(1, 128, 300, 2, 1, Float8E4M3); return err }, "K_blocks is 2, want ⌈K/128⌉ = 3"},
		{func() error { _, err := NewFp8BlockScaledGemmFwd(1, 129, 128, 1, 1, Float8E4M3); return err }, "N_blocks is 1, want ⌈N/128⌉ = 2"},
		{func() error { _, err := NewFp8BlockScaledGemmFwd(1, 128, 128, 1, 1, BFloat16); return err }, "takes float8_e4m3"},
		{func() error { _, err := NewFp8BlockScaledGemmFwd(0, 128, 128, 1, 1, Float8E4M3); return err }, "M is 0"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want one containing %q", err, c.want)
		}
	}
	op, err := NewFp8BlockScaledGemmFwd(2, 128, 128, 1, 1, Float8E4M3)
	if err != nil {
		t.Fatal(err)
	}
	if got := op.ComputeRoof(); got != "cube.fp16" {
		t.Errorf("ComputeRoof = %q, want cube.fp16 (soft-FP8)", got)
	}
	a, _ := NewTensor(Float8E4M3, 2, 128)
	b, _ := NewTensor(Float8E4M3, 128, 128)
	as, _ := NewTensor(Float32, 2, 1)
	bs, _ := NewTensor(BFloat16, 1, 1)
	if _, err := op.Bind(a, b, as, bs); err == nil || !strings.Contains(err.Error(), "b_scale") {
		t.Errorf("Bind with a bfloat16 b_scale: err = %v", err)
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
			in, err := Build(k.Case(), BuildOptions{Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			flops, _, err := in.Op.(Op).EvalRoofline()
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
