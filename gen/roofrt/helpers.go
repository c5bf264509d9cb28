package roofrt

import (
	"fmt"
	"math"
	"math/bits"
)

// The helpers of the binding table (gen.Helpers), in its order. Each is exact: a result that
// fits int64 is returned exactly, anything else panics with a rooflineError or a rooflineOverflow.

// product returns the product of s, 1 for an empty s, multiplying left to right.
func product(s []int) int {
	p := 1
	for _, v := range s {
		p = rooflineMul(p, v)
	}
	return p
}

// sum returns the sum of s, adding left to right.
func sum(s []int) int {
	t := 0
	for _, v := range s {
		t = rooflineAdd(t, v)
	}
	return t
}

// abs returns the absolute value of a.
func abs(a int) int {
	if a < 0 {
		return rooflineNeg(a)
	}
	return a
}

// floordiv returns a / b rounded toward minus infinity, as Python's a // b.
func floordiv(a, b int) int {
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

// cdiv returns a / b rounded toward plus infinity, as Python's ceil(a / b) (or -(-a // b)).
func cdiv(a, b int) int {
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

// floormod returns a - b*floordiv(a, b), as Python's a % b: the sign of b.
func floormod(a, b int) int {
	if b == 0 {
		panic(rooflineError("floormod: division by zero"))
	}
	r := a % b // Go defines math.MinInt % -1 as 0
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// normdim validates dim for a tensor of rank ndim and returns it normalized to [0, ndim).
func normdim(dim, ndim int) int {
	if ndim < 0 || dim < -ndim || dim >= ndim {
		panic(rooflineError(fmt.Sprintf("dim %d out of range for a tensor of rank %d", dim, ndim)))
	}
	if dim < 0 {
		return dim + ndim
	}
	return dim
}

// cond returns a when c holds, else b. Both arguments are evaluated (eagerly).
func cond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// log2 returns floor(log2(a)) for a >= 1.
func log2(a int) int {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("log2 of %d", a)))
	}
	return bits.Len64(uint64(a)) - 1
}

// clog2 returns ceil(log2(a)) for a >= 1.
func clog2(a int) int {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("clog2 of %d", a)))
	}
	return bits.Len64(uint64(a) - 1)
}
