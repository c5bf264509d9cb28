package formulas

import (
	"errors"
	"strings"
	"testing"
)

type binOp struct {
	s   BinaryShape
	err error
}

func (o binOp) BinaryShape() (BinaryShape, error) { return o.s, o.err }

func TestBinary(t *testing.T) {
	cases := []struct {
		a, b         []int
		flops, bytes int64
	}{
		{[]int{2, 3}, []int{2, 3}, 6, (6 + 6 + 6) * 2},
		{[]int{8192, 4096}, []int{4096}, 8192 * 4096, (8192*4096 + 4096 + 8192*4096) * 2},
		{[]int{5, 1, 7}, []int{6, 1}, 5 * 6 * 7, (35 + 6 + 210) * 2},
		{[]int{1}, []int{3, 1, 2}, 6, (1 + 6 + 6) * 2},
	}
	for _, c := range cases {
		f, b, err := Binary(binOp{s: BinaryShape{A: c.a, B: c.b, ElemBytes: 2}})
		if err != nil || f != c.flops || b != c.bytes {
			t.Errorf("Binary(%v, %v) = %d, %d, %v; want %d, %d", c.a, c.b, f, b, err, c.flops, c.bytes)
		}
	}
}

func TestBinaryErrors(t *testing.T) {
	unbound := errors.New("AddFwd: inputs a and b not bound")
	if _, _, err := Binary(binOp{err: unbound}); err != unbound {
		t.Errorf("unbound: err = %v", err)
	}
	_, _, err := Binary(binOp{s: BinaryShape{A: []int{2, 3}, B: []int{2}, ElemBytes: 2}})
	if err == nil || !strings.Contains(err.Error(), "do not broadcast: dim -1 is 3 and 2") {
		t.Errorf("mismatch: err = %v", err)
	}
	_, _, err = Binary(binOp{s: BinaryShape{A: []int{1 << 40, 1 << 40}, B: []int{1}, ElemBytes: 2}})
	if err != errOverflow {
		t.Errorf("overflow: err = %v", err)
	}
}
