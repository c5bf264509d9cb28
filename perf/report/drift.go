package report

import (
	"fmt"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
)

// DriftCap is the largest drift tolerance, whatever the spreads: a profile whose copy
// ceiling its own rounds put 100% apart would otherwise pass any reference, and the report's
// at-ceiling band (80-105%) is a quarter of the roof wide, so a machine more than a quarter
// off the profile moves rows across every line of it.
const DriftCap = 0.25

// Drift is one drift reference of a run (a ref.copy record) against the copy ceiling of the
// profile that prices its device. The reference is the calibration's own copy, timed at the
// start and end of the run, so when it is off the profile's copy ceiling by more than the
// spread the profile measured (at most DriftCap), the machine is not the one the profile
// describes any more (a busier machine, another clock, another boot): every price of the run
// is off too, and the host should be recalibrated. A reference timed on another device than
// the profile's (pricing one machine's records on another's profile, a what-if) is no drift
// check: OtherDevice, never Off.
type Drift struct {
	Rec     *record.Record
	Profile *profiles.Profile
	// Rate is the reference's bandwidth (bytes / median seconds); Ceiling what the profile
	// says the same copy streams at: the copy mix's median round (MixSpreads["copy"].Median,
	// the statistic the reference is, of the same kernel on the same sizes), else the
	// envelope's effective value. Of names it ("copy median", "copy ceiling").
	Rate, Ceiling float64
	Of            string
	// Tolerance is relative: the larger of the profile's own spread of that ceiling
	// ((max - min) / median) and the reference's ((slowest - fastest) / median time), at
	// most DriftCap.
	Tolerance   float64
	OtherDevice bool // the reference's device is not the profile's
	Off         bool // same device, and |Rate - Ceiling| > Tolerance × Ceiling
}

// String is one line for a person: the reference, the ceiling and the verdict.
func (d Drift) String() string {
	if d.OtherDevice {
		return fmt.Sprintf("copy reference at %s: %s on device %q, another device than profile %s's (%q): not compared with its copy ceiling",
			d.Rec.Workload, Rate(d.Rate, "B/s"), d.Rec.Device, d.Profile.Name, d.Profile.Device)
	}
	verdict := "within the profile's spread"
	if d.Off {
		verdict = "DRIFTED: the machine is not the one the profile measured; recalibrate (ropgen calibrate)"
	}
	return fmt.Sprintf("copy reference at %s: %s, %+.1f%% off the profile's %s %s (tolerance %.1f%%%s): %s",
		d.Rec.Workload, Rate(d.Rate, "B/s"), 100*(d.Rate/d.Ceiling-1), d.Of, Rate(d.Ceiling, "B/s"), 100*d.Tolerance, d.capped(), verdict)
}

// capped says when the tolerance is the cap rather than the spreads.
func (d Drift) capped() string {
	if d.Tolerance >= DriftCap {
		return ", the cap: the spreads allow more"
	}
	return ""
}

// Drifts checks every ref.copy record met by PriceAll or AddReference, in the order met.
// A reference whose profile has no measured copy ceiling is left out.
func (p *Pricer) Drifts() []Drift {
	var out []Drift
	for _, d := range p.order {
		out = append(out, d.drifts()...)
	}
	return out
}

// drifts checks the ref.copy records of d.
func (d *device) drifts() []Drift {
	if d.prof == nil {
		return nil
	}
	ceiling, spread, of := copyCeiling(d.prof)
	if ceiling <= 0 {
		return nil
	}
	var out []Drift
	for _, r := range d.refs {
		if r.Seconds <= 0 || r.Bytes <= 0 {
			continue
		}
		lo, hi := r.Spread()
		tol := driftTolerance(spread, (hi-lo)/r.Seconds)
		rate := float64(r.Bytes) / r.Seconds
		dr := Drift{Rec: r, Profile: d.prof, Rate: rate, Ceiling: ceiling, Of: of, Tolerance: tol, OtherDevice: !d.prof.Matches(r.Device)}
		dr.Off = !dr.OtherDevice && (rate < ceiling*(1-tol) || rate > ceiling*(1+tol))
		out = append(out, dr)
	}
	return out
}

// driftTolerance is how far (relative) a reference may sit off the profile's rate of it
// before the machine counts as another: the larger of the profile's spread of that rate and
// the reference's own, at most DriftCap. The run's copy reference (Drift) and a row's
// same-time reference (Contention) are held to it alike.
func driftTolerance(profileRel, ownRel float64) float64 {
	return min(DriftCap, max(profileRel, ownRel))
}

