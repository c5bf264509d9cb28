// Package roofline is the arithmetic of the roofline model that the report builds on: the
// ridge point, attainable rate and bound of an intensity, the time floors of a piece of work,
// and, for a matrix multiply, the traffic of a tiled schedule between a slow and a fast memory
// level, from which the tile and batch sizes that reach the ridge follow.
//
// Conventions: one multiply-add is 2 FLOPs (as vendors count peaks); rates are FLOP/s and
// bytes/s; intensity is FLOP per byte. It is a Go port of the lesson's reference arithmetic
// (reference/roofline-lesson.py), with the same results.
package roofline

import (
	"math"
)

// Bound names the term that limits a piece of work.
type Bound string

// The two bounds.
const (
	MemoryBound  Bound = "memory-bound"
	ComputeBound Bound = "compute-bound"
)

// MatmulFlops is the FLOP count of C[m,n] = A[m,k] · B[k,n]: m·n·k multiply-adds.
func MatmulFlops(m, n, k int64) int64 { return 2 * m * n * k }

// GemmIntensity is the best-case intensity of the multiply, every element moving once. It
// works in float64 so that a large batch (BatchToReachRidge probes some) cannot overflow.
func GemmIntensity(m, n, k, elemBytes int64) float64 {
	fm, fn, fk := float64(m), float64(n), float64(k)
	return 2 * fm * fn * fk / ((fm*fk + fk*fn + fm*fn) * float64(elemBytes))
}

// Ridge is the intensity at which the memory slope meets the flat compute roof.
func Ridge(peakFlops, bandwidth float64) float64 { return peakFlops / bandwidth }

// Attainable is the roofline itself: min(peak, bandwidth × intensity) FLOP/s.
func Attainable(intensity, peakFlops, bandwidth float64) float64 {
	return min(peakFlops, bandwidth*intensity)
}

// Classify says which roof caps an intensity. Exactly at the ridge both do; that counts as
// compute-bound, since the point sits on the flat roof.
func Classify(intensity, peakFlops, bandwidth float64) Bound {
	if intensity < Ridge(peakFlops, bandwidth) {
		return MemoryBound
	}
	return ComputeBound
}

// TimeFloors returns the two lower bounds on run time in seconds: the math alone and the
// traffic alone. They overlap, so a run takes at least the larger.
func TimeFloors(flops, bytes, peakFlops, bandwidth float64) (compute, memory float64) {
	return flops / peakFlops, bytes / bandwidth
}

// Traffic counts what a matrix multiply schedule moves between slow and fast memory, in
// elements, and the FLOPs it does.
type Traffic struct {
	Loads  int64 // elements read from slow memory
	Stores int64 // elements written to slow memory
	Flops  int64
}

// Bytes is the traffic in bytes for elements of elemBytes each.
func (t Traffic) Bytes(elemBytes int64) int64 { return (t.Loads + t.Stores) * elemBytes }

