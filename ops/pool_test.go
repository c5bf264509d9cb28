package ops

import (
	"math"
	"strings"
	"testing"
)

// poolOp is what the pools have in common, for the tests that run them alike.
type poolOp interface {
	Bind(x *Tensor) ([]int, error)
	Forward(y, x *Tensor) error
	reference(y, x *Tensor)
}

// poolLimit is the shape rule's bound on window starts (padded coordinates): below
// span + 1 in floor mode, below min(span + stride, in + padding) in ceil mode.
func poolLimit(in, k, s, p int, ceil bool) int {
	span := in + 2*p - k
	if ceil {
		return min(span+s, in+p)
	}
	return span + 1
}

// TestPoolOut: torch's output-size rule (poolOut) is the count of window starts below the
// manifest rule's limit, over every small geometry torch accepts.
func TestPoolOut(t *testing.T) {
	for in := 1; in <= 12; in++ {
		for k := 1; k <= in+2; k++ {
			for s := 1; s <= 4; s++ {
				for p := 0; 2*p <= k; p++ {
					if in+2*p < k {
						continue
					}
					for _, ceil := range []bool{false, true} {
						got, err := poolOut("pool", "H", in, k, s, p, ceil)
						want := (poolLimit(in, k, s, p, ceil) + s - 1) / s
						if err != nil || got != want {
							t.Errorf("in %d k %d s %d p %d ceil %v: poolOut = %d, %v; the rule counts %d", in, k, s, p, ceil, got, err, want)
						}
					}
				}
			}
		}
	}
}

// TestPool2dOptionsKnownValues: ceil mode over a 3x3 ramp (windows of 4, 2, 2 and 1
// elements), the divisor with and without the padding, a fixed divisor, the max in ceil mode.
func TestPool2dOptionsKnownValues(t *testing.T) {
	ramp := &Tensor{Shape: []int{1, 1, 3, 3}, DType: Float32, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}}
	small := &Tensor{Shape: []int{1, 1, 2, 2}, DType: Float32, Data: []float32{1, 2, 3, 4}}
	two := func(v int) *int { return &v }(2)
	for _, tc := range []struct {
		name             string
		x                *Tensor
		k, s, p          int
		ceil, includePad bool
		div              *int
		max              bool
		want             []float32
	}{
		{"avg ceil", ramp, 2, 2, 0, true, true, nil, false, []float32{12. / 4, 9. / 2, 15. / 2, 9}},
		{"avg ceil override", ramp, 2, 2, 0, true, true, two, false, []float32{6, 4.5, 7.5, 4.5}},
		{"max ceil", ramp, 2, 2, 0, true, true, nil, true, []float32{5, 6, 8, 9}},
		{"avg pad counted", small, 2, 1, 1, false, true, nil, false,
			[]float32{1. / 4, 3. / 4, 2. / 4, 4. / 4, 10. / 4, 6. / 4, 3. / 4, 7. / 4, 4. / 4}},
		{"avg pad not counted", small, 2, 1, 1, false, false, nil, false,
			[]float32{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}},
	} {
		x := [4]int(tc.x.Shape)
		k, s, p := [2]int{tc.k, tc.k}, [2]int{tc.s, tc.s}, [2]int{tc.p, tc.p}
		var op poolOp
		var err error
		if tc.max {
			op, err = NewMaxPool2dFwd(x, k, s, p, tc.ceil, Float32)
		} else {
			op, err = NewAvgPool2dFwd(x, k, s, p, tc.ceil, tc.includePad, tc.div, Float32)
		}
		if err != nil {
			t.Fatal(err)
		}
		shape, err := op.Bind(tc.x)
		if err != nil {
			t.Fatal(err)
		}
		want := &Tensor{Shape: shape, DType: Float32, Data: tc.want}
		y, _ := NewTensor(Float32, shape...)
		if err := op.Forward(y, tc.x); err != nil {
			t.Fatal(err)
		}
		if err := Compare(y, want, Tol{}); err != nil {
			t.Errorf("%s: kernel: %v (got %v)", tc.name, err, y.Data)
		}
		op.reference(y, tc.x)
		if err := Compare(y, want, Tol{}); err != nil {
			t.Errorf("%s: reference: %v (got %v)", tc.name, err, y.Data)
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
	avg, err := NewAvgPool2dFwd([4]int{1, 1, 4, 4}, [2]int{2, 2}, [2]int{2, 2}, [2]int{1, 1}, false, true, nil, Float32)
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
	mx, _ := NewMaxPool2dFwd([4]int{1, 1, 4, 4}, [2]int{2, 2}, [2]int{2, 2}, [2]int{1, 1}, false, Float32)
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

// TestAdaptivePoolKnownValues pools a 5 x 3 ramp to 3 x 2: row bins [0,2) [1,4) [3,5), column
// bins [0,2) [1,3), so the middle row's bins hold 6 elements and the others 4.
func TestAdaptivePoolKnownValues(t *testing.T) {
	x := &Tensor{Shape: []int{1, 1, 5, 3}, DType: Float32, Data: make([]float32, 15)}
	for i := range x.Data {
		x.Data[i] = float32(i + 1) // x[i][j] = 3i + j + 1
	}
	avg, err := NewAdaptiveAvgPool2dFwd([4]int{1, 1, 5, 3}, [2]int{3, 2}, Float32)
	if err != nil {
		t.Fatal(err)
	}
	mx, err := NewAdaptiveMaxPool2dFwd([4]int{1, 1, 5, 3}, [2]int{3, 2}, Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		op   poolOp
		want []float32
	}{
		{"avg", avg, []float32{12. / 4, 16. / 4, 45. / 6, 51. / 6, 48. / 4, 52. / 4}},
		{"max", mx, []float32{5, 6, 11, 12, 14, 15}},
	} {
		y, _ := NewTensor(Float32, 1, 1, 3, 2)
		want := &Tensor{Shape: y.Shape, DType: Float32, Data: tc.want}
		if err := tc.op.Forward(y, x); err != nil {
			t.Fatal(err)
		}
		if err := Compare(y, want, Tol{}); err != nil {
			t.Errorf("%s kernel: %v (got %v)", tc.name, err, y.Data)
		}
		tc.op.reference(y, x)
		if err := Compare(y, want, Tol{}); err != nil {
			t.Errorf("%s reference: %v (got %v)", tc.name, err, y.Data)
		}
	}
	if _, err := NewAdaptiveAvgPool2dFwd([4]int{1, 1, 5, 3}, [2]int{0, 2}, Float32); err == nil || !strings.Contains(err.Error(), "H_out is 0") {
		t.Errorf("H_out 0: err = %v", err)
	}
}