// driftOf is the first drifted reference of d's run in file (a reference read from no file
// stands for every run), or nil: the rows of a run whose reference drifted are not priced
// against the profile (Pricer.Price).
func (d *device) driftOf(file string) *Drift {
	for _, dr := range d.drifts() {
		if dr.Off && (dr.Rec.Pos.File == "" || file == "" || dr.Rec.Pos.File == file) {
			return &dr
		}
	}
	return nil
}

// copyCeiling returns the rate in bytes/s that prof says the drift reference streams at,
// its relative spread and its name: the copy mix's median round when the profile keeps its
// rounds, since the reference is a median of the same kernel's passes on the same sizes (its
// best round would sit a spread above every typical reference, and a machine whose rounds
// spread by a fifth would read as drifted on a quiet run); else the envelope's effective
// value and spread. 0 when the profile measured neither.
func copyCeiling(prof *profiles.Profile) (ceiling, rel float64, of string) {
	if s, ok := prof.MixSpreads["copy"]; ok && s.Measured() && s.Median > 0 {
		return s.Median, s.Rel(), "copy median"
	}
	if prof.HBM.Calibrated() {
		return prof.HBM.Effective, prof.HBM.Spread.Rel(), "copy ceiling"
	}
	return 0, 0, ""
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

// Price prices one record. The returned row points at rec. A reference record (ref.copy,
// ref.floor) is not a row: PriceAll sets it aside; priced here, it is priced as any record.
//
// A row of a run whose copy reference drifted off the profile (Drift.Off) is priced, its
// Drift set and its note saying so. A row with a reference timed in its own moments (a
// memory-bound row's same-time reference, a compute-bound row's compute probe) is judged
// against it, the machine as it was while the row ran, not against the profile's level;
// its efficiency column stays the profile's. Any other row's judged interval is widened to
// every level the run's copy references put the machine at (between the profile and the
// farthest reference), so it reads at ceiling or below only when that holds wherever in
// between the machine was, and inconclusive otherwise. With PriceDrifted no interval is
// widened: every row is judged against the profile as if nothing drifted. The theoretical
// ceilings still judge every row: on a host without a datasheet they are perf/calibrate's
// estimate, set well above the calibration's best round, farther than a drift the
// calibration's refusals let through.
func (p *Pricer) Price(rec *record.Record) Row {
	d := p.device(rec.Device)
	var dr *Drift
	if d.prof != nil {
		dr = d.driftOf(rec.Pos.File)
	}
	row := p.price(rec, dr)
	if row.Profile == nil || dr == nil {
		return row
	}
	row.Drift = dr
	if row.Note != "" {
		row.Note += "; "
	}
	row.Note += fmt.Sprintf("priced under drift: the run's copy reference at %s ran %+.0f%% off the profile's %s (tolerance %.0f%%)", dr.Rec.Workload, 100*(dr.Rate/dr.Ceiling-1), dr.Of, 100*dr.Tolerance)
	switch {
	case !Blank(row.Machine) && !p.PriceDrifted:
		row.Note += fmt.Sprintf("; its verdict judges it against its same-time reference (the machine at %s of the calibration's best while it ran)", Percent(row.Machine))
	case row.sameTimeJudged() && !p.PriceDrifted:
		row.Note += fmt.Sprintf("; its verdict judges it against its compute probe (the machine at %s of the calibration's best while it ran)", Percent(row.Probe))
	}
	return row
}

// driftRange is the range of levels, as fractions of the profile's copy median, that the
// copy references of the run in file (a reference read from no file stands for every run)
// and the profile itself put the machine at: [min(1, rates), max(1, rates)].
func (d *device) driftRange(file string) (lo, hi float64) {
	lo, hi = 1, 1
	for _, dr := range d.drifts() {
		if !dr.OtherDevice && (dr.Rec.Pos.File == "" || file == "" || dr.Rec.Pos.File == file) {
			f := dr.Rate / dr.Ceiling
			lo, hi = min(lo, f), max(hi, f)
		}
	}
	return lo, hi
}

// DriftedRows counts the rows of a run whose copy reference drifted (Row.Drift).
func DriftedRows(rows []Row) int {
	n := 0
	for i := range rows {
		if rows[i].Drift != nil {
			n++
		}
	}
	return n
}
