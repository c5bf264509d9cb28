package ops

import (
	"testing"
)

// TestConv2dKnownValues checks an identity-like kernel on a tiny image: a 3x3 weight with a
// single 1 at the centre, padding 1, reproduces the image; a 2x2 all-ones kernel with stride
// 2 sums disjoint blocks.
func TestConv2dKnownValues(t *testing.T) {
	img := &Tensor{Shape: []int{1, 1, 2, 4}, DType: Float32, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	centre := &Tensor{Shape: []int{1, 1, 3, 3}, DType: Float32, Data: []float32{0, 0, 0, 0, 1, 0, 0, 0, 0}}
	ones := &Tensor{Shape: []int{1, 1, 2, 2}, DType: Float32, Data: []float32{1, 1, 1, 1}}
	for _, tc := range []struct {
		w               *Tensor
		stride, padding int
		want            []float32
		shape           []int
	}{
		{centre, 1, 1, img.Data, []int{1, 1, 2, 4}},
		{ones, 2, 0, []float32{1 + 2 + 5 + 6, 3 + 4 + 7 + 8}, []int{1, 1, 1, 2}},
	} {
		op, err := NewConv2dFwd([4]int(img.Shape), [4]int(tc.w.Shape), tc.stride, tc.padding, 1, 1, false, Float32)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := NewTensor(Float32, tc.shape...)
		if err := op.Forward(y, img, tc.w, nil); err != nil {
			t.Fatal(err)
		}
		if err := Compare(y, &Tensor{Shape: tc.shape, DType: Float32, Data: tc.want}, Tol{}); err != nil {
			t.Errorf("weight %v stride %d padding %d: %v", tc.w.Shape, tc.stride, tc.padding, err)
		}
	}
}

// TestConv2dDilationGroupsKnownValues: a 2x2 all-ones kernel at dilation 2 sums the corners
// of each 3x3 window; two groups of one channel each scale their own channel only.
func TestConv2dDilationGroupsKnownValues(t *testing.T) {
	img := &Tensor{Shape: []int{1, 1, 5, 5}, DType: Float32, Data: make([]float32, 25)}
	for i := range img.Data {
		img.Data[i] = float32(i + 1) // x[i][j] = 5i + j + 1
	}
	ones := &Tensor{Shape: []int{1, 1, 2, 2}, DType: Float32, Data: []float32{1, 1, 1, 1}}
	two := &Tensor{Shape: []int{1, 2, 1, 2}, DType: Float32, Data: []float32{1, 2, 3, 4}}
	scale := &Tensor{Shape: []int{2, 1, 1, 1}, DType: Float32, Data: []float32{10, 100}}
	for _, tc := range []struct {
		x, w             *Tensor
		dilation, groups int
		want             []float32
		shape            []int
	}{
		// y[oh][ow] = x[oh][ow] + x[oh][ow+2] + x[oh+2][ow] + x[oh+2][ow+2]
		{img, ones, 2, 1, []float32{28, 32, 36, 48, 52, 56, 68, 72, 76}, []int{1, 1, 3, 3}},
		{two, scale, 1, 2, []float32{10, 20, 300, 400}, []int{1, 2, 1, 2}},
	} {
		op, err := NewConv2dFwd([4]int(tc.x.Shape), [4]int(tc.w.Shape), 1, 0, tc.dilation, tc.groups, false, Float32)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := NewTensor(Float32, tc.shape...)
		if err := op.Forward(y, tc.x, tc.w, nil); err != nil {
			t.Fatal(err)
		}
		want := &Tensor{Shape: tc.shape, DType: Float32, Data: tc.want}
		if err := Compare(y, want, Tol{}); err != nil {
			t.Errorf("dilation %d groups %d: kernel: %v", tc.dilation, tc.groups, err)
		}
		op.reference(y, tc.x, tc.w, nil)
		if err := Compare(y, want, Tol{}); err != nil {
			t.Errorf("dilation %d groups %d: reference: %v", tc.dilation, tc.groups, err)
		}
	}
}
