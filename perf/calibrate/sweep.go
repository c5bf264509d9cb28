package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/instrument"
	"github.com/ropgen/ropgen/perf/profiles"
)

// SweepPoint is one working-set size of the cache sweep: Bytes is each worker's working set
// (every worker has its own), Kernel the mix that moved the most bytes at that size (the
// envelope of read and copy, in ymm and, with AVX-512, zmm, as the DRAM envelope is of all
// mixes), Rate its spread over all
// workers together, and Samples the rates behind it.
type SweepPoint struct {
	Bytes   int64
	Kernel  string
	Rate    profiles.Spread
	Samples []float64
}

// CacheLevel is a cache level found in the sweep: Key "l1", "l2", "l3"; Bytes the largest
// working set of its plateau (all workers together for a level they share); From and To
// the range of per-worker working sets on the plateau; Rounds its rate in each round (the
// best of its sizes in that round), in round order, and Rate their spread.
// NoPlateau marks a level /sys reports whose sizes formed no plateau (on a busy machine the
// rounds of neighbouring sizes can differ by more than plateauTol): its points are the
// sweep sizes that fit in the level and not in the one below.
type CacheLevel struct {
	Key       string
	Bytes     int64
	From, To  int64
	Points    int
	Rounds    []float64
	Rate      profiles.Spread
	NoPlateau bool
}

// sweepSizes are the per-worker working sets of the sweep: from 16 KiB up to max by factors
// of √2, each a multiple of 512 bytes.
func sweepSizes(max int64) []int64 {
	var s []int64
	for k := 0; ; k++ {
		w := int64(16<<10*math.Pow(2, float64(k)/2)) &^ 511
		if w > max {
			return s
		}
		s = append(s, w)
	}
}

// sweepMax is the largest per-worker working set, and why: four times each worker's share of
// the last-level cache, so the sweep runs off its end, at least 64 MiB and at most 256 MiB
// (beyond that the DRAM mixes measure the rest), and the buffers of all workers together at
// most a quarter of the available memory (avail bytes; 0 when unknown), which can stop the
// sweep short of a large cache on a small machine.
func sweepMax(cpu profiles.CPU, workers int, avail int64) (int64, string) {
	share := cpu.LLCBytes
	if cpu.LLCShared > 1 {
		share /= int64(min(cpu.LLCShared, workers))
	}
	w := min(256<<20, max(64<<20, 4*share))
	why := fmt.Sprintf("4x each worker's %d KiB share of the last-level cache, at least 64 MiB and at most 256 MiB", share>>10)
	if budget := avail / 4 / int64(max(1, workers)) &^ 511; avail > 0 && budget < w {
		w = max(64<<10, budget)
		why = fmt.Sprintf("a quarter of the %d MiB of available memory over %d workers (4x each worker's %d KiB share of the last-level cache would be more)", avail>>20, workers, share>>10)
	}
	return w, why
}

// sweep measures the read and copy mixes (and sweepMixes) on every working-set size, in interleaved rounds.
func sweep(cfg Config, cpu profiles.CPU) []SweepPoint {
	maxW := cfg.SweepMax
	if maxW == 0 {
		maxW, _ = sweepMax(cpu, cfg.Workers, instrument.MemAvailable())
	}
	sizes := sweepSizes(maxW)
	var kern []memMix
	for _, m := range mixes() {
		if m.Name == "read" || m.Name == "copy" {
			kern = append(kern, m)
		}
	}
	kern = append(kern, sweepMixes()...)
	// Each worker's own buffer, first touched by that worker.
	bufs := make([][]float32, cfg.Workers)
	instrument.Parallel(cfg.Workers, func(w int) {
		bufs[w] = make([]float32, maxW/elemBytes)
		for i := range bufs[w] {
			bufs[w][i] = 1
		}
	})
	rounds := min(cfg.Repeats, 5)
	samples := make([][][]float64, len(sizes)) // [size][kernel][round]
	for i := range samples {
		samples[i] = make([][]float64, len(kern))
	}
	for range rounds {
		for i, w := range sizes {
			for j, mx := range kern {
				samples[i][j] = append(samples[i][j], sweepRate(cfg, mx, bufs, w))
			}
		}
	}
	pts := make([]SweepPoint, len(sizes))
	for i, w := range sizes {
		best := -1
		var bs profiles.Spread
		for j := range kern {
			s := profiles.SpreadOf(slices.Clone(samples[i][j]))
			if best < 0 || s.Max > bs.Max {
				best, bs = j, s
			}
		}
		pts[i] = SweepPoint{Bytes: w, Kernel: kern[best].Name, Rate: bs, Samples: samples[i][best]}
	}
	return pts
}

