package roofrt

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
)

// refusal runs f and returns the message of the rooflineError it panics with, "" if none.
func refusal(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			var e error
			switch r := r.(type) {
			case rooflineError:
				e = r
			case rooflineOverflow:
				e = r
			default:
				t.Fatalf("panicked with %T %v, not a rooflineError or rooflineOverflow", r, r)
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
		{"product", rooflineProduct([]int{3, 4, 5}), 60},
		{"product empty", rooflineProduct(nil), 1},
		{"product negative", rooflineProduct([]int{-2, 3}), -6},
		{"product min", rooflineProduct([]int{-(1 << 62), 2}), math.MinInt64},
		{"product near max", rooflineProduct([]int{153092023, 60247241209}), math.MaxInt64},
		{"floormod large", rooflineFloormod(1<<60+3, 1<<56), 3},
		{"floormod min", rooflineFloormod(math.MinInt64, -1), 0},
		{"floormod min positive", rooflineFloormod(math.MinInt64, 3), 1},
		{"floordiv min", rooflineFloordiv(math.MinInt64, 1), math.MinInt64},
		{"cdiv max", rooflineCdiv(math.MaxInt64, 2), 1 << 62},
		{"cdiv negative divisor", rooflineCdiv(7, -2), -3},
		{"log2 max", rooflineLog2(math.MaxInt64), 62},
		{"clog2 max", rooflineClog2(math.MaxInt64), 63},
		{"sum", rooflineSum([]int{3, -4, 5}), 4},
		{"abs", rooflineAbs(-7), 7},
		{"floordiv", rooflineFloordiv(7, 2), 3},
		{"floordiv negative", rooflineFloordiv(-7, 2), -4},
		{"floordiv both negative", rooflineFloordiv(-7, -2), 3},
		{"floordiv exact", rooflineFloordiv(-8, 2), -4},
		{"cdiv", rooflineCdiv(7, 2), 4},
		{"cdiv negative", rooflineCdiv(-7, 2), -3},
		{"floormod", rooflineFloormod(-7, 3), 2},
		{"floormod negative divisor", rooflineFloormod(7, -3), -2},
		{"normdim", rooflineNormdim(-1, 3), 2},
		{"normdim positive", rooflineNormdim(1, 3), 1},
		{"cond", rooflineCond(true, 1, 2), 1},
		{"cond false", rooflineCond(false, 1, 2), 2},
		{"log2", rooflineLog2(1000), 9},
		{"log2 power", rooflineLog2(1024), 10},
		{"clog2", rooflineClog2(1000), 10},
		{"clog2 power", rooflineClog2(1024), 10},
		{"clog2 one", rooflineClog2(1), 0},
		{"valueor", rooflineValueor(ptr(-1), 5), -1},
		{"valueor zero", rooflineValueor(ptr(0), 5), 0}, // 0 is a value, not None (Python's `p or d` would give 5)
		{"valueor nil", rooflineValueor(nil, 5), 5},
		{"mustvalue", rooflineMustvalue(ptr(math.MinInt64)), math.MinInt64},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"product overflow", "8589934588 * 8589934588 overflows int64", func() { rooflineProduct([]int{math.MaxInt32 * 4, math.MaxInt32 * 4}) }},
		{"product overflows at a step", "4611686018427387904 * 2 overflows", func() { rooflineProduct([]int{1 << 62, 2, 0}) }},
		{"sum overflow", "9223372036854775807 + 1 overflows int64", func() { rooflineSum([]int{math.MaxInt64, 1}) }},
		{"abs", "-(-9223372036854775808) overflows int64", func() { rooflineAbs(math.MinInt64) }},
		{"floordiv overflow", "-9223372036854775808 // -1 overflows int64", func() { rooflineFloordiv(math.MinInt64, -1) }},
		{"cdiv overflow", "overflows int64", func() { rooflineCdiv(math.MinInt64, -1) }},
		{"floordiv by zero", "division by zero", func() { rooflineFloordiv(1, 0) }},
		{"cdiv by zero", "division by zero", func() { rooflineCdiv(1, 0) }},
		{"floormod by zero", "division by zero", func() { rooflineFloormod(1, 0) }},
		{"normdim", "dim 3 out of range for a tensor of rank 3", func() { rooflineNormdim(3, 3) }},
		{"normdim negative", "dim -4 out of range for a tensor of rank 3", func() { rooflineNormdim(-4, 3) }},
		{"log2", "log2 of 0", func() { rooflineLog2(0) }},
		{"clog2", "clog2 of -1", func() { rooflineClog2(-1) }},
		{"mustvalue nil", "mustvalue of a nil (None) param", func() { rooflineMustvalue[int](nil) }},
		{"mustvalue nil float", "mustvalue of a nil (None) param", func() { rooflineMustvalue[float64](nil) }},
	} {
		if got := refusal(t, c.f); !strings.Contains(got, c.want) || got == "" {
			t.Errorf("%s: refusal %q, want one containing %q", c.name, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestNullableHelpers: valueor and mustvalue read every nullable param type, and read the
// value at the call, not a copy taken earlier.
func TestNullableHelpers(t *testing.T) {
	if got := rooflineValueor(ptr(2.5), 1); got != 2.5 {
		t.Errorf("valueor(*float64 2.5, 1) = %v", got)
	}
	if got := rooflineValueor[float64](nil, 1); got != 1 {
		t.Errorf("valueor(nil *float64, 1) = %v", got)
	}
	if !rooflineMustvalue(ptr(true)) || rooflineValueor(nil, true) != true || rooflineValueor(ptr(false), true) {
		t.Error("valueor/mustvalue on *bool")
	}
	p := ptr(3)
	*p = 7
	if rooflineMustvalue(p) != 7 || rooflineValueor(p, 0) != 7 {
		t.Error("the helpers read a stale value")
	}
}

func TestRuntime(t *testing.T) {
	var err error
	func() {
		at := "roofline"
		defer rooflineRecover("Op", &at, &err)
		at = `roofline.flops "M * N"`
		rooflineMul(math.MaxInt64, 2)
	}()
	if want := `Op: roofline.flops "M * N": 9223372036854775807 * 2 overflows int64`; err == nil || err.Error() != want {
		t.Errorf("rooflineRecover made %v, want %s", err, want)
	}
	if e := rooflineUnbound("Op", "x"); e.Error() != "Op: EvalRoofline before Forward: input x is not bound" {
		t.Errorf("rooflineUnbound: %v", e)
	}
	if tv := (rooflineTensor{shape: []int{2, 3}, ndim: 2}); rooflineAbs(tv.ndim) != len(tv.shape) {
		t.Error("rooflineTensor")
	}
	var _ rooflineOp = nil
	if f, b, err := rooflineResult("Op", 6, 8); f != 6 || b != 8 || err != nil {
		t.Errorf("rooflineResult = %d, %d, %v", f, b, err)
	}
	if _, _, err := rooflineResult("Op", -6, 8); err == nil || err.Error() != "Op: roofline flops is negative (-6)" {
		t.Errorf("a negative flops gave %v", err)
	}
	if _, _, err := rooflineResult("Op", 6, -1); err == nil || err.Error() != "Op: roofline bytes is negative (-1)" {
		t.Errorf("a negative bytes gave %v", err)
	}
}

// TestCheckedOps compares the checked operations with math/big on the edges of int64.
func TestCheckedOps(t *testing.T) {
	edges := []int{0, 1, -1, 2, -2, 3, math.MaxInt32, math.MinInt32, 1 << 31, 1 << 32, -(1 << 32), 3037000499, 3037000500,
		-3037000500, 1 << 62, -(1 << 62), math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, 153092023, 60247241209}
	for _, a := range edges {
		for _, b := range edges {
			for _, op := range []struct {
				name string
				f    func(a, b int) int
				ref  func(x, y *big.Int) *big.Int
			}{
				{"+", rooflineAdd, new(big.Int).Add},
				{"-", rooflineSub, new(big.Int).Sub},
				{"*", rooflineMul, new(big.Int).Mul},
			} {
				// The checker's operation must agree with the panicking one, recording
				// what it raises.
				ck := &rooflineChecker{}
				cf := map[string]func(a, b int) int{"+": ck.add, "-": ck.sub, "*": ck.mul}[op.name]
				cv := cf(a, b)
				want := op.ref(big.NewInt(int64(a)), big.NewInt(int64(b)))
				got, msg := 0, refusal(t, func() { _ = op.f(a, b) })
				if msg == "" {
					got = op.f(a, b)
				}
				switch {
				case want.IsInt64() && (msg != "" || int64(got) != want.Int64()):
					t.Errorf("%d %s %d = %d (%s), want %v", a, op.name, b, got, msg, want)
				case !want.IsInt64() && msg != fmt.Sprintf("%d %s %d overflows int64", a, op.name, b):
					t.Errorf("%d %s %d: refusal %q, want an overflow (true value %v)", a, op.name, b, msg, want)
				}
				if ck.bad != (msg != "") || ck.bad && ck.first.Error() != msg || !ck.bad && cv != got {
					t.Errorf("%d %s %d: checker gives %d, bad %v (%v); the panicking operation %d, %q", a, op.name, b, cv, ck.bad, ck.first, got, msg)
				}
			}
		}
		ck := &rooflineChecker{}
		if n := ck.neg(a); ck.bad != (a == math.MinInt64) || !ck.bad && n != -a {
			t.Errorf("checker -(%d) = %d, bad %v", a, n, ck.bad)
		}
		ck.mul(math.MaxInt64, 2)
		ck.add(math.MaxInt64, 1) // the first failure is the one reported
		if ck.err("Op", "at").Error() != "Op: at: 9223372036854775807 * 2 overflows int64" && a != math.MinInt64 {
			t.Errorf("checker error %v", ck.err("Op", "at"))
		}
		want := new(big.Int).Neg(big.NewInt(int64(a)))
		if msg := refusal(t, func() { rooflineNeg(a) }); want.IsInt64() != (msg == "") || msg == "" && rooflineNeg(a) != int(want.Int64()) {
			t.Errorf("-(%d): %q, want %v", a, msg, want)
		}
	}
}
