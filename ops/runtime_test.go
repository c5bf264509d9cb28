package ops

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestParallelFor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range []struct {
		n, grain, calls int
	}{
		{0, 10, 0},
		{1, 10, 1},
		{19, 10, 1},   // below 2*grain: serial, one call
		{20, 10, 2},   // both cores
		{1000, 10, 2}, // never more ranges than GOMAXPROCS
		{5, 0, 2},     // grain below 1 counts as 1
	} {
		var mu sync.Mutex
		var ranges [][2]int
		seen := make([]int, c.n)
		parallelFor(c.n, c.grain, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			ranges = append(ranges, [2]int{lo, hi})
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		if len(ranges) != c.calls {
			t.Errorf("n=%d grain=%d: %d ranges %v, want %d", c.n, c.grain, len(ranges), ranges, c.calls)
		}
		for i, k := range seen {
			if k != 1 {
				t.Fatalf("n=%d grain=%d: index %d visited %d times (ranges %v)", c.n, c.grain, i, k, ranges)
			}
		}
	}
}

// TestFillDeterministic: the data depends on the seed alone, not on how many workers filled
// it, and stays in range.
func TestFillDeterministic(t *testing.T) {
	fill := func(procs int, seed uint64) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		x := mustTensor(t, Float32, 5*fillChunk+3)
		if err := FillUniform(x, seed, -1, 1); err != nil {
			t.Fatal(err)
		}
		return x.Data
	}
	a, b, c := fill(1, 42), fill(2, 42), fill(2, 43)
	if !slices.Equal(a, b) {
		t.Error("FillUniform differs between 1 and 2 workers")
	}
	if slices.Equal(b, c) {
		t.Error("FillUniform gives the same data for seeds 42 and 43")
	}
	if slices.Equal(a[:fillChunk], a[fillChunk:2*fillChunk]) {
		t.Error("two chunks drew the same stream")
	}
	for i, v := range a {
		if v < -1 || v >= 1 {
			t.Fatalf("a[%d] = %v outside [-1, 1)", i, v)
		}
	}
	ids := mustTensor(t, Int64, 10000)
	if err := FillInts(ids, 1, 7); err != nil {
		t.Fatal(err)
	}
	hit := map[float32]bool{}
	for _, v := range ids.Data {
		if v < 0 || v >= 7 || v != float32(int(v)) {
			t.Fatalf("FillInts gave %v, want an integer in [0, 7)", v)
		}
		hit[v] = true
	}
	if len(hit) != 7 {
		t.Errorf("FillInts hit %d of 7 values in 10000 draws", len(hit))
	}
}

func TestFillErrors(t *testing.T) {
	x := mustTensor(t, Float32, 4)
	meta, _ := NewMeta(Float32, 4)
	for _, c := range []struct {
		err  error
		want string
	}{
		{FillUniform(x, 1, 1, 1), "empty range [1, 1)"},
		{FillUniform(meta, 1, 0, 1), "meta tensor"},
		{FillInts(x, 1, 0), "n = 0"},
		{FillInts(x, 1, 1<<25), "2^24"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("err = %v, want %q", c.err, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	mk := func(shape []int, data ...float32) *Tensor { return &Tensor{Shape: shape, DType: Float32, Data: data} }
	for _, c := range []struct {
		got, want *Tensor
		tol       Tol
		err       string
	}{
		{mk([]int{3}, 1, 2, nan), mk([]int{3}, 1, 2, nan), Tol{}, ""},
		{mk([]int{2, 2}, 1, 2, 3, 4), mk([]int{2, 2}, 1, 2, 3, 4.5), Tol{}, "1 of 4 elements differ beyond {Abs:0 Rel:0}; first at [1 1]: got 4, want 4.5"},
		{mk([]int{2}, 1, 2.001), mk([]int{2}, 1, 2), Tol{Rel: 1e-3}, ""},
		{mk([]int{2}, 1, 2.01), mk([]int{2}, 1, 2), Tol{Rel: 1e-3}, "1 of 2 elements differ"},
		{mk([]int{1}, 1e-9), mk([]int{1}, 0), Tol{Abs: 1e-8}, ""},
		{mk([]int{1}, nan), mk([]int{1}, 1), Tol{Abs: 1}, "got NaN, want 1"},
		{mk([]int{1}, 1), mk([]int{1}, nan), Tol{Abs: 1}, "got 1, want NaN"},
		{mk([]int{2}, 1, 2), mk([]int{1, 2}, 1, 2), Tol{}, "shape [2], want [1 2]"},
		{mk([]int{2}, inf, -inf), mk([]int{2}, inf, -inf), Tol{}, ""},
		{mk([]int{1}, 3e38), mk([]int{1}, inf), Tol{Rel: 1e-6}, "got 3e+38, want +Inf"},
		{mk([]int{1}, inf), mk([]int{1}, -inf), Tol{Rel: 1e-6}, "got +Inf, want -Inf"},
	} {
		err := Compare(c.got, c.want, c.tol)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("Compare(%v, %v): %v", c.got.Data, c.want.Data, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Compare(%v, %v): err = %v, want %q", c.got.Data, c.want.Data, err, c.err)
		}
	}
}

func TestNewTensor(t *testing.T) {
	x, err := NewTensor(BFloat16, 2, 3)
	if err != nil || x.Numel() != 6 || x.Bytes() != 12 || len(x.Data) != 6 || x.String() != "bfloat16[2 3]" {
		t.Fatalf("NewTensor(bfloat16, 2, 3) = %v (%d elements, %d bytes), %v", x, x.Numel(), x.Bytes(), err)
	}
	s, err := NewTensor(Float32)
	if err != nil || s.Numel() != 1 || len(s.Data) != 1 {
		t.Errorf("scalar: %v, %v", s, err)
	}
	for _, c := range []struct {
		dt    DType
		shape []int
		want  string
	}{
		{Float32, []int{2, -1}, "dim 1 is -1"},
		{Invalid, []int{2}, "invalid dtype"},
		{Float32, []int{1 << 62, 4}, "overflows"},
	} {
		if _, err := NewMeta(c.dt, c.shape...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewMeta(%v, %v): err = %v, want %q", c.dt, c.shape, err, c.want)
		}
	}
}
