package ops

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNormErrors(t *testing.T) {
	if _, err := NewRMSNormFwd(nil, nil, Float32); err == nil || !strings.Contains(err.Error(), "normalized_shape is empty") {
		t.Errorf("empty normalized_shape: err = %v", err)
	}
	eps := -1.0
	if _, err := NewRMSNormFwd([]int{4}, &eps, Float32); err == nil || !strings.Contains(err.Error(), "eps -1 must be") {
		t.Errorf("negative eps: err = %v", err)
	}
	op, err := NewLayerNormFwd([]int{4, 5}, 1e-5, Float32)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		x, w *Tensor
		want string
	}{
		{mustTensor(t, Float32, 3, 5, 4), nil, "LayerNormFwd: input x float32[3 5 4] does not end in normalized_shape [4 5]"},
		{mustTensor(t, Float32, 5), nil, "does not end in normalized_shape"},
		{mustTensor(t, Float32, 3, 4, 5), mustTensor(t, Float32, 20), "LayerNormFwd: weight is float32[20]; its shape must be normalized_shape [4 5]"},
		{mustTensor(t, Float32, 3, 4, 5), mustTensor(t, Float16, 4, 5), "LayerNormFwd: input weight is float16[4 5], the op was built for float32"},
	}
	for _, c := range cases {
		if _, err := op.Bind(c.x, c.w, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Bind(%v, %v): err = %v, want %q", c.x, c.w, err, c.want)
		}
	}
}

// TestNormBindsOptional: an absent weight leaves WeightShape nil, which the generated
// EvalRoofline reads as `weight == nil`, also after a call with a weight.
func TestNormBindsOptional(t *testing.T) {
	op, err := NewRMSNormFwd([]int{8}, nil, Float32)
	if err != nil {
		t.Fatal(err)
	}
	x := mustTensor(t, Float32, 2, 8)
	if _, err := op.Bind(x, mustTensor(t, Float32, 8)); err != nil || op.WeightShape == nil {
		t.Fatalf("with weight: WeightShape = %v, err = %v", op.WeightShape, err)
	}
	if _, err := op.Bind(x, nil); err != nil || op.WeightShape != nil {
		t.Fatalf("without weight: WeightShape = %v, err = %v", op.WeightShape, err)
	}
}

// TestLayerNormShiftedSums checks layer norm's one-pass shifted sums where the shift is
// worst: the row's first element far out from the rest (1e4 and -3e5 against a spread of 1;
// the variance is then mostly that element's), on rows long enough for the vector
// kernel's segments. (A mean far from zero against the spread is another matter: the
// output pass subtracts the mean in float32, with the same error before and after.)
func TestLayerNormShiftedSums(t *testing.T) {
	const rows, n = 3, 8205
	op, err := NewLayerNormFwd([]int{n}, 1e-5, Float32)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	x := mustTensor(t, Float32, rows, n)
	for i := range x.Data {
		x.Data[i] = r.Float32()*2 - 1
	}
	x.Data[0], x.Data[n] = 1e4, -3e5
	y, want := mustTensor(t, Float32, rows, n), mustTensor(t, Float32, rows, n)
	eachSIMD(t, func(t *testing.T) {
		if err := op.Forward(y, x, nil, nil); err != nil {
			t.Fatal(err)
		}
		op.reference(want, x, nil, nil)
		if err := Compare(y, want, normTol); err != nil {
			t.Fatal(err)
		}
	})
}
