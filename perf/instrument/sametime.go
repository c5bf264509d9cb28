package instrument

import (
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/ropgen/ropgen/internal/dispatch"
	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/profiles"
)

// The cold mixes: the envelope timed the way the benchmark times a row. A bench command
// times every case as one call after an eviction (a read of twice the last-level cache, then
// a flush of the case's own tensors: package perf/cold), and a run has many such samples,
// each a few milliseconds long, taken over minutes. The warm mixes time passes of several
// dispatches over arrays streamed back to back: on a shared machine a pass is fast only if
// every one of its dispatches is, so their best round can sit below what single cold calls
// of the catalog's streaming kernels reach in the same minutes (docs/history.md). A cold
// mix is the same kernel as its warm mix, called once per sample on arrays of a cpu-large
// row's size, after the same eviction, dispatched as the catalog's kernels are
// (ops.parallelFor: workers-1 goroutines started, the caller does the first share, the start
// timed), on the same clock (cold.Sample). Its samples are cheap, so the calibration takes
// many, and the bench command one of each after a DRAM-sized row's every sample.

// SameTimeArrayMiB is the size of each array of a cold mix: a cpu-large elementwise row's
// tensor (4096×4096 float32), so a sample moves what one cold call of such a row moves, and
// a cold call of a row with at least that many bytes of tensors streams from DRAM as the
// reference's own calls do, whatever the last-level cache's size.
const SameTimeArrayMiB = 64

// coldOf names the cold mix of each warm mix that has one, in the order of preference of
// their kernels: the non-temporal-store kernel where the CPU has it (the catalog's
// streaming kernels store that way), else the plain one.
var coldOf = []struct{ warm, cold string }{
	{"copy_nt", profiles.CopyCold}, {"copy", profiles.CopyCold},
	{"triad_nt", profiles.TriadCold}, {"triad", profiles.TriadCold},
}

// ColdMixes are the cold mixes, with their arrays and evictions.
type ColdMixes struct {
	workers int
	ev      *cold.Evictor
	mixes   []Mix
	evicts  []func()
	a, b, c []float32
}

// NewColdMixes prepares the cold mixes of this host's StreamMixes on workers workers and
// arrays of mib MiB (at most SameTimeArrayMiB), evicting with ev (nil: an evictor of its own,
// cold.DefaultEvictSize).
func NewColdMixes(workers, mib int, ev *cold.Evictor) *ColdMixes {
	if ev == nil {
		ev = cold.NewEvictor(cold.DefaultEvictSize())
	}
	cm := &ColdMixes{workers: workers, ev: ev, mixes: coldMixesOf(StreamMixes())}
	n := min(mib, SameTimeArrayMiB) << 20 / ElemBytes
	cm.a, cm.b, cm.c = Arrays(workers, n)
	for _, mx := range cm.mixes {
		bufs := [][]byte{asBytes(cm.a), asBytes(cm.b)}
		if mx.Reads+mx.Writes > 2 {
			bufs = append(bufs, asBytes(cm.c))
		}
		cm.evicts = append(cm.evicts, cm.ev.Before(bufs))
	}
	return cm
}

// coldMixesOf returns the cold mixes of the warm mixes ms (coldOf), in coldOf's order.
func coldMixesOf(ms []Mix) []Mix {
	var out []Mix
	for _, pair := range coldOf {
		if slices.ContainsFunc(out, func(m Mix) bool { return m.Name == pair.cold }) {
			continue
		}
		if i := slices.IndexFunc(ms, func(m Mix) bool { return m.Name == pair.warm }); i >= 0 {
			mx := ms[i]
			mx.Name, mx.How = pair.cold, mx.How+"; one cold call a sample, as ropbench times a row"
			out = append(out, mx)
		}
	}
	return out
}

func asBytes(a []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*ElemBytes)
}

// Mixes are the cold mixes, in the order Sample returns their rates.
func (cm *ColdMixes) Mixes() []Mix { return slices.Clone(cm.mixes) }

