package simd

import (
	"os"
	"runtime"
)

// SIMD levels: which kernels run (SetLevel). The levels rank the kernels of one
// architecture: Go is the Go loops everywhere, 2 the first vector level (AVX2 on amd64,
// NEON on arm64), AVX512 the widest (amd64 only), so "level 1 against level 2" is the same
// comparison on both.
const (
	// Go runs the Go loops only (and on amd64 the SSE streaming kernels, which are the
	// amd64 baseline).
	Go = 1
	// AVX2 runs the 8-lane AVX2+FMA kernels.
	AVX2 = 2
	// AVX512 runs the 16-lane AVX-512 kernels.
	AVX512 = 3
	// NEON runs the 4-lane NEON kernels of arm64: level 2 there.
	NEON = 2
)

// names are the names ROPGEN_SIMD takes on this architecture, by level.
var names = func() map[string]int {
	if runtime.GOARCH == "arm64" {
		return map[string]int{"go": Go, "neon": NEON}
	}
	return map[string]int{"go": Go, "avx2": AVX2, "avx512": AVX512}
}()

// Names returns the names ROPGEN_SIMD takes on this architecture and their levels.
func Names() map[string]int {
	m := make(map[string]int, len(names))
	for k, v := range names {
		m[k] = v
	}
	return m
}

// Name returns the name of level l on this architecture ("" for none).
func Name(l int) string {
	for name, v := range names {
		if v == l {
			return name
		}
	}
	return ""
}

// level is the level in use: the CPU's best, unless the environment variable ROPGEN_SIMD
// (go, avx2 or avx512; go or neon on arm64) or SetLevel lowered it.
var level = EnvLevel(os.Getenv("ROPGEN_SIMD"))

// EnvLevel returns the level ROPGEN_SIMD=v asks for, capped at the CPU's; the CPU's best
// when v is empty or not a level's name.
func EnvLevel(v string) int {
	l, ok := names[v]
	if !ok {
		return best
	}
	return min(l, best)
}

// Level returns the SIMD level the kernels use now.
func Level() int { return level }

// Best returns the CPU's best level: Go in a purego build.
func Best() int { return best }

// SetLevel makes the kernels use SIMD level at most l (Go..AVX512; a level above the CPU's
// best means the best) and returns the function that restores the previous one: for A/B
// comparisons and tests. It is not safe to call while kernels run.
func SetLevel(l int) (restore func()) {
	prev := level
	level = max(Go, min(l, best))
	return func() { level = prev }
}
