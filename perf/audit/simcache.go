package audit

import (
	"fmt"
	"strconv"
	"strings"
)

// SimCache is the geometry of one simulated cache, as valgrind's --LL, --D1 and --I1 take it.
type SimCache struct{ Size, Assoc, Line int64 }

// String is the geometry as valgrind's flags take it: size,assoc,line.
func (c SimCache) String() string { return fmt.Sprintf("%d,%d,%d", c.Size, c.Assoc, c.Line) }

// ParseSimCache parses size,assoc,line; the size must be a multiple of assoc × line.
func ParseSimCache(s string) (SimCache, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return SimCache{}, fmt.Errorf("%q is not size,assoc,line", s)
	}
	var v [3]int64
	for i, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || n <= 0 {
			return SimCache{}, fmt.Errorf("%q is not size,assoc,line of positive integers", s)
		}
		v[i] = n
	}
	c := SimCache{v[0], v[1], v[2]}
	if c.Size%(c.Assoc*c.Line) != 0 {
		return SimCache{}, fmt.Errorf("%q: size is not a multiple of assoc × line", s)
	}
	return c, nil
}
