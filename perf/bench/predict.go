package bench

import (
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// Prediction is a case priced against a device profile without running it: what its
// roofline allows on that device. A cell the profile cannot price is NaN, and Note says why.
type Prediction struct {
	Planned
	report.SOL
}

// Predict prices p (its EvalRoofline counts and roof key, from Plan) against prof on basis.
// The pricing is the report's (report.PriceWork), so a prediction and the report's row of
// the same case agree cell for cell.
func Predict(p Planned, prof *profiles.Profile, basis profiles.Basis) Prediction {
	return Prediction{Planned: p, SOL: report.PriceWork(prof, basis, p.Roof, p.Flops, p.Bytes)}
}
