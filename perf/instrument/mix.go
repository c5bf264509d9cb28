package instrument

import (
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ropgen/ropgen/internal/stream"
	"github.com/ropgen/ropgen/perf/profiles"
)

// Mix is one memory access pattern on float32 arrays (the catalog's element type, so that
// the mixes run the catalog's own streaming kernels, internal/stream). Bytes are counted as
// STREAM counts them: each element read once, each written once, 4 bytes each. A store that
// misses also reads its line first on most CPUs (write-allocate), but that traffic is not in
// any formula's minimum bytes, so counting it here would raise the ceiling above what a
// formula can ever be priced against. The non-temporal mixes avoid that read, which is why
// they move more counted bytes, and why the envelope needs them: the catalog's streaming
// kernels store the same way (copy_nt is the catalog's streaming copy, stream.CopyNT).
type Mix struct {
	Name          string
	Reads, Writes int // arrays read and written per element index
	How           string
	// Kernel runs the mix over a, b and c (nil for a mix of two arrays) and returns what it
	// summed (0 for a mix that only stores), for Keep.
	Kernel func(a, b, c []float32) float64
}

// Bytes is the traffic the mix moves over n elements.
func (mx Mix) Bytes(n int) int64 { return int64(mx.Reads+mx.Writes) * int64(n) * ElemBytes }

// ElemBytes is the size of the mixes' elements.
const ElemBytes = 4

// sink keeps the kernels' results (sums, accumulators) alive, so the compiler can never
// drop the work that produced them.
var sink atomic.Uint64

// Keep keeps v, a kernel's result, alive.
func Keep(v float64) { sink.Add(math.Float64bits(v)) }

// TriadScalar is the s of the triad a = b + s*c and the value the write mixes store: not
// zero, so that no loop is turned into a memclr.
const TriadScalar = 3.0

// goStreamMixes are the portable copy and triad: what Go code reaches without assembly.
var goStreamMixes = []Mix{
	{"copy", 1, 1, "b[i] = a[i], Go copy (memmove)", func(a, b, _ []float32) float64 { copy(b, a); return 0 }},
	{"triad", 2, 1, "a[i] = b[i] + s*c[i], Go loop", func(a, b, c []float32) float64 { stream.TriadGo(a, b, c, TriadScalar); return 0 }},
}

// StreamMixes are the copy and triad mixes this host runs, in profiles.Mixes order: the
// assembly ones where the CPU has them (with their non-temporal forms), the Go ones for the
// rest. The calibration measures them beside its read and write mixes; the same-time
// reference calls the streaming ones cold.
func StreamMixes() []Mix { return Ordered(simdStreamMixes(), goStreamMixes) }

// Ordered returns the mixes of the lists, the first of each name (so a list of assembly
// mixes before one of Go mixes leaves a Go mix only where there is no assembly one), in
// profiles.Mixes order.
func Ordered(lists ...[]Mix) []Mix {
	var ms []Mix
	for _, l := range lists {
		for _, m := range l {
			if !slices.ContainsFunc(ms, func(o Mix) bool { return o.Name == m.Name }) {
				ms = append(ms, m)
			}
		}
	}
	slices.SortFunc(ms, func(a, b Mix) int {
		return slices.Index(profiles.Mixes, a.Name) - slices.Index(profiles.Mixes, b.Name)
	})
	return ms
}

// MixChunk is the number of elements each worker streams per dispatch: 16 MiB, about the
// traffic of one call of a DRAM-sized catalog kernel (a cpu-large row moves 134-201 MB in a
// few dispatches). A pass over the arrays is a sequence of such dispatches, as a run of
// kernel calls is: on a busy machine a thread that ran briefly and waits gets the CPU back
// sooner than one that streams for a second, so one dispatch per pass would measure the
// scheduler's share, below what short kernel calls reach in the same minutes, and the
// envelope would be no envelope. Every chunk is cold: the pass streams arrays far larger than
// the last-level cache.
const MixChunk = 2 << 20

// Chunks calls fn(lo, hi) for each dispatch of a pass over n elements: workers chunks of
// MixChunk elements (the last shorter).
func Chunks(workers, n int, fn func(lo, hi int)) {
	step := workers * MixChunk
	for lo := 0; lo < n; lo += step {
		fn(lo, min(n, lo+step))
	}
}

// Arrays are three float32 arrays of n elements (see Touched).
func Arrays(workers, n int) (a, b, c []float32) {
	return Touched(workers, n, 1), Touched(workers, n, 2), Touched(workers, n, 0.5)
}

