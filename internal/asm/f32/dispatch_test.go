package f32

import (
	"testing"
	"unsafe"

	"github.com/ropgen/ropgen/internal/simd"
)

// The helpers of the entry points' own tests. The kernels' values are tested against the
// ops' Go element functions in package ops (simd_test.go), at every level
// (scripts/test-ops-levels.sh); these tests check what only this package can reach: the
// raw kernels behind the entry points.

// unaryNames are the names of the unaries, by index, for the tests' messages.
var unaryNames = [NUnary]string{"exp", "sigmoid", "silu", "tanh", "gelu", "gelu_erf", "softplus", "mish", "hardswish", "relu"}

// eachLevel runs f as a subtest at each SIMD level above simd.Go that this CPU has, and
// skips where there is none.
func eachLevel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	if simd.Best() == simd.Go {
		t.Skip("no SIMD level on this CPU: only the Go loops run")
	}
	for l := simd.Go + 1; l <= simd.Best(); l++ {
		t.Run(simd.Name(l), func(t *testing.T) {
			defer simd.SetLevel(l)()
			f(t)
		})
	}
}

// aligned64 returns n float32s starting on a 64-byte boundary, as the streamed kernels'
// outputs must.
func aligned64(n int) []float32 {
	buf := make([]float32, n+16)
	off := int(-uintptr(unsafe.Pointer(&buf[0]))%64) / 4
	return buf[off : off+n]
}
