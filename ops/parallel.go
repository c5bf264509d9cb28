package ops

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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
	var wg sync.WaitGroup
	pool := workerPool(workers - 1)
	for w := 1; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		t := &task{lo: lo, hi: hi, body: body, wg: &wg}
		if pool == nil {
			go t.run()
			continue
		}
		pool[w-1].give(t)
	}
	body(0, n/workers) // the caller does the first share instead of waiting idle
	wg.Wait()
	if pool != nil {
		poolMu.Unlock()
	}
}

// task is one worker's share of a parallelFor.
type task struct {
	lo, hi int
	body   func(lo, hi int)
	wg     *sync.WaitGroup
}

func (t *task) run() {
	t.body(t.lo, t.hi)
	t.wg.Done()
}

// The persistent workers of parallelFor. A goroutine started for each share waits in the
// starting P's run queue until another P takes it, and on the 2-core VM that took longer than
// the share itself: GEMM 256³'s two column halves took 333-353 µs one after the other and
// 369-409 µs "in parallel" (each half 184-226 µs), so the second half ran after the first,
// and one thread (116-122 GFLOP/s) beat two (86-87). A worker that spins on its slot for
// spinFor after each share takes the next one within nanoseconds while calls follow one
// another (a loop of kernel calls, a benchmark); after spinFor idle it blocks, so an idle
// process burns no CPU, and the first call after a pause pays the start-up as before.
const spinFor = 200 * time.Microsecond

var (
	poolMu sync.Mutex // held by the parallelFor using the workers
	// pooledShares counts the shares the workers ran (TestParallelForWorkers).
	pooledShares atomic.Int64
	poolOnce     sync.Once
	workers      []*worker
)

// workerPool returns k idle workers, locked for the caller (parallelFor unlocks), or nil
// when another parallelFor holds them (a concurrent or nested call starts goroutines, as
// before) or GOMAXPROCS grew beyond them.
func workerPool(k int) []*worker {
	poolOnce.Do(func() {
		for range runtime.NumCPU() - 1 {
			w := &worker{wake: make(chan struct{}, 1)}
			workers = append(workers, w)
			go w.loop()
		}
	})
	if k > len(workers) || !poolMu.TryLock() {
		return nil
	}
	return workers[:k]
}

// worker runs the shares given to it: it spins on slot after each one, then parks on wake.
type worker struct {
	slot atomic.Pointer[task]
	wake chan struct{} // one token: a share may be waiting in slot
}

// give hands t to the worker, which must be idle (parallelFor holds the pool).
func (w *worker) give(t *task) {
	w.slot.Store(t)
	select {
	case w.wake <- struct{}{}:
	default: // a token is already there
	}
}

func (w *worker) loop() {
	for {
		idle := time.Now()
		for spins := 0; ; spins++ {
			if t := w.slot.Swap(nil); t != nil {
				pooledShares.Add(1) // before run, whose wg.Done lets the caller go on
				t.run()
				idle, spins = time.Now(), 0
				continue
			}
			if spins%64 == 63 {
				if time.Since(idle) > spinFor {
					break
				}
				runtime.Gosched() // let any goroutine waiting for this P run
			}
		}
		<-w.wake // parks until give's token (a stale one only returns to the spin)
	}
}
