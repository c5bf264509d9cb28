package calibrate

import (
	"slices"

	"github.com/ropgen/ropgen/internal/stream"
	"github.com/ropgen/ropgen/perf/instrument"
	"github.com/ropgen/ropgen/perf/profiles"
)

// memMix is one memory access pattern: the instrument's (perf/instrument), which owns the
// copy and triad mixes that the same-time reference and the drift reference share with the
// calibration; the read and write mixes are the calibration's own.
type memMix = instrument.Mix

// elemBytes is the size of the mixes' elements.
const elemBytes = instrument.ElemBytes

// triadScalar is the value the write mixes store (instrument.TriadScalar).
const triadScalar = instrument.TriadScalar

func keep(v float64) { instrument.Keep(v) }

// goMixes are the portable read and write mixes: what Go code reaches without assembly.
var goMixes = []memMix{
	{Name: "read", Reads: 1, Writes: 0, How: "s += a[i], Go loop, 8 sums", Kernel: func(a, _, _ []float32) float64 { return float64(stream.SumGo(a)) }},
	{Name: "write", Reads: 0, Writes: 1, How: "a[i] = s, Go loop", Kernel: func(a, _, _ []float32) float64 { writeGo(a); return 0 }},
}

// mixes are the mixes this host measures, in profiles.Mixes order: the instrument's copy and
// triad mixes, then the assembly read and write mixes where the CPU has them, the Go ones
// for the rest.
func mixes() []memMix { return instrument.Ordered(instrument.StreamMixes(), simdMixes(), goMixes) }

// writeGo writes a non-zero value, so the loop is not turned into a memclr.
func writeGo(a []float32) { stream.FillGo(a, triadScalar) }

// measureMixes times every mix cfg.Repeats times in interleaved rounds (round 1 of every
// mix, then round 2, ...), so a change of machine load affects all mixes alike instead of
// the ones measured last; each round also takes coldPerRound samples of the cold mixes cm
// (which keeps them: see coldMixes.results).
func measureMixes(cfg Config, cm *coldMixes) []MixResult {
	n := cfg.ArrayMiB << 20 / elemBytes
	a, b, c := instrument.Arrays(cfg.Workers, n)
	ms := mixes()
	samples := make([][]float64, len(ms))
	for range cfg.Repeats {
		for i, mx := range ms {
			samples[i] = append(samples[i], instrument.TimeMix(cfg.Workers, mx, a, b, c))
		}
		cm.round(coldPerRound)
	}
	out := make([]MixResult, len(ms))
	for i, mx := range ms {
		out[i] = MixResult{Name: mx.Name, How: mx.How, Reads: mx.Reads, Writes: mx.Writes, Samples: slices.Clone(samples[i]), Rate: profiles.SpreadOf(samples[i])}
	}
	return out
}
