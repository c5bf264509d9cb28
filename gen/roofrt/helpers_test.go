package roofrt

import (
	"math"
	"strings"
	"testing"
)

// refusal runs f and returns the message of the rooflineError it panics with, "" if none.
func refusal(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(rooflineError)
			if !ok {
				t.Fatalf("panicked with %T %v, not a rooflineError", r, r)
			}
			msg = e.Error()
		}
	}()
	f()
	return ""
}

func TestHelpers(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"product", product([]int{3, 4, 5}), 60},
		{"product empty", product(nil), 1},
		{"product negative", product([]int{-2, 3}), -6},
		{"sum", sum([]int{3, -4, 5}), 4},
		{"abs", abs(-7), 7},
		{"floordiv", floordiv(7, 2), 3},
		{"floordiv negative", floordiv(-7, 2), -4},
		{"floordiv both negative", floordiv(-7, -2), 3},
		{"floordiv exact", floordiv(-8, 2), -4},
		{"cdiv", cdiv(7, 2), 4},
		{"cdiv negative", cdiv(-7, 2), -3},
		{"floormod", floormod(-7, 3), 2},
		{"floormod negative divisor", floormod(7, -3), -2},
		{"normdim", normdim(-1, 3), 2},
		{"normdim positive", normdim(1, 3), 1},
		{"cond", cond(true, 1, 2), 1},
		{"cond false", cond(false, 1, 2), 2},
		{"log2", log2(1000), 9},
		{"log2 power", log2(1024), 10},
		{"clog2", clog2(1000), 10},
		{"clog2 power", clog2(1024), 10},
		{"clog2 one", clog2(1), 0},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"product overflow", "product: result overflows int64", func() { product([]int{math.MaxInt32 * 4, math.MaxInt32 * 4}) }},
		{"sum overflow", "sum: result overflows int64", func() { sum([]int{math.MaxInt64, 1}) }},
		{"floordiv by zero", "division by zero", func() { floordiv(1, 0) }},
		{"cdiv by zero", "division by zero", func() { cdiv(1, 0) }},
		{"floormod by zero", "division by zero", func() { floormod(1, 0) }},
		{"normdim", "dim 3 out of range for a tensor of rank 3", func() { normdim(3, 3) }},
		{"normdim negative", "dim -4 out of range for a tensor of rank 3", func() { normdim(-4, 3) }},
		{"log2", "log2 of 0", func() { log2(0) }},
		{"clog2", "clog2 of -1", func() { clog2(-1) }},
	} {
		if got := refusal(t, c.f); !strings.Contains(got, c.want) || got == "" {
			t.Errorf("%s: refusal %q, want one containing %q", c.name, got, c.want)
		}
	}
}

func TestRuntime(t *testing.T) {
	var err error
	func() {
		defer rooflineRecover("Op", &err)
		panic(rooflineError("no"))
	}()
	if err == nil || err.Error() != "Op: roofline: no" {
		t.Errorf("rooflineRecover made %v", err)
	}
	if e := rooflineUnbound("Op", "x"); e.Error() != "Op: EvalRoofline before Forward: input x is not bound" {
		t.Errorf("rooflineUnbound: %v", e)
	}
	if tv := (rooflineTensor{shape: []int{2, 3}, ndim: 2}); abs(tv.ndim) != len(tv.shape) {
		t.Error("rooflineTensor")
	}
	var _ rooflineOp = nil
	if f, b, err := rooflineCheck("Op", rooflinePair[int]{6, 8}, rooflinePair[float64]{6, 8}); f != 6 || b != 8 || err != nil {
		t.Errorf("rooflineCheck = %d, %d, %v", f, b, err)
	}
	if _, _, err := rooflineCheck("Op", rooflinePair[int]{-6, 8}, rooflinePair[float64]{-6, 8}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("a negative flops gave %v", err)
	}
	if _, _, err := rooflineCheck("Op", rooflinePair[int]{6, 8}, rooflinePair[float64]{6, 0x1p64}); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("a wrapped bytes gave %v", err)
	}
}
