// Package simd is the SIMD level that picks the kernels: the CPU's best (its features and
// the OS's saved register state), lowered by ROPGEN_SIMD or SetLevel for A/B arms and tests.
// The catalog's vector kernels (internal/asm/f32, which dispatches them) and the
// streaming loops (internal/stream) read this one level, so an arm set to "go" runs no
// vector code in either.
package simd
