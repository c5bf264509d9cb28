package ops

import (
	"strings"
	"testing"
)

// TestLinearBias checks the bias on known values: weight rows pick single features of x,
// so y is x's columns plus the bias, exactly.
func TestLinearBias(t *testing.T) {
	op, err := NewLinearFwd(2, 3, 2, true, Float32)
	if err != nil {
		t.Fatal(err)
	}
	x := &Tensor{Shape: []int{2, 2}, DType: Float32, Data: []float32{1, 2, 3, 4}}
	w := &Tensor{Shape: []int{3, 2}, DType: Float32, Data: []float32{1, 0, 0, 1, 1, 1}}
	b := &Tensor{Shape: []int{3}, DType: Float32, Data: []float32{10, 20, 30}}
	y, _ := NewTensor(Float32, 2, 3)
	if err := op.Forward(y, x, w, b); err != nil {
		t.Fatal(err)
	}
	want := &Tensor{Shape: []int{2, 3}, DType: Float32, Data: []float32{11, 22, 33, 13, 24, 37}}
	if err := Compare(y, want, Tol{}); err != nil {
		t.Error(err)
	}
}

func TestLinearErrors(t *testing.T) {
	with, _ := NewLinearFwd(2, 3, 4, true, Float32)
	without, _ := NewLinearFwd(2, 3, 4, false, Float32)
	if with.BiasShape == nil || with.BiasShape[0] != 3 || without.BiasShape != nil {
		t.Fatalf("BiasShape: with %v, without %v; want [3] and nil", with.BiasShape, without.BiasShape)
	}
	x, _ := NewTensor(Float32, 2, 4)
	w, _ := NewTensor(Float32, 3, 4)
	b, _ := NewTensor(Float32, 3)
	if _, err := with.Bind(x, w, nil); err == nil || !strings.Contains(err.Error(), "input bias is nil") {
		t.Errorf("missing bias: err = %v", err)
	}
	if _, err := without.Bind(x, w, b); err == nil || !strings.Contains(err.Error(), "built without one") {
		t.Errorf("unexpected bias: err = %v", err)
	}
	wT, _ := NewTensor(Float32, 4, 3)
	if _, err := with.Bind(x, wT, b); err == nil || !strings.Contains(err.Error(), "built for shape [3 4]") {
		t.Errorf("weight in [K, N] layout: err = %v", err)
	}
	if _, err := NewLinearFwd(2, 3, 4, false, Float8E5M2); err == nil {
		t.Errorf("fp8 linear: no error")
	}
}
