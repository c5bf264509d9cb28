//go:build amd64 && !purego

package simd

import "github.com/klauspost/cpuid/v2"

// best is the CPU's best level, from CPUID and the OS's saved register state (through
// klauspost/cpuid, which reports a feature only when the OS also saves its registers:
// XGETBV, ymm state for AVX2, zmm for AVX-512; the /proc/cpuinfo flags do not promise it).
// AVX512 also needs AVX512DQ, for VRANGEPS, the one-instruction exact max and min of the
// reductions; every AVX-512 CPU but the Xeon Phi has it.
var best = func() int {
	avx2 := cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3)
	switch {
	case avx2 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ):
		return AVX512
	case avx2:
		return AVX2
	}
	return Go
}()
