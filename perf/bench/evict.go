package bench

import "github.com/ropgen/ropgen/perf/cold"

// Cold timing (package perf/cold): with Options.Evictor set, every case is timed one call a
// sample, after reading a buffer larger than the last-level cache and flushing the case's
// own tensors (EvictFor); the eviction is not timed. The calibration times its envelope
// mixes the same way, so a row and the ceiling it is priced against are measured alike.

// Buffers is an Instance that names the memory of its tensors, so that a cold sample can
// flush exactly those lines from every cache level after reading the eviction buffer
// (cold.Evictor.Before).
type Buffers interface {
	Buffers() [][]byte
}

// EvictFor returns the eviction before a cold sample of in: e's read, then, when in names
// its tensors' memory (Buffers), the flush of exactly those lines.
func EvictFor(e *cold.Evictor, in Instance) func() {
	var bufs [][]byte
	if b, ok := in.(Buffers); ok {
		bufs = b.Buffers()
	}
	return e.Before(bufs)
}
