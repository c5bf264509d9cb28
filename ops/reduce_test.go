package ops

import (
	"math"
	"runtime"
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

// TestSoftmaxColumns checks softmax and log_softmax along a dim with elements after it (the
// column kernels: whole vectors and a Go tail, one and several column blocks of colChunk,
// and the Go loops of small units)
// against the float64 reference, at the Go loops and every SIMD level, its output streamed
// and not, with one column
// whose values are far above the others' and one of -Inf but for a single element.
func TestSoftmaxColumns(t *testing.T) {
	for _, c := range []struct {
		shape []int
		dim   int
	}{
		{[]int{137, 45}, 0}, {[]int{3, 29, 100}, -2}, {[]int{5, 2, colChunk + 70}, 0}, // the vector kernels
		{[]int{37, 45}, 0}, {[]int{6, 3}, 0}, // the Go loops (colsGo)
	} {
		x := mustTensor(t, Float32, c.shape...)
		if err := FillUniform(x, 9, -4, 4); err != nil {
			t.Fatal(err)
		}
		last := c.shape[len(c.shape)-1] // columns 1 and 2 of every last-dim row are columns of the reduction too
		for i := 0; i < len(x.Data); i += last {
			x.Data[i+1] += 80 // column 1: exps of the others' size would overflow unshifted
			if i > 0 {
				x.Data[i+2] = float32(math.Inf(-1))
			}
		}
		sm, err := NewSoftmaxFwd(c.dim, Float32)
		if err != nil {
			t.Fatal(err)
		}
		lsm, err := NewLogSoftmaxFwd(c.dim, Float32)
		if err != nil {
			t.Fatal(err)
		}
		prev := streamMinBytes
		defer func() { streamMinBytes = prev }()
		for _, level := range []int{SIMDGo, SIMDAVX2, SIMDAVX512} {
			restore := SetSIMD(level)
			for _, minBytes := range []int{0, 1 << 62} { // streamed output and not
				streamMinBytes = minBytes
				for name, op := range map[string]interface {
					Forward(out, x *Tensor) error
					Reference(out, x *Tensor) error
					Tolerance() Tol
				}{"softmax": sm, "log_softmax": lsm} {
					got, want := mustTensor(t, Float32, c.shape...), mustTensor(t, Float32, c.shape...)
					if err := op.Forward(got, x); err != nil {
						t.Fatal(err)
					}
					if err := op.Reference(want, x); err != nil {
						t.Fatal(err)
					}
					if err := Compare(got, want, op.Tolerance()); err != nil {
						t.Errorf("%s %v dim %d, level %s, streamMinBytes %d: %v", name, c.shape, c.dim, simdName(simdLevel()), minBytes, err)
					}
				}
			}
			restore()
		}
	}
}

// TestReduceSplitRuns checks sum, mean and amax where there are fewer outputs than cores and
// each run is long enough to be cut into a piece per core (four Ps here, whatever the
// machine has): one output over every element, two rows, a NaN in one piece for amax, at
// every SIMD level, against the float64 reference.
func TestReduceSplitRuns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	type reduceOp interface {
		Forward(out, x *Tensor) error
		Bind(x *Tensor) ([]int, error)
		Reference(out, x *Tensor) error
		Tolerance() Tol
	}
	for _, c := range []struct {
		shape []int
		dim   []int
	}{{[]int{5, 70001}, nil}, {[]int{2, 140003}, []int{-1}}} {
		x := mustTensor(t, Float32, c.shape...)
		if err := FillUniform(x, 5, -3, 3); err != nil {
			t.Fatal(err)
		}
		sum, _ := NewSumFwd(c.dim, false, Float32)
		mean, _ := NewMeanFwd(c.dim, false, Float32)
		amax, _ := NewAmaxFwd(c.dim, false, Float32)
		x.Data[len(x.Data)-17] = 1e6 // the max, in the last piece
		for _, level := range []int{SIMDGo, SIMDAVX2, SIMDAVX512} {
			restore := SetSIMD(level)
			for name, op := range map[string]reduceOp{"sum": sum, "mean": mean, "amax": amax} {
				shape, err := op.Bind(x)
				if err != nil {
					t.Fatal(err)
				}
				got, want := mustTensor(t, Float32, shape...), mustTensor(t, Float32, shape...)
				if err := op.Forward(got, x); err != nil {
					t.Fatal(err)
				}
				if err := op.Reference(want, x); err != nil {
					t.Fatal(err)
				}
				if err := Compare(got, want, op.Tolerance()); err != nil {
					t.Errorf("%s %v dim %v, level %s: %v", name, c.shape, c.dim, simdName(simdLevel()), err)
				}
			}
			restore()
		}
		x.Data[3] = float32(math.NaN()) // in the first piece: amax is NaN
		got := &Tensor{Shape: []int{}, DType: Float32, Data: make([]float32, 1)}
		if c.dim == nil {
			if err := amax.Forward(got, x); err != nil || got.Data[0] == got.Data[0] {
				t.Errorf("amax %v with a NaN: %v, %v; want NaN", c.shape, got.Data, err)
			}
		}
	}
}
