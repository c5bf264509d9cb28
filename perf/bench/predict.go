package bench

import (
	"math"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/roofline"
)

// Prediction is a case priced against a device profile without running it: what its
// roofline allows on that device. A cell the profile cannot price is NaN, and Note says why.
type Prediction struct {
	Planned
	Intensity   float64        // FLOP per byte
	Ridge       float64        // the intensity where the roof's slope meets its peak
	Bound       roofline.Bound // which ceiling caps the case
	MemoryTime  float64        // seconds: bytes at the HBM ceiling
	ComputeTime float64        // seconds: FLOPs at the roof's peak
	SOLTime     float64        // seconds: the larger of the two (speed of light)
	Attainable  float64        // FLOP/s the roofline allows at this intensity
	PeakShare   float64        // Attainable / peak, in [0, 1]
	Note        string
}

// Predict prices p (its EvalRoofline counts and roof key, from Plan) against prof on basis:
// the HBM ceiling and the compute ceiling of p's roof key. The arithmetic is package
// roofline's.
func Predict(p Planned, prof *profiles.Profile, basis profiles.Basis) Prediction {
	nan := math.NaN()
	pr := Prediction{Planned: p, Intensity: nan, Ridge: nan, MemoryTime: nan, ComputeTime: nan,
		SOLTime: nan, Attainable: nan, PeakShare: nan}
	bw, okBW := prof.Resolve(profiles.HBMKey, basis)
	peak, okPeak := prof.Resolve(p.Roof, basis)
	flops, bytes := float64(p.Flops), float64(p.Bytes)
	switch {
	case !okBW:
		pr.Note = prof.Why(profiles.HBMKey, basis)
		return pr
	case p.Bytes == 0:
		pr.Note = "bytes is zero: no intensity to price"
		return pr
	}
	pr.Intensity = flops / bytes
	if !okPeak {
		// The memory floor stands on its own; without the peak nothing else does.
		_, pr.MemoryTime = roofline.TimeFloors(flops, bytes, 1, bw)
		pr.Note = prof.Why(p.Roof, basis)
		return pr
	}
	pr.Ridge = roofline.Ridge(peak, bw)
	pr.Bound = roofline.Classify(pr.Intensity, peak, bw)
	pr.ComputeTime, pr.MemoryTime = roofline.TimeFloors(flops, bytes, peak, bw)
	pr.SOLTime = max(pr.ComputeTime, pr.MemoryTime)
	pr.Attainable = roofline.Attainable(pr.Intensity, peak, bw)
	pr.PeakShare = pr.Attainable / peak
	return pr
}
