//go:build (!amd64 && !arm64) || purego

package simd

// best is Go where there is no assembly: another architecture, or the purego build.
const best = Go
