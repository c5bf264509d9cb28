package ops

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFusedAddRMSNorm checks both outputs against the reference with streaming forced and
// off (the streamed path writes the same values), and the constructor's and Bind's errors.
func TestFusedAddRMSNorm(t *testing.T) {
	prev := streamMinBytes
	defer func() { streamMinBytes = prev }()
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 7, 16, 37, 4099} {
		const rows = 9
		op, err := NewFusedAddRMSNormFwd(rows, n, 1e-6, Float32)
		if err != nil {
			t.Fatal(err)
		}
		x, res, w := mustTensor(t, Float32, rows, n), mustTensor(t, Float32, rows, n), mustTensor(t, Float32, n)
		x.Data, res.Data, w.Data = simdData(r, rows*n, 3), simdData(r, rows*n, 3), simdData(r, n, 2)
		for i, v := range x.Data { // finite inputs: the tolerance check below compares values
			if v != v || v-v != 0 {
				x.Data[i] = 0.5
			}
		}
		for i, v := range res.Data {
			if v != v || v-v != 0 {
				res.Data[i] = -0.25
			}
		}
		for i, v := range w.Data {
			if v != v || v-v != 0 {
				w.Data[i] = 1
			}
		}
		wantY, wantR := mustTensor(t, Float32, rows, n), mustTensor(t, Float32, rows, n)
		op.reference(wantY, wantR, x, res, w)
		for _, min := range []int{0, 1 << 62} {
			streamMinBytes = min
			y, ro := mustTensor(t, Float32, rows, n), mustTensor(t, Float32, rows, n)
			if err := op.Forward(y, ro, x, res, w); err != nil {
				t.Fatal(err)
			}
			if err := Compare(ro, wantR, Tol{}); err != nil {
				t.Errorf("n=%d streamed=%v: residual_out: %v", n, min == 0, err)
			}
			if err := Compare(y, wantY, normTol); err != nil {
				t.Errorf("n=%d streamed=%v: y: %v", n, min == 0, err)
			}
		}
	}
	if _, err := NewFusedAddRMSNormFwd(0, 4, 1e-5, Float32); err == nil {
		t.Error("T = 0 accepted")
	}
	if _, err := NewFusedAddRMSNormFwd(2, 4, -1, Float32); err == nil || !strings.Contains(err.Error(), "eps -1") {
		t.Errorf("eps -1: %v", err)
	}
	op, _ := NewFusedAddRMSNormFwd(2, 4, 1e-5, Float32)
	x, w := mustTensor(t, Float32, 2, 4), mustTensor(t, Float32, 3)
	if _, err := op.Bind(x, x, w); err == nil || !strings.Contains(err.Error(), "weight") {
		t.Errorf("a weight of 3 for N = 4: %v", err)
	}
}
