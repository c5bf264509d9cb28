package bench

import (
	"unsafe"

	"github.com/ropgen/ropgen/perf/cold"
)

// Cold timing (package perf/cold): with Options.Evictor set, every case is timed one call a
// sample, after reading a buffer larger than the last-level cache and flushing the case's
// own tensors (EvictFor); the eviction is not timed. The calibration times its envelope
// mixes the same way, so a row and the ceiling it is priced against are measured alike.

// Buffers is an Instance that names the memory of its tensors, so that a cold sample can
// flush exactly those lines from every cache level after reading the eviction buffer
// (cold.Evictor.Before). Without it a DRAM-sized case can read lines its warm-up left in an
// adaptive last-level cache, and run warns. Memory hands over a slice of any element type:
//
//	func (in *instance) Buffers() [][]byte { return [][]byte{bench.Memory(in.x), bench.Memory(in.y)} }
type Buffers interface {
	Buffers() [][]byte
}

// Number is an element type whose memory Memory can name: no pointers, so that the bytes
// say nothing the garbage collector must know of.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Memory returns the memory of s as bytes, for Buffers: the same memory, not a copy, so the
// flush reaches the lines the kernel reads. The eviction only flushes it; nothing writes
// through the result.
func Memory[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
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