// sweepRate runs mx over a working set of w bytes per worker, enough passes to move
// cfg.SweepBytes per worker, and returns the rate of all workers together. The copy mix
// reads the first half of the working set and writes the second.
func sweepRate(cfg Config, mx memMix, bufs [][]float32, w int64) float64 {
	n := int(w / elemBytes)
	passes := int(max(1, cfg.SweepBytes/w))
	body := func(k int) func(int) {
		return func(wk int) {
			b := bufs[wk][:n]
			s := 0.0
			for range k {
				if mx.Reads+mx.Writes == 2 {
					s += mx.Kernel(b[:n/2], b[n/2:], nil)
				} else {
					s += mx.Kernel(b, nil, nil)
				}
			}
			keep(s)
		}
	}
	if passes < 8 {
		instrument.Parallel(cfg.Workers, body(1)) // warm: the level under test holds the data
	}
	d := instrument.Parallel(cfg.Workers, body(passes))
	moved := float64(cfg.Workers) * float64(passes) * float64(n/2*2*elemBytes)
	if mx.Reads+mx.Writes == 1 {
		moved = float64(cfg.Workers) * float64(passes) * float64(n*elemBytes)
	}
	return moved / max(d.Seconds(), 1e-9)
}

// plateauTol is how far (relative) a sweep point may sit from its plateau's median and
// still belong to it: cache levels differ by a factor 1.5 or more in bandwidth, while
// repeated medians on a shared machine move by well under that; 0.15 sits between.
const plateauTol = 0.15

