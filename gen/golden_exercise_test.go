package gen

import (
	"strings"
	"testing"

	basic "github.com/ropgen/ropgen/testdata/golden/basic/ops"
	helpers "github.com/ropgen/ropgen/testdata/golden/helpers/ops"
	nullable "github.com/ropgen/ropgen/testdata/golden/nullable/ops"
	renamed "github.com/ropgen/ropgen/testdata/golden/renamed/ops"
)

// The passing goldens are real packages: importing them compiles the expected output, and
// these tests run it against numbers worked out by hand.

func TestGoldenBasicRuns(t *testing.T) {
	gemm := &basic.GemmFwd{M: 1, N: 4096, K: 4096, DType: 2}
	expectRoofline(t, gemm, 2*4096*4096, (4096+4096*4096+4096)*2)
	if got := gemm.ComputeRoof(); got != "cube.fp16" {
		t.Errorf("GemmFwd.ComputeRoof = %q; the hand-written method must win", got)
	}
	lin := &basic.LinearFwd{M: 2, N: 16, K: 8, DType: 2}
	expectRoofline(t, lin, 2*2*16*8, (2*8+16*8+2*16)*2)
	lin.BiasShape = []int{16}
	expectRoofline(t, lin, 2*2*16*8+2*16, (2*8+16*8+2*16+16)*2)
	if got := lin.ComputeRoof(); got != "vector.fp16" {
		t.Errorf("LinearFwd.ComputeRoof = %q, want the default of its one dtype, vector.fp16", got)
	}
	// A float64 op is priced at the fp64 vector unit, not at fp32's (issue 22).
	if got := (&basic.DaxpyFwd{N: 8, DType: 8}).ComputeRoof(); got != "vector.fp64" {
		t.Errorf("DaxpyFwd.ComputeRoof = %q, want vector.fp64", got)
	}
	for size, want := range map[basic.DType]string{8: "vector.fp64", 4: "vector.fp32", 2: "vector.bf16"} {
		if got := (&basic.AxpyFwd{N: 8, DType: size}).ComputeRoof(); got != want {
			t.Errorf("AxpyFwd{DType: %d}.ComputeRoof = %q, want %q", size, got, want)
		}
	}
	att := &basic.AttentionFwd{B: 1, S: 16, D: 8}
	expectRoofline(t, att, 4*16*16*8, 4*16*8*2)

	// Cached with an optional input, which formulas only compare with nil: its presence is
	// the key, its dims are not.
	sc := &basic.ScaleFwd{XShape: []int{4, 128}, DType: 4}
	expectRoofline(t, sc, 512, 2*512*4)
	sc.WeightShape = []int{128}
	expectRoofline(t, sc, 2*512, 3*512*4)
	sc.WeightShape = []int{}
	expectRoofline(t, sc, 2*512, 3*512*4) // empty is present, not absent
	sc.WeightShape = nil
	expectRoofline(t, sc, 512, 2*512*4)

	sm := &basic.SoftmaxFwd{Dim: -1, DType: 4}
	expectError(t, sm, "SoftmaxFwd: EvalRoofline before Forward: input x is not bound")
	sm.XShape = []int{4, 128}
	expectRoofline(t, sm, 4*512+4, 2*512*4)
	expectRoofline(t, sm, 4*512+4, 2*512*4) // from the cache
	sm.XShape[0] = 8                        // the same slice, changed in place: a new key
	expectRoofline(t, sm, 4*1024+8, 2*1024*4)
	sm.DType = 2 // elem_bytes is part of the key too
	expectRoofline(t, sm, 4*1024+8, 2*1024*2)
	sm.DType = 4
	sm.Dim = 2
	expectError(t, sm, "dim 2 out of range for a tensor of rank 2")
	sm.Dim, sm.XShape = -2, []int{1 << 31, 1 << 31, 4}
	expectError(t, sm, `SoftmaxFwd: roofline.vars.T "product(x.shape)": 4611686018427387904 * 4 overflows int64`)
	sm.XShape = []int{1 << 31, 1 << 31} // the shape's product fits; 4 * T does not
	expectError(t, sm, `SoftmaxFwd: roofline.flops "4 * T + cdiv(T, N)": 4 * 4611686018427387904 overflows int64`)
	expectError(t, sm, "4 * 4611686018427387904 overflows int64") // errors are cached with their key
}

// TestGoldenRenamedRuns: a formulas package named roofs, and an op package that declares
// product, cond and cdiv itself, generate and build (issue 12: "undefined: formulas",
// "product redeclared in this block"), and compute what the basic case does.
func TestGoldenRenamedRuns(t *testing.T) {
	expectRoofline(t, &renamed.AttentionFwd{B: 1, S: 16, D: 8}, 4*16*16*8, 4*16*8*2)
	expectRoofline(t, &renamed.SoftmaxFwd{Dim: -1, DType: 4, XShape: []int{4, 128}}, 4*512+4, 2*512*4)
	lin := &renamed.LinearFwd{M: 2, N: 16, K: 8, DType: 2, BiasShape: []int{16}}
	expectRoofline(t, lin, 2*2*16*8+2*16, (2*8+16*8+2*16+16)*2)
}

