package ops

import (
	"math"
	"strings"
	"testing"
)

func poolCase(op, label string, x [4]int, k, s, p int, dtype string) kcase {
	hOut, wOut := (x[2]+2*p-k)/s+1, (x[3]+2*p-k)/s+1
	return kcase{op: op, label: label,
		dims:   map[string]int{"N": x[0], "C": x[1], "H": x[2], "W": x[3], "H_out": hOut, "W_out": wOut},
		shapes: map[string][]int{"x": x[:], "y": {x[0], x[1], hOut, wOut}},
		params: map[string]any{"kernel_size": k, "stride": s, "padding": p}, dtype: dtype, outputs: []string{"y"}}
}

func TestPool2dMatchesReference(t *testing.T) {
	for _, op := range []string{"AvgPool2dFwd", "MaxPool2dFwd"} {
		for _, k := range []kcase{
			poolCase(op, "2x2", [4]int{2, 8, 16, 16}, 2, 2, 0, "float32"),
			poolCase(op, "ragged-pad", [4]int{1, 4, 11, 9}, 3, 2, 1, "float16"),
			poolCase(op, "overlap", [4]int{1, 3, 10, 7}, 3, 1, 1, "float32"),
			poolCase(op, "stride-over-kernel", [4]int{1, 2, 9, 9}, 2, 3, 1, "bfloat16"),
			poolCase(op, "global", [4]int{2, 5, 7, 7}, 7, 7, 0, "float32"),
			poolCase(op, "two-cores", [4]int{4, 16, 64, 64}, 3, 2, 1, "float32"),
		} {
			checkKernel(t, k)
		}
	}
}

// TestPool2dKnownValues pools a 4x4 ramp with known results, padding included: the average
// divides by the whole window, the max ignores padding even when every element is negative.
func TestPool2dKnownValues(t *testing.T) {
	x := &Tensor{Shape: []int{1, 1, 4, 4}, DType: Float32, Data: make([]float32, 16)}
	for i := range x.Data {
		x.Data[i] = float32(i) - 20 // all negative
	}
	avg, err := NewAvgPool2dFwd([4]int{1, 1, 4, 4}, 2, 2, 1, Float32)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := NewTensor(Float32, 1, 1, 3, 3)
	if err := avg.Forward(y, x); err != nil {
		t.Fatal(err)
	}
	// Windows with padding 1: rows {-1,0}, {1,2}, {3,4}; same for columns.
	want := []float32{-20 / 4., (-19 - 18) / 4., -17 / 4.,
		(-16 - 12) / 4., (-15 - 14 - 11 - 10) / 4., (-13 - 9) / 4.,
		-8 / 4., (-7 - 6) / 4., -5 / 4.}
	if err := Compare(y, &Tensor{Shape: y.Shape, DType: Float32, Data: want}, Tol{}); err != nil {
		t.Errorf("avg: %v", err)
	}
	mx, _ := NewMaxPool2dFwd([4]int{1, 1, 4, 4}, 2, 2, 1, Float32)
	if err := mx.Forward(y, x); err != nil {
		t.Fatal(err)
	}
	want = []float32{-20, -18, -17, -12, -10, -9, -8, -6, -5}
	if err := Compare(y, &Tensor{Shape: y.Shape, DType: Float32, Data: want}, Tol{}); err != nil {
		t.Errorf("max: %v", err)
	}
	x.Data[5] = float32(math.NaN())
	if err := mx.Forward(y, x); err != nil {
		t.Fatal(err)
	}
	if v := y.Data[4]; v == v {
		t.Errorf("max over a window holding NaN = %v, want NaN", v)
	}
}

func TestPool2dErrors(t *testing.T) {
	for _, tc := range []struct {
		x       [4]int
		k, s, p int
		dt      DType
		want    string
	}{
		{[4]int{1, 1, 8, 8}, 3, 1, 2, Float32, "padding 2 must be between 0 and half the kernel size 3"},
		{[4]int{1, 1, 8, 8}, 3, 0, 1, Float32, "stride is 0"},
		{[4]int{1, 1, 2, 8}, 5, 1, 1, Float32, "window (5) is larger than H padded"},
		{[4]int{1, 1, 8, 8}, 2, 2, 0, Int32, "dtype int32 not supported"},
	} {
		for name, mk := range map[string]func() error{
			"avg": func() error { _, err := NewAvgPool2dFwd(tc.x, tc.k, tc.s, tc.p, tc.dt); return err },
			"max": func() error { _, err := NewMaxPool2dFwd(tc.x, tc.k, tc.s, tc.p, tc.dt); return err },
		} {
			if err := mk(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %+v: err = %v, want %q", name, tc, err, tc.want)
			}
		}
	}
}
