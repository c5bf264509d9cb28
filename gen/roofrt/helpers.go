package roofrt

import (
	"fmt"
	"math"
	"math/bits"
)

// product returns the product of s, 1 for an empty s. Overflow panics with a roofline error.
func product(s []int) int {
	p := 1
	for _, v := range s {
		hi, lo := bits.Mul64(uint64(abs(p)), uint64(abs(v)))
		if hi != 0 || lo > math.MaxInt64 {
			panic(rooflineOverflow("product"))
		}
		p *= v
	}
	return p
}

// sum returns the sum of s. Overflow panics with a roofline error.
func sum(s []int) int {
	t := 0
	for _, v := range s {
		r := t + v
		if (r > t) != (v > 0) {
			panic(rooflineOverflow("sum"))
		}
		t = r
	}
	return t
}

// abs returns the absolute value of a.
func abs[T rooflineNumber](a T) T {
	if a < 0 {
		return -a
	}
	return a
}

// floordiv returns a / b rounded toward minus infinity, as Python's a // b.
func floordiv[T rooflineNumber](a, b T) T {
	if b == 0 {
		panic(rooflineError("floordiv: division by zero"))
	}
	if x, ok := any(a).(float64); ok {
		return T(math.Floor(x / float64(b)))
	}
	q := a / b // int: truncated toward zero, so step down when the signs differ
	if q*b != a && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// cdiv returns a / b rounded toward plus infinity, as Python's ceil(a / b) (or -(-a // b)).
func cdiv[T rooflineNumber](a, b T) T {
	return -floordiv(-a, b)
}

// floormod returns a - b*floordiv(a, b), as Python's a % b.
func floormod[T rooflineNumber](a, b T) T {
	return a - b*floordiv(a, b)
}

// normdim validates dim for a tensor of rank ndim and returns it normalized to [0, ndim).
func normdim(dim, ndim int) int {
	if dim < -ndim || dim >= ndim {
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
func log2[T rooflineNumber](a T) T {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("log2 of %v", a)))
	}
	return T(bits.Len64(uint64(a)) - 1)
}

// clog2 returns ceil(log2(a)) for a >= 1.
func clog2[T rooflineNumber](a T) T {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("clog2 of %v", a)))
	}
	return T(bits.Len64(uint64(a) - 1))
}
