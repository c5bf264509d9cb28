package roofrt

import (
	"fmt"
	"math"
	"math/bits"
)

// The helpers of the binding table (gen.Helpers), in its order, each under its formula name
// with the roofline prefix (product is rooflineProduct): every package-level name of the
// generated code starts with roofline, so none can collide with the op package's own. Each
// is exact: a result that fits int64 is returned exactly, anything else panics with a
// rooflineError or a rooflineOverflow.

// rooflineProduct is the formula language's product: it returns the product of s, 1 for an
// empty s, multiplying left to right.
func rooflineProduct(s []int) int {
	p := 1
	for _, v := range s {
		p = rooflineMul(p, v)
	}
	return p
}

// rooflineSum is the formula language's sum: it returns the sum of s, adding left to right.
func rooflineSum(s []int) int {
	t := 0
	for _, v := range s {
		t = rooflineAdd(t, v)
	}
	return t
}

// rooflineAbs is the formula language's abs: it returns the absolute value of a.
func rooflineAbs(a int) int {
	if a < 0 {
		return rooflineNeg(a)
	}
	return a
}

// rooflineFloordiv is the formula language's floordiv: it returns a / b rounded toward minus
// infinity, as Python's a // b.
func rooflineFloordiv(a, b int) int {
	if b == 0 {
		panic(rooflineError("floordiv: division by zero"))
	}
	if a == math.MinInt && b == -1 {
		panic(rooflineOverflow{a, "//", b})
	}
	q := a / b // truncated toward zero, so step down when the signs differ
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// rooflineCdiv is the formula language's cdiv: it returns a / b rounded toward plus infinity,
// as Python's ceil(a / b) (or -(-a // b)).
func rooflineCdiv(a, b int) int {
	if b == 0 {
		panic(rooflineError("cdiv: division by zero"))
	}
	if a == math.MinInt && b == -1 {
		panic(rooflineOverflow{a, "cdiv", b})
	}
	q := a / b // truncated toward zero, so step up when the signs agree
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

// rooflineFloormod is the formula language's floormod: it returns a - b*floordiv(a, b), as
// Python's a % b: the sign of b.
func rooflineFloormod(a, b int) int {
	if b == 0 {
		panic(rooflineError("floormod: division by zero"))
	}
	r := a % b // Go defines math.MinInt % -1 as 0
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// rooflineNormdim is the formula language's normdim: it validates dim for a tensor of rank ndim
// and returns it normalized to [0, ndim).
func rooflineNormdim(dim, ndim int) int {
	if ndim < 0 || dim < -ndim || dim >= ndim {
		panic(rooflineError(fmt.Sprintf("dim %d out of range for a tensor of rank %d", dim, ndim)))
	}
	if dim < 0 {
		return dim + ndim
	}
	return dim
}

// rooflineCond is the formula language's cond: it returns a when c holds, else b. Both
// arguments are evaluated (eagerly).
func rooflineCond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// rooflineLog2 is the formula language's log2: it returns floor(log2(a)) for a >= 1.
func rooflineLog2(a int) int {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("log2 of %d", a)))
	}
	return bits.Len64(uint64(a)) - 1
}

// rooflineClog2 is the formula language's clog2: it returns ceil(log2(a)) for a >= 1.
func rooflineClog2(a int) int {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("clog2 of %d", a)))
	}
	return bits.Len64(uint64(a) - 1)
}

// rooflineValueor is the formula language's valueor: it returns the value of the nullable
// param p, or d when p is nil, as Python's `p if p is not None else d`.
func rooflineValueor[T any](p *T, d T) T {
	if p == nil {
		return d
	}
	return *p
}

// rooflineMustvalue is the formula language's mustvalue: it returns the value of the
// nullable param p, which must not be nil. It is an error, not a zero, when p is nil: a
// formula that reads a param left null is wrong for that call.
func rooflineMustvalue[T any](p *T) T {
	if p == nil {
		panic(rooflineError("mustvalue of a nil (None) param: guard the row with a shape rule (p != nil), or read it with valueor(p, default)"))
	}
	return *p
}