func TestGoldenHelpersRun(t *testing.T) {
	tile := 2
	op := &helpers.HelpersFwd{XShape: []int{3, 10}, Dim: -1, Dims: []int{2, 3}, Block: 4, Causal: true, Tile: &tile, DType: 2}
	// N=10 T=30 S=5 R=2 log2=3 clog2=4 min=4 max=10 floordiv(-10,4)=-3 floormod(-10,4)=2 cdiv=3 abs=10 cond=1
	// Vo = valueor(nil, 5) + mustvalue(2) = 7
	// bytes: floordiv(30,4)*2=14 + cdiv(10,4)=3 + floormod(10,4)=2 + 3 + 4 + min=10 + max=30 + abs(-20)=20
	// + valueor(nil, 1) + mustvalue(2) = 3
	expectRoofline(t, op, 78, 89)
	op.Causal = false
	expectRoofline(t, op, 77, 89)
	win := 10
	op.Win = &win // Vo = 12; bytes + 10 + 2
	expectRoofline(t, op, 82, 98)
	op.Win = nil
	op.XShape = []int{3, 16} // exact powers: log2 = clog2 = 4
	expectRoofline(t, op, 48+5+2+4+4+4+16-4+0+4+16+7, 24+4+0+4+4+16+48+32+3)
	op.Tile = nil
	expectError(t, op, "mustvalue of a nil (None) param")
	op.Tile = &tile
	op.Block = 0
	expectError(t, op, "division by zero")
	op.Block, op.XShape = 4, []int{3, 0}
	expectError(t, op, "log2 of 0")
}

// TestGoldenNullableRuns: nullable params (*int, *float64) compared with nil and read with
// valueor and mustvalue, in the checker, the recover and the cached EvalRoofline.
func TestGoldenNullableRuns(t *testing.T) {
	ptr := func(v int) *int { return &v }
	// The checker: W = min(valueor(window, S), S); bytes count 2 or 3 tensors.
	w := &nullable.WindowAttnFwd{B: 1, S: 16, D: 8, DType: 2}
	expectRoofline(t, w, 4*16*16*8, 2*16*8*2) // window None: W = S
	w.Window = ptr(4)
	expectRoofline(t, w, 4*16*4*8, 3*16*8*2)
	w.Window = ptr(100) // wider than the sequence: W = S
	expectRoofline(t, w, 4*16*16*8, 3*16*8*2)
	w.Window = ptr(-1)
	expectError(t, w, "WindowAttnFwd: roofline flops is negative (-512)")
	w.Window, w.B, w.S = nil, 1<<40, 1<<20
	expectError(t, w, `WindowAttnFwd: roofline.flops "4 * B * S * W * D": 4611686018427387904 * 1048576 overflows int64`)

	// Cached: dim is two entries of the key, nil and 0 differ, and a value changed in
	// place through the pointer is a new key.
	a := &nullable.ArgmaxFwd{XShape: []int{4, 128}, DType: 4}
	expectRoofline(t, a, 512-1, 512*4+1*8) // dim None: one reduction of 512
	zero := 0
	a.Dim = &zero
	expectRoofline(t, a, 512-128, 512*4+128*8) // dim 0: 128 reductions of 4
	expectRoofline(t, a, 512-128, 512*4+128*8) // from the cache
	zero = -1
	expectRoofline(t, a, 512-4, 512*4+4*8) // dim -1: 4 reductions of 128
	a.Dim = nil
	expectRoofline(t, a, 512-1, 512*4+1*8)
	a.Dim = ptr(2)
	expectError(t, a, "dim 2 out of range for a tensor of rank 2")
	a.Dim, a.XShape = nil, []int{} // a scalar: cond is eager, so normdim(0, 0) runs (the shape rule refuses the row)
	expectError(t, a, "dim 0 out of range for a tensor of rank 0")

	// mustvalue in both layers, with the recover.
	b := &nullable.BlockFwd{M: 2, K: 10, Block: ptr(4), DType: 4}
	expectRoofline(t, b, 2*10+2*3, 2*2*10*4+2*3*4) // cdiv(10, 4) = 3 blocks
	b.Block = nil
	expectError(t, b, `BlockFwd: roofline.vars.Nb "cdiv(K, mustvalue(block))": mustvalue of a nil (None) param: guard the row with a shape rule (p != nil), or read it with valueor(p, default)`)
	b.Block = ptr(0)
	expectError(t, b, `BlockFwd: roofline.vars.Nb "cdiv(K, mustvalue(block))": cdiv: division by zero`)

	// *float64 compared with nil: one compare-select per bound given.
	lo, hi := -0.5, 0.5
	c := &nullable.ClampFwd{XShape: []int{7, 33}, DType: 4}
	expectRoofline(t, c, 0, 2*231*4)
	c.MinVal = &lo
	expectRoofline(t, c, 231, 2*231*4)
	c.MaxVal = &hi
	expectRoofline(t, c, 2*231, 2*231*4)
}

type roofliner interface {
	EvalRoofline() (flops, bytes int64, err error)
}

func expectRoofline(t *testing.T, op roofliner, flops, bytes int64) {
	t.Helper()
	f, b, err := op.EvalRoofline()
	if err != nil || f != flops || b != bytes {
		t.Errorf("%T.EvalRoofline() = %d, %d, %v; want %d, %d, nil", op, f, b, err, flops, bytes)
	}
}

func expectError(t *testing.T, op roofliner, want string) {
	t.Helper()
	f, b, err := op.EvalRoofline()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%T.EvalRoofline() = %d, %d, %v; want an error containing %q", op, f, b, err, want)
	}
}
