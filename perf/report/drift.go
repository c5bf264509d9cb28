package report

import (
	"fmt"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
)

// Drift is one drift reference of a run (a ref.copy record) against the copy ceiling of the
// profile that prices its device. The reference is the calibration's own copy, timed at the
// start and end of the run, so when it is off the profile's copy ceiling by more than the
// spread the profile measured, the machine is not the one the profile describes any more (a
// busier machine, another clock, another boot): every price of the run is off too, and the
// host should be recalibrated.
type Drift struct {
	Rec     *record.Record
	Profile *profiles.Profile
	// Rate is the reference's bandwidth (bytes / median seconds); Ceiling the profile's
	// copy ceiling: the copy mix's best (MixSpreads["copy"].Max), else the envelope's
	// effective value.
	Rate, Ceiling float64
	// Tolerance is relative: the larger of the profile's own spread of that ceiling
	// ((max - min) / median) and the reference's ((slowest - fastest) / median time).
	Tolerance float64
	Off       bool // |Rate - Ceiling| > Tolerance × Ceiling
}

// String is one line for a person: the reference, the ceiling and the verdict.
func (d Drift) String() string {
	verdict := "within the profile's spread"
	if d.Off {
		verdict = "DRIFTED: the machine is not the one the profile measured; recalibrate (ropgen calibrate)"
	}
	return fmt.Sprintf("copy reference at %s: %s, %+.1f%% off the profile's copy ceiling %s (tolerance %.1f%%): %s",
		d.Rec.Workload, Rate(d.Rate, "B/s"), 100*(d.Rate/d.Ceiling-1), Rate(d.Ceiling, "B/s"), 100*d.Tolerance, verdict)
}

// Drifts checks every ref.copy record met by PriceAll or AddReference, in the order met.
// A reference whose profile has no measured copy ceiling is left out.
func (p *Pricer) Drifts() []Drift {
	var out []Drift
	for _, d := range p.order {
		if d.prof == nil {
			continue
		}
		ceiling, spread := copyCeiling(d.prof)
		if ceiling <= 0 {
			continue
		}
		for _, r := range d.refs {
			if r.Seconds <= 0 || r.Bytes <= 0 {
				continue
			}
			lo, hi := r.Spread()
			tol := max(spread, (hi-lo)/r.Seconds)
			rate := float64(r.Bytes) / r.Seconds
			out = append(out, Drift{Rec: r, Profile: d.prof, Rate: rate, Ceiling: ceiling, Tolerance: tol,
				Off: rate < ceiling*(1-tol) || rate > ceiling*(1+tol)})
		}
	}
	return out
}

// copyCeiling returns prof's copy ceiling in bytes/s and its relative spread: the copy mix's
// measured spread when the profile keeps one, else the envelope's effective value and
// spread. 0 when the profile measured neither.
func copyCeiling(prof *profiles.Profile) (ceiling, rel float64) {
	if s, ok := prof.MixSpreads["copy"]; ok && s.Measured() && s.Max > 0 {
		return s.Max, s.Rel()
	}
	if prof.HBM.Calibrated() {
		return prof.HBM.Effective, prof.HBM.Spread.Rel()
	}
	return 0, 0
}

// StaleBoot says why prof was measured on another boot of this machine than bootID (the
// content of /proc/sys/kernel/random/boot_id), or "" when it was measured on this one or
// either is unknown. A reboot can change clocks, memory interleaving and what else runs.
func StaleBoot(prof *profiles.Profile, bootID string) string {
	if prof.Measured.BootID == "" || bootID == "" || prof.Measured.BootID == bootID {
		return ""
	}
	return fmt.Sprintf("profile %s was measured on another boot (boot_id %s, now %s): recalibrate (ropgen calibrate)",
		prof.Name, prof.Measured.BootID, bootID)
}