// Intensity is FLOP per byte of traffic.
func (t Traffic) Intensity(elemBytes int64) float64 {
	return float64(t.Flops) / float64(t.Bytes(elemBytes))
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// TiledTraffic is the traffic of the tiled schedule, each output tile held in fast memory
// while the walk along k loads one A tile and one B tile per step (the tests count it with a
// tiled multiply): every A element is loaded once
// per column of output tiles, ceil(n/b) times, every B element once per row, ceil(m/b) times.
func TiledTraffic(m, n, k, b int64) Traffic {
	return Traffic{
		Loads:  ceilDiv(n, b)*m*k + ceilDiv(m, b)*k*n,
		Stores: m * n,
		Flops:  MatmulFlops(m, n, k),
	}
}

// FastBytesNeeded is the fast memory one step needs: an A, a B and a C tile together.
func FastBytesNeeded(b, elemBytes int64) int64 { return 3 * b * b * elemBytes }

// MaxTile is the largest tile b with FastBytesNeeded(b, elemBytes) <= fastBytes.
func MaxTile(fastBytes, elemBytes int64) int64 { return isqrt(fastBytes / (3 * elemBytes)) }

// isqrt is the floor of the square root, exact for every int64 (a float root alone can be one
// off near perfect squares).
func isqrt(x int64) int64 {
	if x <= 0 {
		return 0
	}
	// Compare by division, not squaring: (r+1)² overflows near MaxInt64.
	r := int64(math.Sqrt(float64(x)))
	for r > x/r {
		r--
	}
	for r+1 <= x/(r+1) {
		r++
	}
	return r
}

// TiledIntensity is the intensity of an n×n×n multiply with b×b tiles:
// 2n³ / ((2n³/b + n²)·s) when b divides n.
func TiledIntensity(n, b, elemBytes int64) float64 {
	return TiledTraffic(n, n, n, b).Intensity(elemBytes)
}

// RidgeTileFractional is the smallest b whose tiled intensity, (b/s) / (1 + b/2n), reaches
// the ridge if the tile count per side could be fractional: it keeps the cost of storing C
// but not the whole-tile effect, so it sits between the rule of thumb s × ridge and
// SmallestTileForRidge.
func RidgeTileFractional(n, elemBytes int64, peakFlops, bandwidth float64) float64 {
	sr := float64(elemBytes) * Ridge(peakFlops, bandwidth)
	return sr / (1 - sr/(2*float64(n)))
}

// SmallestTileForRidge is the smallest tile b in [1, n] at which an n×n×n tiled multiply is no
// longer memory-bound; ok is false when even one tile covering everything stays below the
// ridge. The answer exceeds s × ridge: storing C adds traffic, and the tile count per side is
// whole (at n = 4096 on the A100, 13 tiles per side fall short, so b = ceil(4096/12) = 342).
func SmallestTileForRidge(n, elemBytes int64, peakFlops, bandwidth float64) (b int64, ok bool) {
	r := Ridge(peakFlops, bandwidth)
	reaches := func(b int64) bool { return TiledIntensity(n, b, elemBytes) >= r }
	if n < 1 || !reaches(n) {
		return 0, false
	}
	// Loads fall as b grows (ceil(n/b) never rises), so the intensity never falls: bisect.
	lo, hi := int64(1), n
	for lo < hi {
		mid := lo + (hi-lo)/2
		if reaches(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}

// BatchToReachRidge is the smallest token count m at which (m×k)·(k×n) is no longer
// memory-bound. ok is false when no m reaches the ridge: as m grows the intensity rises
// toward 2nk / ((n+k)·s) and never beyond.
func BatchToReachRidge(n, k, elemBytes int64, peakFlops, bandwidth float64) (m int64, ok bool) {
	r := Ridge(peakFlops, bandwidth)
	reaches := func(m int64) bool { return GemmIntensity(m, n, k, elemBytes) >= r }
	// intensity(m) >= r  ⟺  m·(2nk − r·s·(n+k)) >= r·s·n·k.
	s, fn, fk := float64(elemBytes), float64(n), float64(k)
	den := 2*fn*fk - r*s*(fn+fk)
	if den <= 0 {
		return 0, false
	}
	est := math.Ceil(r * s * fn * fk / den)
	if est > 1<<53 { // beyond any batch, and beyond exact float64 integers
		return 0, false
	}
	// The closed form is exact in reals; step off float rounding with the defining test.
	m = max(1, int64(est))
	for m > 1 && reaches(m-1) {
		m--
	}
	for !reaches(m) {
		m++
	}
	return m, true
}

// WeightReadSeconds is the time to read every weight of a model once: the floor of one
// decoding step.
func WeightReadSeconds(params float64, elemBytes int64, bandwidth float64) float64 {
	return params * float64(elemBytes) / bandwidth
}

// DecodeTokensPerSecond bounds one decoding request from above when each token reads every
// weight once; the attention cache each token also reads is ignored.
func DecodeTokensPerSecond(params float64, elemBytes int64, bandwidth float64) float64 {
	return 1 / WeightReadSeconds(params, elemBytes, bandwidth)
}
