package ops

import (
	"strings"
	"testing"
)

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

// TestFp8DequantBoundary: at fp8DequantRows rows, the first count Forward dequantizes the
// operands at, with N and K ragged against the 128 blocks, the kernel matches the reference;
// so do the decode rows (forwardRows, one and three rows of a, N not a multiple of four) at
// every SIMD level.
func TestFp8DequantBoundary(t *testing.T) {
	checkFp8(t, fp8DequantRows, 200, 300)
	for _, level := range []int{SIMDGo, SIMDAVX2, SIMDAVX512} {
		restore := SetSIMD(level)
		checkFp8(t, 1, 262, 300)
		checkFp8(t, 3, 262, 1000)
		restore()
	}
}

// checkFp8 checks Fp8BlockScaledGemmFwd of m×k by n×k against the reference.
func checkFp8(t *testing.T, m, n, k int) {
	t.Helper()
	kb, nb := (k+127)/128, (n+127)/128
	op, err := NewFp8BlockScaledGemmFwd(m, n, k, kb, nb, Float8E4M3)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mustTensor(t, Float8E4M3, m, k), mustTensor(t, Float8E4M3, n, k)
	as, bs := mustTensor(t, Float32, m, kb), mustTensor(t, Float32, nb, kb)
	for i, x := range []*Tensor{a, b, as, bs} {
		if err := FillUniform(x, uint64(i+1), -1, 1); err != nil {
			t.Fatal(err)
		}
	}
	shape, err := op.Bind(a, b, as, bs)
	if err != nil {
		t.Fatal(err)
	}
	c, want := mustTensor(t, BFloat16, shape...), mustTensor(t, BFloat16, shape...)
	if err := op.Forward(c, a, b, as, bs); err != nil {
		t.Fatal(err)
	}
	if err := op.Reference(want, a, b, as, bs); err != nil {
		t.Fatal(err)
	}
	if err := Compare(c, want, op.Tolerance()); err != nil {
		t.Errorf("m %d, n %d, k %d, level %s: %v", m, n, k, simdName(simdLevel()), err)
	}
}
