package ops

import (
	"github.com/ropgen/ropgen/internal/asm/f32"
	"github.com/ropgen/ropgen/internal/simd"
)

// The SIMD kernels and their dispatch are internal/asm/f32's (its entry points, the same on
// every architecture, pick the kernel of the level in use): each does the full vectors of
// its input and returns how many elements it did; its caller's Go loop here does the rest,
// and the same Go loop over everything is the fallback where no SIMD level is available
// (another architecture, the purego build) and the reference the kernels are tested against
// (simd_test.go). A kernel that may stop at a vector is handed the Go element function
// that finishes it, so each op's definition stays here.

// SIMD levels: which kernels run (SetSIMD). They are internal/simd's levels, which pick
// internal/asm/f32's kernels and internal/stream's alike: 1 is the Go loops
// everywhere, 2 the first vector level (AVX2 on amd64, NEON on arm64), 3 AVX-512 (amd64
// only), so "simd=1 against simd=2" is the same comparison on both.
const (
	// SIMDGo runs the Go loops only (and the SSE streaming kernels, which are the amd64
	// baseline).
	SIMDGo = simd.Go
	// SIMDAVX2 runs the 8-lane AVX2+FMA kernels.
	SIMDAVX2 = simd.AVX2
	// SIMDAVX512 runs the 16-lane AVX-512 kernels.
	SIMDAVX512 = simd.AVX512
	// SIMDNEON runs the 4-lane NEON kernels of arm64: level 2 there.
	SIMDNEON = simd.NEON
)

// simdNames are the names ROPGEN_SIMD takes on this architecture, by level.
var simdNames = simd.Names()

// simdName returns the name of level l on this architecture ("" for none).
func simdName(l int) string { return simd.Name(l) }

// envSIMD returns the level ROPGEN_SIMD asks for (simd.EnvLevel).
func envSIMD(v string) int { return simd.EnvLevel(v) }

// cpuSIMD is the CPU's best level (simd.Best: SIMDGo in a purego build).
var cpuSIMD = simd.Best()

// simdLevel returns the level in use: the CPU's best, unless the environment variable
// ROPGEN_SIMD (go, avx2 or avx512; go or neon on arm64) or SetSIMD lowered it.
func simdLevel() int { return simd.Level() }

// SIMD returns the SIMD level the kernels use now and the CPU's best.
func SIMD() (now, best int) { return simd.Level(), simd.Best() }

// SetSIMD makes the kernels use SIMD level at most level (SIMDGo..SIMDAVX512; a level
// above the CPU's best means the best) and returns the function that restores the previous
// one: for A/B comparisons (ropbench ab -a simd=1 -b simd=2) and tests. It is not safe to
// call while kernels run.
func SetSIMD(level int) (restore func()) { return simd.SetLevel(level) }

// The one-input kernels without parameters, by index, for f32.Unary and f32.UnaryNT.
const (
	uExp       = f32.UnaryExp
	uSigmoid   = f32.UnarySigmoid
	uSilu      = f32.UnarySilu
	uTanh      = f32.UnaryTanh
	uGelu      = f32.UnaryGelu
	uGeluErf   = f32.UnaryGeluErf
	uSoftplus  = f32.UnarySoftplus
	uMish      = f32.UnaryMish
	uHardswish = f32.UnaryHardswish
	uRelu      = f32.UnaryRelu
	nUnary     = f32.NUnary
)

// unaryScalar are their Go element functions: the loops' and the fallback of a vector
// the kernel leaves out.
var unaryScalar = [nUnary]func(float32) float32{
	uExp: expf, uSigmoid: sigmoidf, uSilu: siluf, uTanh: tanhf, uGelu: geluf,
	uGeluErf: geluErf, uSoftplus: softplus, uMish: mish, uHardswish: hardswish,
	uRelu: func(v float32) float32 { return max(v, 0) },
}

// unaryLoop returns the in-cache kernel of unary k: the vector kernel over the full vectors,
// the Go function over the rest.
func unaryLoop(k int) func(y, x []float32) {
	f := unaryScalar[k]
	return func(y, x []float32) {
		i := f32.Unary(k, y, x, f)
		y, x = y[i:len(x)], x[i:]
		for i, v := range x {
			y[i] = f(v)
		}
	}
}

// unaryStreamed returns the kernel of unary k for x (nil: Forward reports it): unaryLoop,
// and for a large output one whose aligned lines are streamed (f32.UnaryNT).
func unaryStreamed(k int, x *Tensor) func(y, x []float32) {
	return streamed(x, func(y, x []float32) (int, int) { return f32.UnaryNT(k, y, x, unaryScalar[k]) }, unaryLoop(k))
}
