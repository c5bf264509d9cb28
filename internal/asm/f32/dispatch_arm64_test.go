//go:build !purego

package f32

import (
	"math/rand/v2"
	"testing"
)

// TestNEONRangeKernelsDoEveryVector calls the NEON kernels that stop at a vector outside
// their range directly, on rows inside every range: each must do every full vector itself.
// Their entry points (blocks) count a vector the Go function did as done, so a kernel that
// stopped at once would pass ops' TestSIMDVectorCounts and, its elements computed by the Go
// function, its TestSIMDMatchesGo too.
func TestNEONRangeKernelsDoEveryVector(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	c := &neonExpConsts
	for _, n := range lengths {
		x := make([]float32, n)
		for i := range x {
			x[i] = r.Float32()*10 - 5 // inside every kernel's range, and d = x - 5 in exp's
		}
		y, s, zero := make([]float32, n), make([]float64, n), make([]float32, n)
		got := map[string]int{
			"elu":             EluNEON(y, x, -87, neonNoHi, 1.5, 0, c),
			"exp_sum":         func() int { k, _ := ExpSumNEON(y, x, 5, -87, 88, 1, c); return k }(),
			"exp_sum/nostore": func() int { k, _ := ExpSumNEON(y, x, 5, -87, 88, 0, c); return k }(),
			"exp_sum_cols":    ExpSumColsNEON(s, zero, x, -87, 88, c),
		}
		xe := make([]float32, n) // exact gelu's range is |x| < sqrt(2), where |z| < 1
		for i := range xe {
			xe[i] = x[i] * 0.28
		}
		for k, u := range neonUnaries {
			if u.kern != nil {
				in := x
				if k == UnaryGeluErf {
					in = xe
				}
				got[unaryNames[k]] = u.kern(y, in, u.lo, u.hi, u.p, u.q, c)
			}
		}
		for name, k := range got {
			if k != n&^3 {
				t.Errorf("n=%d: %sNEON did %d elements of a row inside its range, want %d", n, name, k, n&^3)
			}
		}
	}
}

// lengths are the row lengths of the tests: every length up to 40 (each remainder of each
// width), then lengths around and well past the widths, as ops' simdLengths.
var lengths = func() []int {
	var ns []int
	for n := 0; n <= 40; n++ {
		ns = append(ns, n)
	}
	return append(ns, 63, 64, 65, 100, 257, 1000, 4099)
}()
