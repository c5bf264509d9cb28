package formulas

import (
	"strings"
	"testing"
)

type adaptiveOp AdaptivePoolShape

func (o adaptiveOp) AdaptivePoolShape() AdaptivePoolShape { return AdaptivePoolShape(o) }

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// TestBinSum: the bins of in over out cover in + out - gcd(in, out) positions in all (each
// of the out - gcd boundaries that falls inside an input position is covered twice), and
// uniform bins (out divides in) cover in exactly.
func TestBinSum(t *testing.T) {
	for in := 1; in <= 40; in++ {
		for out := 1; out <= 40; out++ {
			var c checked
			if got, want := c.binSum(in, out), int64(in+out-gcd(in, out)); got != want {
				t.Errorf("binSum(%d, %d) = %d, want %d", in, out, got, want)
			}
		}
	}
}

func TestAdaptivePool(t *testing.T) {
	// 5 -> 3: bins [0,2) [1,4) [3,5), sizes 2 3 2 = 7; 7 -> 2: [0,4) [3,7) = 8.
	s := AdaptivePoolShape{N: 2, C: 3, H: 5, W: 7, HOut: 3, WOut: 2, ElemBytes: 2}
	f, b, err := AdaptiveAvgPool2d(adaptiveOp(s))
	if err != nil || f != 6*7*8 || b != (6*35+6*6)*2 {
		t.Errorf("avg = %d, %d, %v; want %d, %d", f, b, err, 6*7*8, (6*35+6*6)*2)
	}
	f, _, err = AdaptiveMaxPool2d(adaptiveOp(s))
	if err != nil || f != 6*(7*8-6) {
		t.Errorf("max flops = %d, %v; want %d", f, err, 6*(7*8-6))
	}
	// Global pooling (1 x 1): every element once.
	g := AdaptivePoolShape{N: 32, C: 2048, H: 7, W: 7, HOut: 1, WOut: 1, ElemBytes: 2}
	if f, _, _ := AdaptiveAvgPool2d(adaptiveOp(g)); f != 32*2048*49 {
		t.Errorf("global avg flops = %d", f)
	}
	for _, tc := range []struct {
		s    AdaptivePoolShape
		want string
	}{
		{AdaptivePoolShape{N: 1, C: 1, H: 4, W: 4, HOut: 0, WOut: 2}, "H_out is 0"},
		{AdaptivePoolShape{N: 1 << 40, C: 1 << 40, H: 4, W: 4, HOut: 2, WOut: 2, ElemBytes: 2}, "overflows"},
	} {
		if _, _, err := AdaptiveAvgPool2d(adaptiveOp(tc.s)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.s, err, tc.want)
		}
	}
}