// Touched is a float32 array of n elements set to v, each page first touched by the worker
// that streams it in every pass (the same chunks and partition), so it sits on its memory
// node.
func Touched(workers, n int, v float32) []float32 {
	a := make([]float32, n)
	Chunks(workers, n, func(clo, chi int) {
		Parallel(workers, func(w int) {
			lo, hi := Part(w, workers, chi-clo)
			for i := clo + lo; i < clo+hi; i++ {
				a[i] = v
			}
		})
	})
	return a
}

// TimeMix runs mx once over the arrays (c may be nil for a mix that does not use it), in
// dispatches of MixChunk elements per worker on every worker, and returns its rate in
// bytes/s: the bytes over the time of all dispatches.
func TimeMix(workers int, mx Mix, a, b, c []float32) float64 {
	var total time.Duration
	sums := make([]float64, workers)
	Chunks(workers, len(a), func(clo, chi int) {
		total += Parallel(workers, func(w int) {
			lo, hi := Part(w, workers, chi-clo)
			lo, hi = clo+lo, clo+hi
			var cs []float32 // nil for a mix that uses two arrays
			if c != nil {
				cs = c[lo:hi]
			}
			sums[w] += mx.Kernel(a[lo:hi], b[lo:hi], cs)
		})
	})
	Keep(sums[0])
	return float64(mx.Bytes(len(a))) / max(total, time.Nanosecond).Seconds()
}

// Parallel runs body(w) on workers goroutines, each locked to its own OS thread, released
// together, and returns the time from release until the last one finishes.
func Parallel(workers int, body func(w int)) time.Duration {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(workers)
	done.Add(workers)
	for w := range workers {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-start
			body(w)
			done.Done()
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	done.Wait()
	return time.Since(t0)
}

// Part is worker w's contiguous share of n elements, a multiple of 64 elements (512 bytes)
// but for the last, so each worker's share starts on a cache line: each worker keeps the
// same partition in every run, and it first touched those pages.
func Part(w, workers, n int) (lo, hi int) {
	lo, hi = w*n/workers&^63, (w+1)*n/workers&^63
	if w == workers-1 {
		hi = n
	}
	return lo, hi
}

// CopyReference measures the calibration's "copy" mix (the same kernel, timed as a
// calibration round times it) on all CPUs (GOMAXPROCS) reps times over two arrays of size
// bytes each, and returns its rate in bytes/s (bytes read plus bytes written), counted as the
// profile's mixes are. Compare it with the profile's MixSpreads["copy"]: a reference off that
// spread says the machine is not the one the profile measured (a busier machine, another
// clock). It allocates the arrays on every call; size is rounded down to whole elements, at
// least 1 MiB.
func CopyReference(size int64, reps int) profiles.Spread {
	workers := max(1, runtime.GOMAXPROCS(0))
	n := int(max(size, 1<<20) / ElemBytes)
	a, b := Touched(workers, n, 1), Touched(workers, n, 2) // the copy mix reads a, writes b
	i := slices.IndexFunc(StreamMixes(), func(m Mix) bool { return m.Name == "copy" })
	mx := StreamMixes()[i]
	var s []float64
	for range max(1, reps) {
		s = append(s, TimeMix(workers, mx, a, b, nil))
	}
	return profiles.SpreadOf(s)
}

// DefaultArrayMiB sizes each DRAM array at twice the total last-level cache of the CPUs we
// run on (at least 64 MiB), so a mix streams at least four times the cache through it and
// almost every access goes to DRAM. cpu0's LLC is shared by LLCShared CPUs; a CPU with
// several LLC instances (chiplets) has one per group. The three arrays of the triad take at
// most 3/8 of the available memory (avail bytes; 0 when unknown).
func DefaultArrayMiB(cpu profiles.CPU, avail int64) int {
	total := cpu.LLCBytes
	if cpu.LLCShared > 0 {
		total *= int64((cpu.Logical + cpu.LLCShared - 1) / cpu.LLCShared)
	}
	mib := max(64, 2*total>>20)
	if avail > 0 {
		mib = min(mib, avail/8>>20)
	}
	return int(max(1, mib))
}

// MemAvailable is the kernel's estimate of memory available without swapping, in bytes; 0
// when /proc/meminfo does not say.
func MemAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kib << 10
			}
		}
	}
	return 0
}
