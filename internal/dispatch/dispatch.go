// Package dispatch runs the shares of a parallel loop on persistent workers: the dispatch of the
// ops kernels (ops.parallelFor) and of the instrument's cold mixes, which must dispatch as
// the kernels do so that the envelope they measure bounds the kernels.
//
// A goroutine started for each share waits in the starting P's run queue until another P
// takes it, and on a loaded machine with few cores that wait can outlast the share itself:
// the second half of a split loop then runs after the first, and two "parallel" shares take
// longer than one thread doing both (docs/history.md has the GEMM measurement that showed
// it). A worker that spins on its slot for SpinFor after each share takes the next
// one within nanoseconds while calls follow one another (a loop of kernel calls, a
// benchmark); after SpinFor idle it parks, so an idle process burns no CPU, and the first
// call after a pause wakes it as starting a goroutine would.
package dispatch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// SpinFor is how long a worker spins for the next share before it parks.
const SpinFor = 200 * time.Microsecond

// Each calls body(w) for every w in [0, k), body(0) on the calling goroutine and the others
// on the persistent workers (on new goroutines when another Each holds the workers: a
// concurrent or nested call), and returns when all have returned.
func Each(k int, body func(w int)) {
	if k <= 1 {
		if k == 1 {
			body(0)
		}
		return
	}
	var wg sync.WaitGroup
	pool := workerPool(k - 1)
	for w := 1; w < k; w++ {
		wg.Add(1)
		t := &task{w: w, body: body, wg: &wg}
		if pool == nil {
			go t.run()
			continue
		}
		pool[w-1].give(t)
	}
	body(0)
	wg.Wait()
	if pool != nil {
		poolMu.Unlock()
	}
}

// task is one worker's share of an Each.
type task struct {
	w    int
	body func(w int)
	wg   *sync.WaitGroup
}

func (t *task) run() {
	t.body(t.w)
	t.wg.Done()
}

var (
	poolMu sync.Mutex // held by the Each using the workers
	// pooled counts the shares the workers ran (TestWorkers).
	pooled   atomic.Int64
	poolOnce sync.Once
	workers  []*worker
)

// workerPool returns k idle workers, locked for the caller (Each unlocks), or nil when
// another Each holds them or k is more than there are (NumCPU - 1).
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

// give hands t to the worker, which must be idle (the caller holds the pool).
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
				pooled.Add(1) // before run, whose Done lets the caller go on
				t.run()
				idle, spins = time.Now(), 0
				continue
			}
			if spins%64 == 63 {
				if time.Since(idle) > SpinFor {
					break
				}
				runtime.Gosched() // let any goroutine waiting for this P run
			}
		}
		<-w.wake // parks until give's token (a stale one only returns to the spin)
	}
}