// Evictor is the eviction before each cold call.
func (cm *ColdMixes) Evictor() *cold.Evictor { return cm.ev }

// ArrayBytes is the size of each of the mixes' arrays.
func (cm *ColdMixes) ArrayBytes() int64 { return int64(len(cm.a)) * ElemBytes }

// Sample times one cold call of each mix, one after the other, and returns their rates in
// bytes/s, counted as the profile's mixes count them (no write-allocate).
func (cm *ColdMixes) Sample() []float64 {
	rates := make([]float64, len(cm.mixes))
	for i := range cm.mixes {
		rates[i] = cm.sample(i)
	}
	return rates
}

// sample times one cold call of mix i and returns its rate in bytes/s.
func (cm *ColdMixes) sample(i int) float64 {
	mx := cm.mixes[i]
	secs, _ := cold.Sample(func() error { cm.call(mx); return nil }, cm.evicts[i])
	return float64(mx.Bytes(len(cm.a))) / max(secs, 1e-9)
}

// call runs mx once over the arrays as ops.parallelFor dispatches a kernel (internal/dispatch):
// the caller doing the first share, the persistent workers the others, then the join. A
// dispatch of its own here (goroutines started per share) would be slower than the kernels'
// dispatch, and a correct kernel would outrun the envelope.
func (cm *ColdMixes) call(mx Mix) {
	n := len(cm.a)
	body := func(w int) {
		lo, hi := Part(w, cm.workers, n)
		var cs []float32 // nil for a mix that uses two arrays
		if mx.Reads+mx.Writes > 2 {
			cs = cm.c[lo:hi]
		}
		Keep(mx.Kernel(cm.a[lo:hi], cm.b[lo:hi], cs))
	}
	dispatch.Each(cm.workers, body)
}

// SameTime is the same-time reference of the benchmark's DRAM-sized rows (bench.SameTime):
// the cold mix of the reference's pattern (profiles.RefPattern: the one pattern the report
// divides by; the non-temporal-store kernel where the CPU has it, on arrays of a cpu-large
// row's size), timed as the calibration times it: one call after the eviction, dispatched
// as the catalog's kernels are, on the same clock. Timed between a row's samples, it says
// what the machine gave the catalog's streaming patterns at that moment, under the load the
// row ran under.
type SameTime struct {
	names []string
	ref   int               // the reference's index among the cold mixes
	cm    func() *ColdMixes // made at the first Sample
}

// NewSameTime returns the same-time reference on all CPUs (GOMAXPROCS), evicting with ev
// (nil: an evictor of its own). Its three arrays of SameTimeArrayMiB MiB are made, first
// touched by the workers that stream them, at the first Sample: a run that never samples it
// pays nothing.
func NewSameTime(ev *cold.Evictor) *SameTime { return newSameTime(ev, SameTimeArrayMiB) }

func newSameTime(ev *cold.Evictor, mib int) *SameTime {
	s := &SameTime{cm: sync.OnceValue(func() *ColdMixes {
		return NewColdMixes(max(1, runtime.GOMAXPROCS(0)), mib, ev)
	})}
	var all []string
	for _, mx := range coldMixesOf(StreamMixes()) {
		all = append(all, mx.Name)
	}
	// Only the reference's pattern is timed: a pattern the report never divides by would
	// cost a cold call after every sample for nothing.
	name, i := profiles.RefPattern(all)
	if i >= 0 {
		s.names, s.ref = []string{name}, i
	}
	return s
}

// Names are the reference's patterns (the cold mix's name), in the order Sample returns
// their rates.
func (s *SameTime) Names() []string { return slices.Clone(s.names) }

// Sample times one cold call of each pattern and returns their rates in bytes/s; none on a
// host without a reference pattern.
func (s *SameTime) Sample() []float64 {
	if len(s.names) == 0 {
		return nil
	}
	return []float64{s.cm().sample(s.ref)}
}
