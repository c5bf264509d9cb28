package gen

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEach calls fn(i) for every i in [0, n), on as many goroutines as there are CPUs, each
// taking the next i when it is done with one. fn writes its result to its own index, so the
// output is in input order whatever the schedule, and the generated file deterministic.
func forEach(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}
