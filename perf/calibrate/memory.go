package calibrate

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ropgen/ropgen/internal/stream"
	"github.com/ropgen/ropgen/perf/profiles"
)

// memMix is one memory access pattern on float32 arrays (the catalog's element type, so
// that the mixes run the catalog's own streaming kernels, internal/stream). Bytes are
// counted as STREAM counts them: each element read once, each written once, 4 bytes each. A store that misses also
// reads its line first on most CPUs (write-allocate), but that traffic is not in any
// formula's minimum bytes, so counting it here would raise the ceiling above what a formula
// can ever be priced against. The non-temporal mixes avoid that read, which is why they move
// more counted bytes, and why the envelope needs them: the catalog's streaming kernels store
// the same way (copy_nt is the catalog's streaming copy, stream.CopyNT).
type memMix struct {
	name          string
	reads, writes int // arrays read and written per element index
	how           string
	kernel        func(a, b, c []float32) float64
}

// bytes is the traffic the mix moves over n elements.
func (mx memMix) bytes(n int) int64 { return int64(mx.reads+mx.writes) * int64(n) * elemBytes }

// elemBytes is the size of the mixes' elements.
const elemBytes = 4

// sink keeps the kernels' results (sums, accumulators) alive, so the compiler can never
// drop the work that produced them.
var sink atomic.Uint64

func keep(v float64) { sink.Add(math.Float64bits(v)) }

const triadScalar = 3.0

// goMixes are the portable mixes: what Go code reaches without assembly.
var goMixes = []memMix{
	{"copy", 1, 1, "b[i] = a[i], Go copy (memmove)", func(a, b, _ []float32) float64 { copy(b, a); return 0 }},
	{"triad", 2, 1, "a[i] = b[i] + s*c[i], Go loop", func(a, b, c []float32) float64 { triadGo(a, b, c); return 0 }},
	{"read", 1, 0, "s += a[i], Go loop, 8 sums", func(a, _, _ []float32) float64 { return float64(stream.SumGo(a)) }},
	{"write", 0, 1, "a[i] = s, Go loop", func(a, _, _ []float32) float64 { writeGo(a); return 0 }},
}

// mixes are the mixes this host measures, in profiles.Mixes order: the assembly ones where
// the CPU has them, the Go ones for the rest.
func mixes() []memMix {
	ms := simdMixes()
	for _, g := range goMixes {
		if !slices.ContainsFunc(ms, func(m memMix) bool { return m.name == g.name }) {
			ms = append(ms, g)
		}
	}
	slices.SortFunc(ms, func(a, b memMix) int {
		return slices.Index(profiles.Mixes, a.name) - slices.Index(profiles.Mixes, b.name)
	})
	return ms
}

func triadGo(a, b, c []float32) { stream.TriadGo(a, b, c, triadScalar) }

// writeGo writes a non-zero value, so the loop is not turned into a memclr.
func writeGo(a []float32) { stream.FillGo(a, triadScalar) }

// mixChunk is the number of elements each worker streams per dispatch: 16 MiB, about the
// traffic of one call of a DRAM-sized catalog kernel (a cpu-large row moves 134-201 MB in a
// few dispatches of a few ms each). A pass over the arrays is a sequence of such
// dispatches, as a run of kernel calls is: on a busy machine a thread that ran for a few ms
// and waits gets the CPU back sooner than one that streams for a second, so one dispatch
// per pass would measure the scheduler's share, well below what short kernel calls reach
// in the same minutes, and the envelope would be no envelope. Every chunk is cold: the pass
// streams arrays far larger than the last-level cache.
const mixChunk = 2 << 20

// chunks calls fn(lo, hi) for each dispatch of a pass over n elements: workers chunks of
// mixChunk elements (the last shorter).
func chunks(workers, n int, fn func(lo, hi int)) {
	step := workers * mixChunk
	for lo := 0; lo < n; lo += step {
		fn(lo, min(n, lo+step))
	}
}

// arrays are three float32 arrays of n elements (see touched).
func arrays(workers, n int) (a, b, c []float32) {
	return touched(workers, n, 1), touched(workers, n, 2), touched(workers, n, 0.5)
}

// touched is a float32 array of n elements set to v, each page first touched by the worker
// that streams it in every pass (the same chunks and partition), so it sits on its memory
// node.
func touched(workers, n int, v float32) []float32 {
	a := make([]float32, n)
	chunks(workers, n, func(clo, chi int) {
		parallel(workers, func(w int) {
			lo, hi := part(w, workers, chi-clo)
			for i := clo + lo; i < clo+hi; i++ {
				a[i] = v
			}
		})
	})
	return a
}

// timeMix runs mx once over the arrays (c may be nil for a mix that does not use it), in dispatches of mixChunk elements per worker on
// every worker, and returns its rate in bytes/s: the bytes over the time of all dispatches.
func timeMix(workers int, mx memMix, a, b, c []float32) float64 {
	var total time.Duration
	sums := make([]float64, workers)
	chunks(workers, len(a), func(clo, chi int) {
		total += parallel(workers, func(w int) {
			lo, hi := part(w, workers, chi-clo)
			lo, hi = clo+lo, clo+hi
			var cs []float32 // nil for a mix that uses two arrays
			if c != nil {
				cs = c[lo:hi]
			}
			sums[w] += mx.kernel(a[lo:hi], b[lo:hi], cs)
		})
	})
	keep(sums[0])
	return float64(mx.bytes(len(a))) / max(total, time.Nanosecond).Seconds()
}

// measureMixes times every mix cfg.Repeats times in interleaved rounds (round 1 of every
// mix, then round 2, ...), so a change of machine load affects all mixes alike instead of
// the ones measured last; each round also takes coldPerRound samples of the cold mixes cm
// (which keeps them: see coldMixes.results).
func measureMixes(cfg Config, cm *coldMixes) []MixResult {
	n := cfg.ArrayMiB << 20 / elemBytes
	a, b, c := arrays(cfg.Workers, n)
	ms := mixes()
	samples := make([][]float64, len(ms))
	for range cfg.Repeats {
		for i, mx := range ms {
			samples[i] = append(samples[i], timeMix(cfg.Workers, mx, a, b, c))
		}
		cm.round(coldPerRound)
	}
	out := make([]MixResult, len(ms))
	for i, mx := range ms {
		out[i] = MixResult{Name: mx.name, How: mx.how, Reads: mx.reads, Writes: mx.writes, Samples: slices.Clone(samples[i]), Rate: profiles.SpreadOf(samples[i])}
	}
	return out
}

// CopyReference measures the calibration's "copy" mix (the same kernel) on all CPUs
// (GOMAXPROCS) reps times over two arrays of size bytes each, and returns its rate in bytes/s
// (bytes read plus bytes written), counted as the profile's mixes are. Compare it with the
// profile's MixSpreads["copy"]: a reference off that spread says the machine is not the one
// the profile measured (a busier machine, another clock). It allocates the arrays on every
// call; size is rounded down to whole elements, at least 1 MiB.
func CopyReference(size int64, reps int) profiles.Spread {
	workers := max(1, runtimeWorkers())
	n := int(max(size, 1<<20) / elemBytes)
	a, b := touched(workers, n, 1), touched(workers, n, 2) // the copy mix reads a, writes b
	var mx memMix
	for _, m := range mixes() {
		if m.name == "copy" {
			mx = m
		}
	}
	var s []float64
	for range max(1, reps) {
		s = append(s, timeMix(workers, mx, a, b, nil))
	}
	return profiles.SpreadOf(s)
}
