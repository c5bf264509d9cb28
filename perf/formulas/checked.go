package formulas

import (
	"errors"
	"math"
	"math/bits"
)

// errOverflow is returned when a count does not fit in int64.
var errOverflow = errors.New("roofline count overflows int64")

// checked is int64 arithmetic on non-negative operands that remembers the first overflow,
// so a formula reads as plain arithmetic and still never returns a wrapped number.
type checked struct{ overflow bool }

// mul returns the product of xs; all must be non-negative.
func (c *checked) mul(xs ...int64) int64 {
	p := int64(1)
	for _, x := range xs {
		hi, lo := bits.Mul64(uint64(p), uint64(x))
		if hi != 0 || lo > math.MaxInt64 {
			c.overflow = true
			return 0
		}
		p = int64(lo)
	}
	return p
}

// add returns the sum of xs; all must be non-negative.
func (c *checked) add(xs ...int64) int64 {
	s := int64(0)
	for _, x := range xs {
		if s > math.MaxInt64-x {
			c.overflow = true
			return 0
		}
		s += x
	}
	return s
}

// result returns (flops, bytes), or errOverflow when any step overflowed.
func (c *checked) result(flops, bytes int64) (int64, int64, error) {
	if c.overflow {
		return 0, 0, errOverflow
	}
	return flops, bytes, nil
}
