package ops

import (
	"slices"
	"strings"
	"testing"
)

// broadcastOp is what the binary ops have in common, for the tests that run them alike.
type broadcastOp interface {
	Bind(a, b *Tensor) ([]int, error)
	Forward(out, a, b *Tensor) error
}

// TestUnaryForwardChecks: Forward refuses tensors that do not match the op.
func TestUnaryForwardChecks(t *testing.T) {
	op, err := NewSiluFwd(Float16)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := NewTensor(Float16, 2, 3)
	cases := []struct {
		out, x *Tensor
		want   string
	}{
		{mustTensor(t, Float16, 2, 3), mustTensor(t, Float32, 2, 3), "the op was built for float16"},
		{mustTensor(t, Float16, 3, 2), x, "output is float16[3 2], want float16[2 3]"},
		{mustTensor(t, Float16, 2, 3), nil, "input x is nil"},
	}
	for _, c := range cases {
		if err := op.Forward(c.out, c.x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Forward(%v, %v): err = %v, want %q", c.out, c.x, err, c.want)
		}
	}
}

func mustTensor(t *testing.T, dt DType, shape ...int) *Tensor {
	t.Helper()
	x, err := NewTensor(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestBroadcastShapes(t *testing.T) {
	cases := []struct {
		a, b, want []int
		err        string
	}{
		{a: []int{2, 3}, b: []int{3}, want: []int{2, 3}},
		{a: []int{5, 1, 7}, b: []int{6, 1}, want: []int{5, 6, 7}},
		{a: []int{1}, b: []int{1, 1}, want: []int{1, 1}},
		{a: []int{2, 3}, b: []int{2}, err: "AddFwd: shapes [2 3] and [2] do not broadcast (dim -1: 3 vs 2)"},
	}
	for _, c := range cases {
		got, err := broadcastShapes("AddFwd", c.a, c.b)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("broadcastShapes(%v, %v): err = %v, want %q", c.a, c.b, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("broadcastShapes(%v, %v) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
	}
}

// TestBcastPlanMerges checks that the plan merges what it can: the fast paths depend on it.
func TestBcastPlanMerges(t *testing.T) {
	cases := []struct {
		a, b, out []int
		n, rows   int
	}{
		{[]int{4, 8, 16}, []int{4, 8, 16}, []int{4, 8, 16}, 512, 1},
		{[]int{4, 8, 16}, []int{16}, []int{4, 8, 16}, 16, 32},
		{[]int{4, 8, 16}, []int{8, 16}, []int{4, 8, 16}, 128, 4},
		{[]int{4, 8, 1}, []int{4, 8, 16}, []int{4, 8, 16}, 16, 32},
	}
	for _, c := range cases {
		p := newBcastPlan(c.out, c.a, c.b)
		rows := 1
		for _, d := range p.outer {
			rows *= d
		}
		if p.n != c.n || rows != c.rows {
			t.Errorf("%v ∘ %v: rows of %d x %d, want %d x %d", c.a, c.b, rows, p.n, c.rows, c.n)
		}
	}
}
