package kernels

import "testing"

// TestRoofline: the generated EvalRoofline gives the manifest's formulas on these types, and
// an arbitrary-rank op must be bound first.
func TestRoofline(t *testing.T) {
	scale := NewScaleFwd(2, BFloat16)
	if _, _, err := scale.EvalRoofline(); err == nil {
		t.Error("ScaleFwd.EvalRoofline before Bind: no error")
	}
	scale.Bind(&Tensor{Shape: []int{3, 5}})
	mv, err := NewMatVecFwd(64, 128, Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		op           interface{ EvalRoofline() (int64, int64, error) }
		flops, bytes int64
	}{
		{"ScaleFwd", scale, 15, 2 * 15 * 2},
		{"MatVecFwd", mv, 2 * 64 * 128, (64*128 + 128 + 64) * 4},
		{"RowSumFwd", &RowSumFwd{R: 8, C: 10, DType: Float32}, 8 * 9, (80 + 8) * 4},
	} {
		flops, bytes, err := tc.op.EvalRoofline()
		if err != nil || flops != tc.flops || bytes != tc.bytes {
			t.Errorf("%s: %d flops, %d bytes, %v; want %d, %d", tc.name, flops, bytes, err, tc.flops, tc.bytes)
		}
	}
	if roof := mv.ComputeRoof(); roof != "vector.fp32" {
		t.Errorf("MatVecFwd roof %q", roof)
	}
	// The generated default follows the dtype, read through DType.String.
	if roof := NewScaleFwd(1, BFloat16).ComputeRoof(); roof != "vector.bf16" {
		t.Errorf("bfloat16 ScaleFwd roof %q, want vector.bf16", roof)
	}
}

func TestKernelsMatchReferences(t *testing.T) {
	x := NewTensor(Float32, false, 3, 4)
	for i := range x.Data {
		x.Data[i] = float32(i) - 5.5
	}
	v := NewTensor(Float32, false, 4)
	copy(v.Data, []float32{1, -2, 0.5, 3})
	for _, tc := range []struct {
		name      string
		got, want *Tensor
		run, ref  func(y *Tensor)
	}{
		{"ScaleFwd", NewTensor(Float32, false, 3, 4), NewTensor(Float32, false, 3, 4),
			func(y *Tensor) { NewScaleFwd(-0.5, Float32).Forward(y, x) }, func(y *Tensor) { NewScaleFwd(-0.5, Float32).Reference(y, x) }},
		{"MatVecFwd", NewTensor(Float32, false, 3), NewTensor(Float32, false, 3),
			func(y *Tensor) { (&MatVecFwd{M: 3, K: 4}).Forward(y, x, v) }, func(y *Tensor) { (&MatVecFwd{M: 3, K: 4}).Reference(y, x, v) }},
		{"RowSumFwd", NewTensor(Float32, false, 3), NewTensor(Float32, false, 3),
			func(y *Tensor) { (&RowSumFwd{R: 3, C: 4}).Forward(y, x) }, func(y *Tensor) { (&RowSumFwd{R: 3, C: 4}).Reference(y, x) }},
	} {
		tc.run(tc.got)
		tc.ref(tc.want)
		if err := Close(tc.got, tc.want, 1e-6); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// Row 1 of x is (−1.5, −0.5, 0.5, 1.5), which sums to 0; row 2 (2.5 .. 5.5) to 16.
	y := NewTensor(Float32, false, 3)
	(&RowSumFwd{R: 3, C: 4}).Forward(y, x)
	if y.Data[1] != 0 || y.Data[2] != 16 {
		t.Errorf("row sums %v", y.Data)
	}
}
