package instrument

import (
	"math"
	"slices"
	"testing"

	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/profiles"
)

func TestDefaultArrayMiB(t *testing.T) {
	// A made-up CPU, not this host: two LLC instances of 32 MiB among 16 CPUs: 2 × 64 MiB.
	if got := DefaultArrayMiB(profiles.CPU{Logical: 16, LLCBytes: 32 << 20, LLCShared: 8}, 0); got != 128 {
		t.Errorf("DefaultArrayMiB = %d, want 128", got)
	}
	if got := DefaultArrayMiB(profiles.CPU{Logical: 2}, 0); got != 64 {
		t.Errorf("DefaultArrayMiB without an LLC = %d, want 64", got)
	}
	// 512 MiB available: each array at most 64 MiB, so the three fit in 3/8 of it.
	if got := DefaultArrayMiB(profiles.CPU{Logical: 16, LLCBytes: 64 << 20, LLCShared: 8}, 512<<20); got != 64 {
		t.Errorf("DefaultArrayMiB with 512 MiB available = %d, want 64", got)
	}
	if MemAvailable() <= 0 {
		t.Errorf("MemAvailable() = %d on a Linux host", MemAvailable())
	}
}

func TestPart(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 7} {
		next := 0
		for w := range workers {
			lo, hi := Part(w, workers, 10007)
			if lo != next || hi < lo || lo%64 != 0 {
				t.Errorf("Part(%d, %d) = [%d, %d), want a cache-line-aligned start at %d", w, workers, lo, hi, next)
			}
			next = hi
		}
		if next != 10007 {
			t.Errorf("%d workers cover %d of 10007 elements", workers, next)
		}
	}
}

// TestChunks checks that a pass's dispatches cover every element once, in order.
func TestChunks(t *testing.T) {
	for _, n := range []int{0, 1, MixChunk, 2*MixChunk + 5, 7*MixChunk + 3} {
		next := 0
		Chunks(2, n, func(lo, hi int) {
			if lo != next || hi <= lo || hi-lo > 2*MixChunk {
				t.Errorf("n %d: chunk [%d, %d) after %d", n, lo, hi, next)
			}
			next = hi
		})
		if next != n {
			t.Errorf("n %d: chunks cover %d", n, next)
		}
	}
}

// TestSameTime: the same-time reference is the cold mix of the reference's pattern
// (profiles.RefPattern) among those the calibration samples, the same kernel under the same
// name and no other, sampled once a Sample, its rate counted as the mix counts its bytes
// (positive, finite); it evicts with the evictor it is given.
func TestSameTime(t *testing.T) {
	ev := cold.NewEvictor(1 << 20)
	st := newSameTime(ev, 1)
	var all []string
	for _, m := range NewColdMixes(1, 1, ev).Mixes() {
		all = append(all, m.Name)
	}
	ref, _ := profiles.RefPattern(all)
	want := []string{ref}
	if names := st.Names(); ref == "" || !slices.Equal(names, want) {
		t.Errorf("names %v, want the reference's pattern alone of the cold mixes %v", names, all)
	}
	for i := range 2 {
		rates := st.Sample()
		if i == 0 && st.cm().Evictor() != ev {
			t.Error("the reference made an evictor of its own")
		}
		if len(rates) != len(want) {
			t.Fatalf("%d rates for %d patterns", len(rates), len(want))
		}
		for i, r := range rates {
			if !(r > 0) || math.IsInf(r, 0) {
				t.Errorf("%s: rate %v", want[i], r)
			}
		}
	}
}

// TestCopyReference: the drift reference times the copy mix reps times, each rate positive.
func TestCopyReference(t *testing.T) {
	if s := CopyReference(1<<20, 3); s.N != 3 || s.Min <= 0 {
		t.Errorf("CopyReference = %+v", s)
	}
}
