//go:build amd64 && !purego

package f32

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSIMDRangeKernelsDoEveryVector calls the kernels that may stop at a vector outside
// their fast range (whose entry points, through blocks, let the Go function do such a
// vector) raw, on rows inside every such range, in cache and streamed: each must do every
// full vector itself, so that a kernel that stopped at once could not pass its value tests
// on the Go fallback's results alone.
func TestSIMDRangeKernelsDoEveryVector(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{16, 48, 1000, 4096} {
			full := n &^ 15
			x, y := make([]float32, n), aligned64(n)
			f64 := make([]float64, n)
			for i := range x {
				x[i] = float32(r.Float64()*6 - 3)
			}
			sh := make([]float32, n)
			for i := range sh {
				sh[i] = 3 // at least every x
			}
			got := map[string]int{}
			for k := range NUnary {
				kern, _ := pick(unaryKernels[k][0], unaryKernels[k][1])
				for nt := range 2 {
					got[fmt.Sprintf("%s nt=%d", unaryNames[k], nt)] = kern(y[:full], x[:full], nt)
				}
			}
			elu, _ := pick(EluAVX2, EluAVX512)
			clamp, _ := pick(ClampAVX2, ClampAVX512)
			maxCols, _ := pick(MaxColsAVX2, MaxColsAVX512)
			maxInto, _ := pick(MaxIntoAVX2, MaxIntoAVX512)
			expSumCols, _ := pick(ExpSumColsAVX2, ExpSumColsAVX512)
			for nt := range 2 {
				got[fmt.Sprintf("elu nt=%d", nt)] = elu(y[:full], x[:full], nt, 1.5)
				got[fmt.Sprintf("clamp nt=%d", nt)] = clamp(y[:full], x[:full], nt, -1, 1)
			}
			got["max_cols"] = maxCols(f64[:full], x[:full])
			m := append([]float32(nil), sh...)
			got["max_into"] = maxInto(m[:full], x[:full])
			got["exp_sum_cols"] = expSumCols(f64[:full], sh[:full], x[:full])
			for name, k := range got {
				if k != full {
					t.Errorf("n=%d: %s did %d of %d elements in range", n, name, k, full)
				}
			}
		}
	})
}
