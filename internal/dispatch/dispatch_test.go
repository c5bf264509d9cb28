package dispatch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestEachConcurrent: Each from several goroutines at once, and from inside a body (nested),
// calls every index exactly once each time: one caller holds the workers, the others start
// goroutines.
func TestEachConcurrent(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var outer sync.WaitGroup
	for g := range 8 {
		outer.Go(func() {
			for rep := range 50 {
				k := 2 + (g+rep)%3
				seen := make([]int32, k)
				Each(k, func(w int) {
					atomic.AddInt32(&seen[w], 1)
					if rep%10 == 0 { // a nested call inside a share
						inner := make([]int32, 2)
						Each(2, func(w int) { atomic.AddInt32(&inner[w], 1) })
						if inner[0] != 1 || inner[1] != 1 {
							t.Errorf("nested: %v", inner)
						}
					}
				})
				for w, n := range seen {
					if n != 1 {
						t.Errorf("goroutine %d rep %d: share %d ran %d times", g, rep, w, n)
						return
					}
				}
			}
		})
	}
	outer.Wait()
}

// TestWorkers: back-to-back calls hand their second share to a persistent worker rather than
// to a new goroutine.
func TestWorkers(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: no workers")
	}
	before := pooled.Load()
	for range 100 {
		Each(2, func(int) {})
	}
	if got := pooled.Load() - before; got != 100 {
		t.Errorf("100 calls gave %d shares to the persistent workers, want 100", got)
	}
}
