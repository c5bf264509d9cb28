//go:build (!amd64 && !arm64) || purego

package f32

// best is Go where there is no assembly: another architecture, or the purego build.
const best = Go
