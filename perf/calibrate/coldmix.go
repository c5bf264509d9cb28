package calibrate

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/ropgen/ropgen/internal/par"
	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/profiles"
)

// The cold mixes: the envelope timed the way the benchmark times a row. ropbench times every
// case as one call after an eviction (a read of twice the last-level cache, then a flush of
// the case's own tensors: package perf/cold), and a run has many such samples, each a few
// milliseconds long, taken over minutes. The warm mixes time passes of several dispatches
// over arrays streamed back to back: on a shared machine a pass is fast only if every one of
// its dispatches is, so their best round can sit below what single cold calls of the
// catalog's streaming kernels reach in the same minutes (docs/history.md). A cold mix is the same kernel as its warm mix, called once per sample on arrays of a
// cpu-large row's size, after the same eviction, dispatched as the catalog's kernels are
// (ops.parallelFor: workers-1 goroutines started, the caller does the first share, the start
// timed), on the same clock (cold.Sample). Its samples are cheap, so many are taken, in every
// memory round and after every multiply-add round: the envelope is the best any of them
// reached over most of the calibration, as a row's fastest sample is its best over its run.

// coldMiB is the size of each array of a cold mix: a cpu-large elementwise row's tensor
// (4096×4096 float32), so a sample moves what one cold call of such a row moves.
const coldMiB = 64

// coldPerRound is how many samples of each cold mix one memory round takes.
const coldPerRound = 3

// coldOf names the cold mix of each warm mix that has one, in the order of preference of
// their kernels: the non-temporal-store kernel where the CPU has it (the catalog's
// streaming kernels store that way), else the plain one.
var coldOf = []struct{ warm, cold string }{
	{"copy_nt", "copy_cold"}, {"copy", "copy_cold"},
	{"triad_nt", "triad_cold"}, {"triad", "triad_cold"},
}

// coldMixes holds the cold mixes' arrays, eviction buffer and samples.
type coldMixes struct {
	workers int
	ev      *cold.Evictor
	mixes   []memMix
	evicts  []func()
	a, b, c []float32
	samples [][]float64
}

// newColdMixes prepares the cold mixes for the warm mixes ms on arrays of mib MiB (at most
// coldMiB), evicting with ev (nil: an evictor of its own, cold.DefaultEvictSize).
func newColdMixes(workers, mib int, ms []memMix, ev *cold.Evictor) *coldMixes {
	if ev == nil {
		ev = cold.NewEvictor(cold.DefaultEvictSize())
	}
	cm := &coldMixes{workers: workers, ev: ev, mixes: coldMixesOf(ms)}
	n := min(mib, coldMiB) << 20 / elemBytes
	cm.a, cm.b, cm.c = arrays(workers, n)
	for _, mx := range cm.mixes {
		bufs := [][]byte{asBytes(cm.a), asBytes(cm.b)}
		if mx.reads+mx.writes > 2 {
			bufs = append(bufs, asBytes(cm.c))
		}
		cm.evicts = append(cm.evicts, cm.ev.Before(bufs))
	}
	cm.samples = make([][]float64, len(cm.mixes))
	return cm
}

// coldMixesOf returns the cold mixes of the warm mixes ms (coldOf), in coldOf's order.
func coldMixesOf(ms []memMix) []memMix {
	var out []memMix
	for _, pair := range coldOf {
		if slices.ContainsFunc(out, func(m memMix) bool { return m.name == pair.cold }) {
			continue
		}
		if i := slices.IndexFunc(ms, func(m memMix) bool { return m.name == pair.warm }); i >= 0 {
			mx := ms[i]
			mx.name, mx.how = pair.cold, mx.how+"; one cold call a sample, as ropbench times a row"
			out = append(out, mx)
		}
	}
	return out
}

func asBytes(a []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*elemBytes)
}

// round takes k samples of every cold mix, interleaved (one of each, then the next).
func (cm *coldMixes) round(k int) {
	if cm == nil {
		return
	}
	for range k {
		for i := range cm.mixes {
			cm.samples[i] = append(cm.samples[i], cm.sample(i))
		}
	}
}

