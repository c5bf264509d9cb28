package ops

import (
	"slices"
	"strings"
	"testing"
)

// seq returns a tensor of shape holding 0, 1, 2, ... in row-major order.
func seq(t *testing.T, shape ...int) *Tensor {
	t.Helper()
	x := mustTensor(t, Float32, shape...)
	for i := range x.Data {
		x.Data[i] = float32(i)
	}
	return x
}

// TestLayoutValues checks each layout kernel on a case small enough to write out by hand, so
// that kernel and reference cannot share a wrong idea of the op.
func TestLayoutValues(t *testing.T) {
	tr, _ := NewTransposeFwd(0, -1, Float32)
	y := mustTensor(t, Float32, 3, 2, 2)
	if err := tr.Forward(y, seq(t, 2, 2, 3)); err != nil {
		t.Fatal(err)
	}
	// x[i][j][k] = 6i + 3j + k; y[k][j][i] = x[i][j][k].
	if want := []float32{0, 6, 3, 9, 1, 7, 4, 10, 2, 8, 5, 11}; !slices.Equal(y.Data, want) {
		t.Errorf("transpose(0, -1) of [2 2 3] = %v, want %v", y.Data, want)
	}

	cat, _ := NewConcatFwd(1, Float32)
	y = mustTensor(t, Float32, 2, 3)
	if err := cat.Forward(y, seq(t, 2, 2), seq(t, 2, 1)); err != nil {
		t.Fatal(err)
	}
	if want := []float32{0, 1, 0, 2, 3, 1}; !slices.Equal(y.Data, want) {
		t.Errorf("cat([2 2], [2 1], 1) = %v, want %v", y.Data, want)
	}

	pad, _ := NewPadFwd(1, 2, 9, Float32)
	y = mustTensor(t, Float32, 2, 5)
	if err := pad.Forward(y, seq(t, 2, 2)); err != nil {
		t.Fatal(err)
	}
	if want := []float32{9, 0, 1, 9, 9, 9, 2, 3, 9, 9}; !slices.Equal(y.Data, want) {
		t.Errorf("pad([2 2], (1, 2), 9) = %v, want %v", y.Data, want)
	}
}

// TestLayoutErrors: constructors and Bind refuse what torch would, with messages that name
// the op and the offending value.
func TestLayoutErrors(t *testing.T) {
	if _, err := NewPadFwd(-1, 0, 0, Float32); err == nil || !strings.Contains(err.Error(), "PadFwd: pads (-1, 0) must be non-negative") {
		t.Errorf("NewPadFwd(-1, 0): err = %v", err)
	}
	if _, err := NewCopyFwd(Int32); err == nil || !strings.Contains(err.Error(), "CopyFwd: dtype int32 not supported") {
		t.Errorf("NewCopyFwd(int32): err = %v", err)
	}
	tr, _ := NewTransposeFwd(0, 2, Float32)
	if _, err := tr.Bind(mustTensor(t, Float32, 3, 4)); err == nil || !strings.Contains(err.Error(), "TransposeFwd: dim 2 out of range for a tensor of rank 2") {
		t.Errorf("transpose(0, 2) of a matrix: err = %v", err)
	}
	cat, _ := NewConcatFwd(0, Float32)
	for _, c := range []struct {
		a, b *Tensor
		want string
	}{
		{mustTensor(t, Float32, 2, 3), mustTensor(t, Float32, 2, 4), "differ in dim 1, which is not the concatenated dim 0"},
		{mustTensor(t, Float32, 2, 3), mustTensor(t, Float32, 3), "differ in rank"},
		{mustTensor(t, Float32, 2, 3), mustTensor(t, Float16, 2, 3), "input b is float16[2 3], the op was built for float32"},
	} {
		if _, err := cat.Bind(c.a, c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cat(%v, %v): err = %v, want %q", c.a, c.b, err, c.want)
		}
	}
	pad, _ := NewPadFwd(1, 1, 0, Float32)
	if _, err := pad.Bind(mustTensor(t, Float32)); err == nil || !strings.Contains(err.Error(), "is a scalar") {
		t.Errorf("pad of a scalar: err = %v", err)
	}
	// Forward checks the output against the shape Bind computes.
	if err := pad.Forward(mustTensor(t, Float32, 2, 3), mustTensor(t, Float32, 2, 3)); err == nil || !strings.Contains(err.Error(), "want float32[2 5]") {
		t.Errorf("pad into an unpadded output: err = %v", err)
	}
}
