package ops

import (
	"runtime"

	"github.com/ropgen/ropgen/internal/dispatch"
)

// grainElems is the default smallest piece of elementwise work worth a goroutine: below it
// the cost of starting and joining workers (about a microsecond each) exceeds the work.
// 64Ki float32 elements is 256 KiB, a few tens of microseconds of memory traffic.
const grainElems = 1 << 16

// parallelFor calls body over a partition of [0, n) into contiguous ranges, one per worker,
// and returns when all have finished. It runs serially, on the calling goroutine, when n is
// below 2*grain or only one CPU is available, so small inputs pay no scheduling cost. The
// partition depends only on n, grain and GOMAXPROCS; bodies must not depend on it for their
// results (each range must compute exactly what a serial loop would).
func parallelFor(n, grain int, body func(lo, hi int)) {
	if grain < 1 {
		grain = 1
	}
	workers := min(runtime.GOMAXPROCS(0), n/grain)
	if workers < 2 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	// the caller does the first share; the others go to par's persistent workers
	dispatch.Each(workers, func(w int) { body(w*n/workers, (w+1)*n/workers) })
}