// sample times one cold call of mix i and returns its rate in bytes/s.
func (cm *coldMixes) sample(i int) float64 {
	mx := cm.mixes[i]
	secs, _ := cold.Sample(func() error { cm.call(mx); return nil }, cm.evicts[i])
	return float64(mx.bytes(len(cm.a))) / max(secs, 1e-9)
}

// call runs mx once over the arrays as ops.parallelFor dispatches a kernel (internal/par):
// the caller doing the first share, the persistent workers the others, then the join. A
// dispatch of its own here (goroutines started per share) would be slower than the kernels'
// dispatch, and a correct kernel would outrun the envelope.
func (cm *coldMixes) call(mx memMix) {
	n := len(cm.a)
	body := func(w int) {
		lo, hi := part(w, cm.workers, n)
		var cs []float32 // nil for a mix that uses two arrays
		if mx.reads+mx.writes > 2 {
			cs = cm.c[lo:hi]
		}
		keep(mx.kernel(cm.a[lo:hi], cm.b[lo:hi], cs))
	}
	par.Each(cm.workers, body)
}

// results are the cold mixes measured, with their spreads.
func (cm *coldMixes) results() []MixResult {
	var out []MixResult
	for i, mx := range cm.mixes {
		if len(cm.samples[i]) > 0 {
			out = append(out, MixResult{Name: mx.name, How: mx.how, Reads: mx.reads, Writes: mx.writes, Samples: slices.Clone(cm.samples[i]), Rate: profiles.SpreadOf(slices.Clone(cm.samples[i]))})
		}
	}
	return out
}

// SameTime is the same-time reference of the benchmark's DRAM-sized rows (bench.SameTime):
// the cold mix of the reference's pattern (profiles.RefPattern: the one pattern the report
// divides by; the non-temporal-store kernel where the CPU has it, on arrays of a cpu-large
// row's size), timed as the calibration times it: one call after the eviction, dispatched as the catalog's kernels are, on the
// same clock. Timed between a row's samples, they say what the machine gave the catalog's
// streaming patterns at that moment, under the load the row ran under.
type SameTime struct {
	names []string
	cm    func() *coldMixes // made at the first Sample
}

// NewSameTime returns the same-time reference on all CPUs (GOMAXPROCS), evicting with ev
// (nil: an evictor of its own). Its three arrays of coldMiB MiB are made, first touched by
// the workers that stream them, at the first Sample: a run that never samples it pays
// nothing.
func NewSameTime(ev *cold.Evictor) *SameTime { return newSameTime(ev, coldMiB) }

func newSameTime(ev *cold.Evictor, mib int) *SameTime {
	ms := mixes()
	var names []string
	for _, mx := range coldMixesOf(ms) {
		names = append(names, mx.name)
	}
	ref, _ := profiles.RefPattern(names)
	// Only the warm mixes whose cold mix is the reference's: a pattern the report never
	// divides by would cost a cold call after every sample for nothing.
	ms = slices.DeleteFunc(ms, func(m memMix) bool {
		i := slices.IndexFunc(coldOf, func(p struct{ warm, cold string }) bool { return p.warm == m.name })
		return i < 0 || coldOf[i].cold != ref
	})
	s := &SameTime{cm: sync.OnceValue(func() *coldMixes { return newColdMixes(max(1, runtimeWorkers()), mib, ms, ev) })}
	for _, mx := range coldMixesOf(ms) {
		s.names = append(s.names, mx.name)
	}
	return s
}

// SameTimeArrayMiB is the size of each of NewSameTime's arrays: a cpu-large elementwise
// row's tensor. A cold call of a row with at least that many bytes of tensors streams from
// DRAM as the reference's own calls do, whatever the last-level cache's size.
const SameTimeArrayMiB = coldMiB

// Names are the reference's patterns (the cold mix's name), in the order Sample returns
// their rates.
func (s *SameTime) Names() []string { return slices.Clone(s.names) }

// Sample times one cold call of each pattern, one after the other, and returns their rates
// in bytes/s, counted as the profile's mixes count them (no write-allocate).
func (s *SameTime) Sample() []float64 {
	cm := s.cm()
	rates := make([]float64, len(cm.mixes))
	for i := range cm.mixes {
		rates[i] = cm.sample(i)
	}
	return rates
}
