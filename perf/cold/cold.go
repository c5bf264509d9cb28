// Package cold times cold calls: one call of a kernel after the CPU caches are evicted, the
// eviction itself not timed. The benchmark layer (perf/bench) times every case this way and
// the calibration (perf/calibrate) times its envelope mixes this way, so a DRAM ceiling and
// the rows priced against it are measured with the same eviction and the same clock.
//
// The roofline prices bytes at the main-memory ceiling, so a call is priced honestly only
// when its data comes from main memory. A case whose tensors fit in the caches, timed in warm
// back-to-back batches, runs at cache bandwidth; and a larger one repeated warm can find part
// of itself in the last-level cache. As GPU harnesses such as Triton's do_bench clear the L2
// before every call, a cold sample reads a buffer larger than the last-level cache and then
// flushes the call's own memory line by line from every cache level.
package cold

import (
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/ropgen/ropgen/perf/profiles"
)

// cacheLine is the cache line size of every CPU this runs on (x86-64, arm64 server cores).
const cacheLine = 64

// Evictor evicts the CPU caches by reading a buffer larger than the last-level cache.
type Evictor struct {
	buf []byte
	sum byte // of the eviction reads, so the compiler cannot drop them
}

// DefaultEvictSize is the eviction buffer for this host: twice its last-level cache, or
// 64 MiB when /sys does not say how large that is.
func DefaultEvictSize() int64 {
	if llc := profiles.HostCPU().LLCBytes; llc > 0 {
		return 2 * llc
	}
	return 64 << 20
}

// NewEvictor allocates an eviction buffer of size bytes and writes a byte of every page:
// that backs each page with memory of its own, where reading a never-written allocation
// would read the kernel's shared zero page and evict nothing.
func NewEvictor(size int64) *Evictor {
	e := &Evictor{buf: make([]byte, size)}
	for i := 0; i < len(e.buf); i += os.Getpagesize() {
		e.buf[i] = 1
	}
	return e
}

// Size is the buffer's size in bytes.
func (e *Evictor) Size() int64 { return int64(len(e.buf)) }

// Evict reads one byte of every cache line of the buffer, split among GOMAXPROCS goroutines
// so that the private caches of every core the kernels run on are evicted too. It only
// reads, so the lines it leaves behind are clean and the next call pays no write-backs for
// them.
func (e *Evictor) Evict() {
	workers := runtime.GOMAXPROCS(0)
	lines := len(e.buf) / cacheLine
	sums := make([]byte, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*lines/workers*cacheLine, (w+1)*lines/workers*cacheLine
		wg.Go(func() {
			var s byte
			for i := lo; i < hi; i += cacheLine {
				s += e.buf[i]
			}
			sums[w] = s
		})
	}
	wg.Wait()
	for _, s := range sums {
		e.sum += s
	}
}

// Before returns the eviction before a cold call whose memory is bufs: Evict, then Flush of
// exactly those lines. The read alone is not enough on every CPU: a last-level cache with an
// adaptive replacement policy keeps lines that were used more than once (a case's tensors:
// built, checked, timed) while a one-pass read streams past them, so part of a call's data
// could still be cached, and a few-MiB row read faster than DRAM. With no bufs, or where
// this architecture cannot flush by address, it is Evict alone.
func (e *Evictor) Before(bufs [][]byte) func() {
	if len(bufs) == 0 || !canFlush {
		return e.Evict
	}
	return func() {
		e.Evict()
		Flush(bufs)
	}
}

// Flush writes back and drops every cache line of bufs from every cache level (CLFLUSHOPT on
// amd64 where the CPU has it, else CLFLUSH; DC CIVAC on arm64), and reports whether this architecture can; elsewhere it does
// nothing.
func Flush(bufs [][]byte) bool {
	if !canFlush {
		return false
	}
	for _, b := range bufs {
		if len(b) > 0 {
			flushLines(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
		}
	}
	return true
}

// Sample returns the time in seconds of one call of call made after evict, on the monotonic
// clock; the eviction is not timed.
func Sample(call func() error, evict func()) (float64, error) {
	evict()
	start := time.Now()
	err := call()
	return time.Since(start).Seconds(), err
}
