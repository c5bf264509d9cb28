package calibrate

import (
	"slices"

	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/instrument"
	"github.com/ropgen/ropgen/perf/profiles"
)

// The cold mixes (instrument.ColdMixes) are the envelope timed the way the benchmark times
// a row: one call after the eviction. The calibration takes many of their samples, in every
// memory round and after every multiply-add round: the envelope is the best any of them
// reached over most of the calibration, as a row's fastest sample is its best over its run.

// coldPerRound is how many samples of each cold mix one memory round takes.
const coldPerRound = 3

// coldMixes are the cold mixes and the samples the calibration took of them.
type coldMixes struct {
	*instrument.ColdMixes
	mixes   []memMix
	samples [][]float64
}

// newColdMixes prepares the cold mixes on arrays of mib MiB (at most
// instrument.SameTimeArrayMiB), evicting with ev (nil: an evictor of their own).
func newColdMixes(workers, mib int, ev *cold.Evictor) *coldMixes {
	cm := instrument.NewColdMixes(workers, mib, ev)
	return &coldMixes{ColdMixes: cm, mixes: cm.Mixes(), samples: make([][]float64, len(cm.Mixes()))}
}

// round takes k samples of every cold mix, interleaved (one of each, then the next).
func (cm *coldMixes) round(k int) {
	if cm == nil {
		return
	}
	for range k {
		for i, r := range cm.Sample() {
			cm.samples[i] = append(cm.samples[i], r)
		}
	}
}

// results are the cold mixes measured, with their spreads.
func (cm *coldMixes) results() []MixResult {
	var out []MixResult
	for i, mx := range cm.mixes {
		if len(cm.samples[i]) > 0 {
			out = append(out, MixResult{Name: mx.Name, How: mx.How, Reads: mx.Reads, Writes: mx.Writes, Samples: slices.Clone(cm.samples[i]), Rate: profiles.SpreadOf(slices.Clone(cm.samples[i]))})
		}
	}
	return out
}
