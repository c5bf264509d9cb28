// Package streamtest holds the test inputs of the streaming kernels, shared by the tests of
// internal/stream (the kernels) and of ops (the ops built on them), which check the same
// kernels bit for bit against their Go loops.
package streamtest

import (
	"math"
	"math/rand/v2"
	"unsafe"
)

// Specials are the values whose handling differs between max or IEEE arithmetic
// implementations: NaNs of both signs (quiet and signaling, with payloads), signed zeros,
// infinities, subnormals, and the largest finite magnitudes.
var Specials = []float32{
	math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123),
	math.Float32frombits(0x7f800001), math.Float32frombits(0xff800005),
	float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)),
	math.Float32frombits(1), math.Float32frombits(0x80000001),
	math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff),
	math.MaxFloat32, -math.MaxFloat32, 1, -1,
}

// Data returns n values: uniform in [-2, 2) with one in four a special value.
func Data(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		if r.IntN(4) == 0 {
			x[i] = Specials[r.IntN(len(Specials))]
		} else {
			x[i] = r.Float32()*4 - 2
		}
	}
	return x
}

// Aligned64 returns a slice of n elements of a fresh buffer starting mis elements past a
// 64-byte boundary.
func Aligned64(n, mis int) []float32 {
	buf := make([]float32, n+mis+16)
	off := int(-uintptr(unsafe.Pointer(&buf[0]))%64) / 4
	return buf[off+mis : off+mis+n]
}