// plateaus finds the flat stretches of the sweep, the way the Empirical Roofline Toolkit and
// likwid-bench read a bandwidth-versus-working-set curve, on each size's best round (a
// ceiling is the best any code reaches; on a shared machine other jobs only ever slow a
// round down, so the best rounds are flat where the medians of a busy machine are not):
// consecutive points within plateauTol of their segment's median form a segment; a lone point between segments (a
// transition, or noise) is dropped and neighbours with equal medians merge; segments of two
// or more points are plateaus. Each plateau is named by the smallest cache level (from /sys,
// as a worker sees it: a shared level divided among the workers sharing it) that holds its
// median working set, or, without /sys, by its order. A plateau beyond every cache is DRAM
// and left out (the DRAM mixes measure it).
//
// dram is the sweep kernels' best rate on the DRAM arrays: a plateau no faster than DRAM (within plateauTol) is
// DRAM whatever /sys says (a virtual machine may report the host's last-level cache, of
// which the guest sees little).
//
// A level /sys reports that no plateau was found for is still measured: its roof is the
// best round at the sweep sizes that fit in it and not in the level below (NoPlateau),
// provided that is faster than DRAM. A level no faster than a larger one is kept, for
// Refusals to refuse: a level nearer the core is never slower.
func plateaus(pts []SweepPoint, cpu profiles.CPU, workers int, dram float64) []CacheLevel {
	type seg struct{ lo, hi int } // pts[lo:hi]
	median := func(s seg) float64 {
		v := make([]float64, 0, s.hi-s.lo)
		for _, p := range pts[s.lo:s.hi] {
			v = append(v, p.Rate.Max)
		}
		return profiles.SpreadOf(v).Median
	}
	near := func(x, m float64) bool { return math.Abs(x-m) <= plateauTol*m }
	var segs []seg
	for i := range pts {
		if n := len(segs); n > 0 && near(pts[i].Rate.Median, median(segs[n-1])) {
			segs[n-1].hi = i + 1
			continue
		}
		segs = append(segs, seg{i, i + 1})
	}
	for changed := true; changed; {
		changed = false
		segs = slices.DeleteFunc(segs, func(s seg) bool {
			if s.hi-s.lo == 1 && len(segs) > 1 {
				changed = true
				return true
			}
			return false
		})
		for i := 0; i+1 < len(segs); i++ {
			if near(median(segs[i+1]), median(segs[i])) {
				segs[i].hi = segs[i+1].hi
				segs = slices.Delete(segs, i+1, i+2)
				changed = true
				i--
			}
		}
	}
	// What each worker sees of each level.
	type level struct {
		n      int
		per    int64 // bytes per worker
		shared int   // workers sharing it
	}
	var lv []level
	for _, c := range cpu.Caches {
		if c.Level < 1 || c.Level > len(profiles.CacheKeys) {
			continue
		}
		sh := max(1, min(c.Shared, workers))
		lv = append(lv, level{c.Level, c.Bytes / int64(sh), sh})
	}
	var out []CacheLevel
	for i, s := range segs {
		if s.hi-s.lo < 2 || median(s) <= dram*(1+plateauTol) {
			continue
		}
		mid := pts[(s.lo+s.hi-1)/2].Bytes
		n, shared := i+1, 1
		if len(lv) > 0 {
			n = 0
			for _, l := range lv {
				if mid <= l.per {
					n, shared = l.n, l.shared
					break
				}
			}
		}
		if n == 0 || n > len(profiles.CacheKeys) {
			continue // beyond every cache: DRAM
		}
		key := profiles.CacheKeys[n-1]
		if slices.ContainsFunc(out, func(c CacheLevel) bool { return c.Key == key }) {
			continue // a second plateau in one level: the first, faster one stands
		}
		rounds := levelRounds(pts[s.lo:s.hi])
		out = append(out, CacheLevel{Key: key, Bytes: pts[s.hi-1].Bytes * int64(shared), From: pts[s.lo].Bytes, To: pts[s.hi-1].Bytes,
			Points: s.hi - s.lo, Rounds: rounds, Rate: profiles.SpreadOf(slices.Clone(rounds))})
	}
	prev := int64(0) // per-worker bytes of the level below
	for _, l := range lv {
		key := profiles.CacheKeys[l.n-1]
		lo, hi := prev, l.per
		prev = max(prev, l.per)
		if slices.ContainsFunc(out, func(c CacheLevel) bool { return c.Key == key }) {
			continue
		}
		var in []SweepPoint
		for _, p := range pts {
			if p.Bytes > lo && p.Bytes <= hi {
				in = append(in, p)
			}
		}
		if len(in) == 0 {
			continue
		}
		rounds := levelRounds(in)
		c := CacheLevel{Key: key, Bytes: in[len(in)-1].Bytes * int64(l.shared), From: in[0].Bytes, To: in[len(in)-1].Bytes,
			Points: len(in), Rounds: rounds, Rate: profiles.SpreadOf(slices.Clone(rounds)), NoPlateau: true}
		if c.Rate.Max > dram*(1+plateauTol) {
			out = append(out, c)
		}
	}
	// A level nearer the core that measured slower than one further out (a busy machine's
	// rounds) is kept: Refusals refuses the calibration for it rather than drop a level.
	return slices.SortedFunc(slices.Values(out), func(a, b CacheLevel) int { return strings.Compare(a.Key, b.Key) })
}

// levelRounds is a level's rate in each round of the sweep: the best of its sizes in that
// round (pts' Samples are in round order). The level's spread is over these, the spread
// between rounds, not between the sizes of its plateau.
func levelRounds(pts []SweepPoint) []float64 {
	var out []float64
	for _, p := range pts {
		for r, v := range p.Samples {
			if r == len(out) {
				out = append(out, v)
			}
			out[r] = max(out[r], v)
		}
	}
	return out
}

func (c CacheLevel) String() string {
	return fmt.Sprintf("%s: %d-%d bytes per worker, %d points, median %.4g B/s", c.Key, c.From, c.To, c.Points, c.Rate.Median)
}
