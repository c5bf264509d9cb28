package ops

import (
	"strings"
	"testing"
)

// TestRopeRotates: with cos = 1 and sin = 0 rope is the identity, with cos = 0 and sin = 1
// it is rotate_half; a kernel that pairs the wrong elements fails one of the two.
func TestRopeRotates(t *testing.T) {
	op, err := NewRopeFwd(1, 1, 1, 4, Float32)
	if err != nil {
		t.Fatal(err)
	}
	x := &Tensor{Shape: []int{1, 1, 1, 4}, DType: Float32, Data: []float32{1, 2, 3, 4}}
	one := &Tensor{Shape: []int{1, 4}, DType: Float32, Data: []float32{1, 1, 1, 1}}
	zero := mustTensor(t, Float32, 1, 4)
	out := mustTensor(t, Float32, 1, 1, 1, 4)
	for _, c := range []struct {
		cos, sin *Tensor
		want     []float32
	}{
		{one, zero, []float32{1, 2, 3, 4}},
		{zero, one, []float32{-3, -4, 1, 2}},
	} {
		if err := op.Forward(out, x, c.cos, c.sin); err != nil {
			t.Fatal(err)
		}
		for i, w := range c.want {
			if out.Data[i] != w {
				t.Errorf("cos %v sin %v: out = %v, want %v", c.cos.Data, c.sin.Data, out.Data, c.want)
				break
			}
		}
	}
}

func TestRopeErrors(t *testing.T) {
	if _, err := NewRopeFwd(1, 2, 3, 5, Float32); err == nil || !strings.Contains(err.Error(), "D = 5 is odd") {
		t.Errorf("odd D: err = %v", err)
	}
	if _, err := NewRopeFwd(1, 0, 3, 4, Float32); err == nil || !strings.Contains(err.Error(), "S is 0") {
		t.Errorf("zero S: err = %v", err)
	}
	op, _ := NewRopeFwd(1, 2, 3, 4, Float32)
	_, err := op.Bind(mustTensor(t, Float32, 1, 2, 3, 4), mustTensor(t, Float32, 2, 2), mustTensor(t, Float32, 2, 4))
	if want := "RopeFwd: input cos is float32[2 2], the op was built for shape [2 4]"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
