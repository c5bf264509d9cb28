package parallel

import (
	"sync/atomic"
	"testing"
)

// Every index runs exactly once, whatever n is against the number of CPUs.
func TestForEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000} {
		counts := make([]atomic.Int32, n)
		For(n, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Errorf("n=%d: index %d ran %d times", n, i, c)
			}
		}
	}
}
