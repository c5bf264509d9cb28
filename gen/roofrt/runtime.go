package roofrt

import (
	"fmt"
	"math"
)

// Formulas compute in int, which must be 64 bits wide. A compile error here means a 32-bit
// target, where roofline numbers would overflow: build for a 64-bit one.
const _ int = math.MaxInt64

// rooflineOp is the interface every generated op satisfies.
type rooflineOp interface {
	EvalRoofline() (flops, bytes int64, err error)
	ComputeRoof() string
}

// rooflinePair is one evaluation of an arithmetic layer: in int, or in float64 (the shadow).
type rooflinePair[T rooflineNumber] struct{ flops, bytes T }

// rooflineError is a failure inside a formula (a helper's refusal), raised as a panic and
// turned into EvalRoofline's error by rooflineRecover.
type rooflineError string

func (e rooflineError) Error() string { return string(e) }

func rooflineOverflow(helper string) rooflineError {
	return rooflineError(helper + ": result overflows int64")
}

// rooflineRecover turns a panic in a formula (a helper's refusal, an index out of range)
// into an error naming the op: EvalRoofline never panics.
func rooflineRecover(op string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: roofline: %v", op, r)
	}
}

// rooflineUnbound is the error of EvalRoofline on an op whose input shape is not bound yet.
func rooflineUnbound(op, input string) error {
	return fmt.Errorf("%s: EvalRoofline before Forward: input %s is not bound", op, input)
}

// rooflineCheck returns the int evaluation v after comparing it with its float64 shadow:
// int arithmetic wraps silently on overflow, float64 does not, so a wrapped result shows
// as a disagreement. Negative results are refused too.
func rooflineCheck(op string, v rooflinePair[int], shadow rooflinePair[float64]) (flops, bytes int64, err error) {
	if rooflineExact(v.flops, shadow.flops) && rooflineExact(v.bytes, shadow.bytes) {
		return int64(v.flops), int64(v.bytes), nil
	}
	for _, c := range []struct {
		what   string
		v      int
		shadow float64
	}{{"flops", v.flops, shadow.flops}, {"bytes", v.bytes, shadow.bytes}} {
		switch {
		case rooflineExact(c.v, c.shadow):
		case c.v < 0 && rooflineExact(-c.v, -c.shadow):
			return 0, 0, fmt.Errorf("%s: roofline %s is negative (%d)", op, c.what, c.v)
		default:
			return 0, 0, fmt.Errorf("%s: roofline %s overflows int64 (it is about %.4g)", op, c.what, c.shadow)
		}
	}
	panic("unreachable: one of the two failed rooflineExact")
}

// rooflineExact is the fast path of rooflineCheck, small enough to inline: v is not
// negative, and its shadow agrees with it inside the int64 range.
func rooflineExact(v int, shadow float64) bool {
	return v >= 0 && shadow < 0x1p63 && math.Abs(float64(v)-shadow) <= 1e-9*shadow+1
}
