package ops

import (
	"math"
	"slices"
	"testing"
)

func TestAxisGroups(t *testing.T) {
	got := axisGroups([]int{2, 3, 1, 4, 5, 6}, []int{1, 2, 3})
	want := []axisGroup{{2, false}, {12, true}, {30, false}}
	if !slices.Equal(got, want) {
		t.Errorf("axisGroups = %v, want %v", got, want)
	}
}

func TestReductionShapes(t *testing.T) {
	for _, c := range []struct {
		dim  []int
		keep bool
		want []int
	}{
		{[]int{-1}, false, []int{2, 3}},
		{[]int{-1}, true, []int{2, 3, 1}},
		{[]int{0, 2}, true, []int{1, 3, 1}},
		{[]int{0, 1, 2}, false, []int{}},
		{nil, false, []int{}},
		{nil, true, []int{1, 1, 1}},
	} {
		op, err := NewSumFwd(c.dim, c.keep, Float32)
		if err != nil {
			t.Fatal(err)
		}
		got, err := op.Bind(mustTensor(t, Float32, 2, 3, 4))
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("sum(dim=%v, keepdim=%v) of [2 3 4]: shape %v, %v; want %v", c.dim, c.keep, got, err, c.want)
		}
	}
}

func TestReductionErrors(t *testing.T) {
	for _, c := range []struct {
		dim  []int
		want string
	}{
		{[]int{3}, "AmaxFwd: dim 3 out of range for a tensor of rank 3 (valid: -3..2)"},
		{[]int{1, -2}, "AmaxFwd: dim [1 -2] names axis 1 twice"},
	} {
		op, err := NewAmaxFwd(c.dim, false, Float32)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Bind(mustTensor(t, Float32, 2, 3, 4)); err == nil || err.Error() != c.want {
			t.Errorf("dim %v: err = %v, want %q", c.dim, err, c.want)
		}
	}
}

func TestDimOutOfRange(t *testing.T) {
	op, err := NewSoftmaxFwd(-3, BFloat16)
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Bind(mustTensor(t, BFloat16, 4, 5))
	if want := "SoftmaxFwd: dim -3 out of range for a tensor of rank 2 (valid: -2..1)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestNaNPropagates: a NaN inside a row reaches the output as torch's kernels pass it on,
// in the 8-lane paths (VMAXPS would drop it) as in the scalar ones.
func TestNaNPropagates(t *testing.T) {
	nan := float32(math.NaN())
	x := mustTensor(t, Float32, 2, 40)
	for i := range x.Data {
		x.Data[i] = float32(i%7) - 3
	}
	x.Data[17] = nan
	isNaN := func(v float32) bool { return v != v }

	amax, _ := NewAmaxFwd([]int{-1}, false, Float32)
	y := mustTensor(t, Float32, 2)
	if err := amax.Forward(y, x); err != nil || !isNaN(y.Data[0]) || isNaN(y.Data[1]) {
		t.Errorf("amax rows = %v, %v; want [NaN, finite]", y.Data, err)
	}
	cols, _ := NewAmaxFwd([]int{0}, false, Float32)
	yc := mustTensor(t, Float32, 40)
	if err := cols.Forward(yc, x); err != nil || !isNaN(yc.Data[17]) || isNaN(yc.Data[16]) {
		t.Errorf("amax columns: [16] = %v, [17] = %v, %v; want finite, NaN", yc.Data[16], yc.Data[17], err)
	}
	relu, _ := NewReluFwd(Float32)
	yr := mustTensor(t, Float32, 2, 40)
	if err := relu.Forward(yr, x); err != nil || !isNaN(yr.Data[17]) || yr.Data[16] != 0 {
		t.Errorf("relu: [16] = %v, [17] = %v, %v; want 0, NaN", yr.Data[16], yr.Data[17], err)
	}
	sm, _ := NewSoftmaxFwd(-1, Float32)
	ys := mustTensor(t, Float32, 2, 40)
	if err := sm.Forward(ys, x); err != nil || !isNaN(ys.Data[0]) || isNaN(ys.Data[40]) {
		t.Errorf("softmax: row 0 [0] = %v, row 1 [0] = %v, %v; want NaN, finite", ys.Data[0], ys.Data[40], err)
	}
}
