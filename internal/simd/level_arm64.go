//go:build arm64 && !purego

package simd

// best is NEON: Advanced SIMD is in the arm64 baseline, so every arm64 CPU Go runs on has
// it and no feature test is needed.
const best = NEON
