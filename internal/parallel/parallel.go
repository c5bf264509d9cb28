// Package parallel runs the independent iterations of a batch job (the validator's files and
// entries, the generator's ops) on every CPU, on goroutines started for the call: unlike
// internal/par's persistent workers, nothing spins or stays behind, which suits work that
// runs once per command.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n), on as many goroutines as there are CPUs, each
// taking the next i when it is done with one, and returns when all have returned. fn writes
// its result to its own index, so the results are in index order whatever the schedule.
func For(n int, fn func(i int)) {
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
