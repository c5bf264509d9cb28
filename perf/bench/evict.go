package bench

import (
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ropgen/ropgen/perf/profiles"
)

// Cold timing. The roofline prices bytes at the main-memory ceiling (the profile's hbm), so a
// call is only priced honestly when its data comes from main memory. A case whose tensors fit
// in the caches, timed in warm back-to-back batches, runs at cache bandwidth: its efficiency
// against DRAM reads above 100% and the report's physics check calls it a formula error. Such
// cases are therefore timed cold, one call at a time with the caches evicted before each (as
// GPU harnesses such as Triton's do_bench clear the L2 before every call); a case larger than
// the eviction buffer streams from memory on every call anyway and is timed in warm batches.

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

// Size is the buffer's size: a case with less data than this is timed cold.
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

// Buffers is an Instance that names the memory of its tensors, so that a cold sample can
// flush exactly those lines from every cache level (Flush) after reading the eviction
// buffer. The read alone is not enough on every CPU: a last-level cache with an adaptive
// replacement policy keeps lines that were used more than once (a case's tensors: built,
// checked, timed) while a one-pass read streams past them, so part of a case could still
// be cached, and a few-MiB row read faster than DRAM.
type Buffers interface {
	Buffers() [][]byte
}

// Flush writes back and drops every cache line of bufs from every cache level (CLFLUSH on
// amd64, DC CIVAC on arm64), and reports whether this architecture can; elsewhere it does
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

// EvictFor returns the eviction before a cold sample of in: Evict, then, when in names its
// tensors' memory (Buffers), Flush of exactly those lines.
func (e *Evictor) EvictFor(in Instance) func() {
	b, ok := in.(Buffers)
	if !ok || !canFlush {
		return e.Evict
	}
	bufs := b.Buffers()
	return func() {
		e.Evict()
		Flush(bufs)
	}
}

// ColdSample returns the time in seconds of one call of call made after evict.
func ColdSample(call func() error, evict func()) (float64, error) {
	evict()
	d, err := batch(call, 1)
	return d.Seconds(), err
}
