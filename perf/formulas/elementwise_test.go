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

type clampOp struct {
	s   ClampShape
	err error
}

func (o clampOp) ClampShape() (ClampShape, error) { return o.s, o.err }

func TestClamp(t *testing.T) {
	cases := []struct {
		x, lo, hi    []int
		flops, bytes int64
	}{
		{[]int{7, 33}, nil, nil, 231, 2 * 231 * 2},                               // scalar bounds: no traffic
		{[]int{7, 33}, []int{7, 33}, []int{33}, 231, (231 + 231 + 33 + 231) * 2}, // each read at its own size
		{[]int{5, 1, 7}, []int{6, 1}, nil, 210, (35 + 6 + 210) * 2},              // the bound widens the output
		{[]int{4}, nil, []int{3, 1}, 12, (4 + 3 + 12) * 2},                       // an upper bound alone
		{[]int{1}, []int{2, 1}, []int{1, 3}, 6, (1 + 2 + 3 + 6) * 2},             // three-way broadcast
		{[]int{2, 3}, []int{3}, []int{4, 1, 1}, 24, (6 + 3 + 4 + 24) * 2},        // the rank grows
		{[]int{0, 3}, nil, nil, 0, 0},                                            // empty
	}
	for _, c := range cases {
		f, b, err := Clamp(clampOp{s: ClampShape{X: c.x, Lo: c.lo, Hi: c.hi, ElemBytes: 2}})
		if err != nil || f != c.flops || b != c.bytes {
			t.Errorf("Clamp(%v, %v, %v) = %d, %d, %v; want %d, %d", c.x, c.lo, c.hi, f, b, err, c.flops, c.bytes)
		}
	}
}

func TestClampErrors(t *testing.T) {
	unbound := errors.New("ClampFwd: input x not bound")
	if _, _, err := Clamp(clampOp{err: unbound}); err != unbound {
		t.Errorf("unbound: err = %v", err)
	}
	for _, c := range []struct {
		s    ClampShape
		want string
	}{
		{ClampShape{X: []int{2, 3}, Hi: []int{2}}, "do not broadcast: dim -1 is 3 and 2"},
		{ClampShape{X: []int{-2, 3}}, "negative dim"},
		{ClampShape{X: []int{1 << 40}, Lo: []int{1 << 40, 1}, ElemBytes: 2}, "overflows"},
	} {
		_, _, err := Clamp(clampOp{s: c.s})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one containing %q", c.s, err, c.want)
		}
	}
}
