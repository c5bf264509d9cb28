package roofrt

import "slices"

// rooflineCache holds an op's last roofline and the bound values it was computed from, so
// that EvalRoofline after an identical Forward costs a comparison, not the formulas again
// (an arbitrary-rank op learns its shapes in Forward, and a benchmark asks after every
// call). An op whose formulas read a bound shape declares it: roofline rooflineCache. The
// key is the bound shapes and []int params (nil, an absent input, differs from empty) and
// the int, bool and nullable int values the formulas read (a nullable int is two entries:
// rooflineFlag(p == nil), then rooflineNullable(p)); an optional input, which formulas only
// compare with nil, is one: rooflineFlag(x == nil).
type rooflineCache struct {
	shapes       [][]int
	ints         []int
	flops, bytes int64
	err          error
	valid        bool
}

// rooflineSameShape reports whether a cached shape is the bound one: equal dims, and nil
// (an absent input) only for nil.
func rooflineSameShape(cached, bound []int) bool {
	return (cached == nil) == (bound == nil) && slices.Equal(cached, bound)
}

// store keeps the result and a copy of its key, reusing the cache's storage: once the cache
// has held keys of a size, a miss allocates nothing. An absent input (nil) is kept as nil,
// an empty shape as a non-nil empty slice ([]int{} does not allocate).
func (c *rooflineCache) store(shapes [][]int, ints []int, flops, bytes int64, err error) {
	c.shapes = slices.Grow(c.shapes[:0], len(shapes))[:len(shapes)]
	for i, s := range shapes {
		switch {
		case s == nil:
			c.shapes[i] = nil
		case c.shapes[i] == nil:
			c.shapes[i] = append([]int{}, s...)
		default:
			c.shapes[i] = append(c.shapes[i][:0], s...)
		}
	}
	c.ints = append(c.ints[:0], ints...)
	c.flops, c.bytes, c.err, c.valid = flops, bytes, err, true
}

func rooflineFlag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rooflineNullable is a nullable int's value in a cache key, 0 for nil: the entry before it,
// rooflineFlag(p == nil), tells nil from 0.
func rooflineNullable(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
