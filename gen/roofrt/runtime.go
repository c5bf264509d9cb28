package roofrt

import (
	"fmt"
	"math"
	"math/bits"
)

// Formulas compute in int, which must be 64 bits wide. A compile error here means a 32-bit
// target, where roofline numbers would overflow: build for a 64-bit one.
const _ int = math.MaxInt64

// rooflineOp is the interface every generated op satisfies.
type rooflineOp interface {
	EvalRoofline() (flops, bytes int64, err error)
	ComputeRoof() string
}

// rooflineError is a failure inside a formula (a helper's refusal), raised as a panic and turned into EvalRoofline's error by rooflineRecover.
type rooflineError string

func (e rooflineError) Error() string { return string(e) }

// rooflineOverflow is the panic of an operation whose true result does not fit int64. A
// struct, not a formatted string, so that raising it costs the checked operations little
// enough to inline.
type rooflineOverflow struct {
	a  int
	op string
	b  int
}

func (e rooflineOverflow) Error() string {
	if e.op == "neg" {
		return fmt.Sprintf("-(%d) overflows int64", e.b)
	}
	return fmt.Sprintf("%d %s %d overflows int64", e.a, e.op, e.b)
}

// Every +, - and * on int of a formula, and unary -, is one of these: the result is exact,
// or the step panics with a rooflineOverflow. Nothing wraps around.

// rooflineAdd returns a + b.
func rooflineAdd(a, b int) int {
	c := a + b
	if (c > a) != (b > 0) {
		panic(rooflineOverflow{a, "+", b})
	}
	return c
}

// rooflineSub returns a - b.
func rooflineSub(a, b int) int {
	c := a - b
	if (c < a) != (b > 0) {
		panic(rooflineOverflow{a, "-", b})
	}
	return c
}

// rooflineMul returns a * b: the 128-bit product's high word, corrected for the signs,
// must be the sign extension of its low word.
func rooflineMul(a, b int) int {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	hi -= uint64(b)&uint64(a>>63) + uint64(a)&uint64(b>>63)
	if hi != uint64(int64(lo)>>63) {
		panic(rooflineOverflow{a, "*", b})
	}
	return int(lo)
}

// rooflineNeg returns -a.
func rooflineNeg(a int) int {
	if a == math.MinInt {
		panic(rooflineOverflow{0, "neg", a})
	}
	return -a
}

// rooflineChecker is the checked arithmetic of an op whose formulas can fail only by
// overflow (no helper that refuses, no index): the same checks as rooflineAdd and friends,
// but a failure is recorded (the first one) instead of raised, so EvalRoofline needs no
// deferred recover. The generated code tests bad after each formula.
type rooflineChecker struct {
	first rooflineOverflow
	bad   bool
}

func (c *rooflineChecker) fail(a int, op string, b int) {
	if !c.bad {
		c.first, c.bad = rooflineOverflow{a, op, b}, true
	}
}

func (c *rooflineChecker) add(a, b int) int {
	s := a + b
	if (s > a) != (b > 0) {
		c.fail(a, "+", b)
	}
	return s
}

func (c *rooflineChecker) sub(a, b int) int {
	s := a - b
	if (s < a) != (b > 0) {
		c.fail(a, "-", b)
	}
	return s
}

func (c *rooflineChecker) mul(a, b int) int {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	hi -= uint64(b)&uint64(a>>63) + uint64(a)&uint64(b>>63)
	if hi != uint64(int64(lo)>>63) {
		c.fail(a, "*", b)
	}
	return int(lo)
}

func (c *rooflineChecker) neg(a int) int {
	if a == math.MinInt {
		c.fail(0, "neg", a)
	}
	return -a
}

// err is the error of the formula at that failed: the op, the formula, the first step that
// did not fit.
//
//go:noinline
func (c *rooflineChecker) err(op, at string) error {
	return fmt.Errorf("%s: %s: %v", op, at, c.first)
}

// rooflineRecover turns a panic in a formula (an overflow, a helper's refusal, an index out
// of range) into an error naming the op and the formula being evaluated (*at): EvalRoofline
// never panics.
func rooflineRecover(op string, at *string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: %s: %v", op, *at, r)
	}
}

// rooflineUnbound is the error of EvalRoofline on an op whose input shape is not bound yet.
func rooflineUnbound(op, input string) error {
	return fmt.Errorf("%s: EvalRoofline before Forward: input %s is not bound", op, input)
}

// rooflineResult returns flops and bytes as EvalRoofline's result: a negative count is an
// error of its own (the formula is wrong for these values, nothing overflowed).
func rooflineResult(op string, flops, bytes int) (int64, int64, error) {
	if flops < 0 || bytes < 0 {
		return 0, 0, rooflineNegative(op, flops, bytes)
	}
	return int64(flops), int64(bytes), nil
}

//go:noinline
func rooflineNegative(op string, flops, bytes int) error {
	if flops < 0 {
		return fmt.Errorf("%s: roofline flops is negative (%d)", op, flops)
	}
	return fmt.Errorf("%s: roofline bytes is negative (%d)", op, bytes)
}
