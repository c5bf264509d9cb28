package ops

import "testing"

// TestBindShapeRank0: binding a rank-0 input (shape nil or empty) records an empty shape,
// which is a bound shape, not an unbound (nil) one, so EvalRoofline prices the one element
// instead of failing with "input x is not bound".
func TestBindShapeRank0(t *testing.T) {
	for _, shape := range [][]int{nil, {}} {
		var f []int
		bindShape(&f, shape)
		if f == nil || len(f) != 0 {
			t.Errorf("bindShape(%#v) left %#v; want a bound empty shape", shape, f)
		}
	}
}
