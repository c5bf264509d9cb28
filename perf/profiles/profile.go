// Package profiles holds device profiles: the memory and compute ceilings a report prices
// benchmark records against (docs/model.md §4). A profile file stores theoretical values and
// measured calibration factors; the loader computes effective = theoretical × calibration. A
// ceiling with no calibration has no effective value: resolving it says "none" rather than
// inventing one, so the report leaves that cell blank.
//
// The shipped profiles are embedded; a profile can also be loaded from a path (the host
// profile that `ropgen calibrate` measures is one).
package profiles

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ropgen/ropgen/perf/stats"
)

// Basis selects which ceiling prices a row: the measured (effective) one by default, or the
// datasheet (theoretical) one on request.
type Basis string

// The two bases.
const (
	Effective   Basis = "effective"
	Theoretical Basis = "theoretical"
)

// ParseBasis returns the basis named s.
func ParseBasis(s string) (Basis, error) {
	switch b := Basis(s); b {
	case Effective, Theoretical:
		return b, nil
	}
	return "", fmt.Errorf("unknown basis %q: want %q or %q", s, Effective, Theoretical)
}

// HBMKey is the roof key of the memory ceiling; compute keys are "<unit>.<dtype>".
const HBMKey = "hbm"

// Mixes are the memory access mixes a bandwidth calibration measures, in file order. The
// "_nt" mixes store with non-temporal (streaming) stores, as the catalog's streaming kernels
// do: they skip the read a store miss otherwise costs, so they move more counted bytes. The
// "_cold" mixes are a copy and a triad timed as the benchmark times a row: one cold call a
// sample, after the same eviction (package perf/instrument, sametime.go).
var Mixes = []string{"copy", "copy_nt", "triad", "triad_nt", "read", "write", "write_nt", CopyCold, TriadCold}

// The cold mixes' names: the patterns a same-time reference can pair with a row.
const (
	CopyCold  = "copy_cold"
	TriadCold = "triad_cold"
)

// RefPatterns are the patterns a same-time reference can pair with a row (the cold mixes),
// in order of preference: the reference is the first of them measured. One pattern, fixed
// by this order and never by which ran faster: a calibration's two patterns sit within a
// few percent of each other, and the faster one changed from one calibration to the next
// on the same host, so a rule that picks the faster paired rows with one pattern in one run
// and the other in the next, and divided by the other's calibrated rate when the bench and
// the report decided apart. triad_cold comes first: its mix is the envelope's on the hosts
// measured so far, so a row's judged figure is its rate over the reference with no ratio
// of two patterns' best rounds between them, and it is AddFwd's pattern (two streamed
// reads, one streamed write), the physics check's planted error (docs/report.md).
var RefPatterns = []string{TriadCold, CopyCold}

// RefPattern returns the same-time reference's pattern among names (the patterns a
// reference timed, or a profile measured): the first of RefPatterns in names, with its index
// in names; "" and -1 when names hold none.
func RefPattern(names []string) (string, int) {
	for _, p := range RefPatterns {
		if i := slices.Index(names, p); i >= 0 {
			return p, i
		}
	}
	return "", -1
}

// RefSpread returns the pattern of p's same-time reference (RefPattern among the mixes p
// measured) and its calibrated spread; "" and the zero Spread when p measured none.
func (p *Profile) RefSpread() (string, Spread) {
	if p == nil {
		return "", Spread{}
	}
	var measured []string
	for _, k := range RefPatterns {
		if p.MixSpreads[k].Measured() || p.MixFractions[k] > 0 {
			measured = append(measured, k)
		}
	}
	name, _ := RefPattern(measured)
	return name, p.MixSpreads[name]
}

// CacheKeys are the cache levels a calibration's working-set sweep can report, in order.
var CacheKeys = []string{"l1", "l2", "l3"}

// Spread summarizes a repeated measurement, in the unit of the value it measures.
type Spread struct {
	Min, Median, Max float64
	N                int // repetitions; 0 when not measured
}

// Measured reports whether the spread holds a measurement.
func (s Spread) Measured() bool { return s.N > 0 }

// Rel is the spread's width relative to its median, (Max-Min)/Median; 0 when not measured.
func (s Spread) Rel() float64 {
	if s.N == 0 || s.Median <= 0 {
		return 0
	}
	return (s.Max - s.Min) / s.Median
}

// SpreadOf summarizes samples (which it sorts); its median is stats.Median's. An empty slice gives
// the zero Spread.
func SpreadOf(samples []float64) Spread {
	n := len(samples)
	if n == 0 {
		return Spread{}
	}
	slices.Sort(samples)
	return Spread{Min: samples[0], Median: stats.Median(samples), Max: samples[n-1], N: n}
}

// RateUnit is the unit of a compute roof key's ceiling in prose: "op/s" for an integer
// dtype (int8 multiply-adds count 2 operations each, as FLOPs do, but they are no floating
// point), else "FLOP/s".
func RateUnit(key string) string {
	if _, dt, _ := strings.Cut(key, "."); strings.HasPrefix(dt, "int") {
		return "op/s"
	}
	return "FLOP/s"
}

// ComputeTolerance is the relative spread, (max-min)/median, a compute roof's rounds may
// have. The report's "at ceiling" band is 80-105% of the ceiling: a ceiling that moves by
// more than a tenth between repetitions can carry a row across one of those lines on its own
// noise, so its verdicts would not hold from run to run. The calibration flags and refuses a
// wider spread (calibrate.WideSpread); the report counts a same-time compute probe that far
// below its calibrated best as a machine computing slower than calibrated.
const ComputeTolerance = 0.10

// ProbeKey is the compute roof whose kernel the benchmark's same-time compute probe runs
// (instrument.Probe, record.ProbeRate): the report divides a probe's rate by the profile's
// best round of this roof.
const ProbeKey = "vector.fp32"

// Ceiling is one roof of a profile: a theoretical rate (bytes/s for hbm, FLOP/s for a compute
// unit), and, when it was measured, the calibration factor and the effective rate.
type Ceiling struct {
	Key         string  // "hbm", "cube.bf16", "vector.fp32", "scalar.fp32", "l1"
	Theoretical float64 // datasheet or derived ceiling
	Calibration float64 // measured / theoretical; 0 when not measured
	Effective   float64 // Theoretical × Calibration; 0 when not measured
	// Spread is the spread of the repeated measurement behind Effective (same unit); zero
	// when the file gives none.
	Spread Spread
	// Estimate is true when Theoretical is a stated estimate, not a datasheet or hardware
	// fact; Note says why it was chosen (the file's `note`).
	Estimate bool
	Note     string
}

// Calibrated reports whether the ceiling was measured, so that it has an effective value.
func (c Ceiling) Calibrated() bool { return c.Calibration > 0 }

// Value returns the ceiling on basis b; ok is false for an effective value never measured.
func (c Ceiling) Value(b Basis) (v float64, ok bool) {
	if b == Theoretical {
		return c.Theoretical, true
	}
	return c.Effective, c.Calibrated()
}

// Profile is a loaded device profile.
type Profile struct {
	// Name is the file's base name without ".yaml" ("a100-sxm-80gb"); Source is the file
	// path, or "builtin:<file>" for an embedded profile.
	Name, Source string
	// Device is the device name the benchmark layer records; Match holds further glob
	// patterns that select this profile.
	Device string
	Match  []string
	// MemoryLabel names the main-memory roof (the "hbm" key) for people: "HBM", or "DRAM"
	// on a CPU profile (the file's `memory:`; "HBM" when absent).
	MemoryLabel string
	// HBM is the main-memory ceiling; MixFractions holds each measured access mix's bandwidth
	// as a fraction of HBM.Theoretical (calibration_mixes), kept as data for per-mix ceilings.
	HBM          Ceiling
	MixFractions map[string]float64
	// Units are the compute ceilings by roof key ("cube.fp16"; on a CPU also the labelled
	// scalar roofs "scalar.fp32", "scalar.fp64", which no op prices against). A unit listed empty in the
	// file ("vector: {}") contributes no key.
	Units map[string]Ceiling
	// MixSpreads holds each mix's measured bandwidth spread in bytes/s (mix_spreads).
	MixSpreads map[string]Spread
	// Caches are the cache-level bandwidth roofs ("l1", "l2", "l3", in that order) from a
	// working-set sweep; empty when not measured.
	Caches []CacheRoof
	// LatencyFloor is the cost in seconds of an empty launch or dispatch; 0 when unknown.
	LatencyFloor float64
	// HalfPrecision says how a CPU host computes bf16 and fp16 multiply-adds (the file's
	// `half_precision:`, from the CPU's flags); "" when the file does not say.
	HalfPrecision string
	// Measured says when and under what load the profile was measured; zero when the file
	// does not say (datasheet profiles).
	Measured Conditions
}

// CacheRoof is the bandwidth ceiling of one cache level in bytes/s; Bytes is the size of
// that level (per core or per instance) as the sweep saw it: the largest working set it
// measured at the level's rate. SysBytes is the size the OS reports for the same workers (0:
// unknown); on a virtual machine or a non-inclusive hierarchy it can be far larger.
type CacheRoof struct {
	Ceiling
	Bytes    int64
	SysBytes int64
}

// Conditions are the circumstances of a measurement: when, on which boot of the machine
// (/proc/sys/kernel/random/boot_id), the 1-minute load average just before, and on how many
// cores it ran.
type Conditions struct {
	At      time.Time
	BootID  string
	LoadAvg float64
	Cores   int
	// Refused holds why the calibration refused the measurement, one reason each (`ropgen
	// calibrate -loaded` writes such a profile apart from the host's); nil for a profile the
	// calibration accepted.
	Refused []string
}

// Loaded reports whether the measurement was refused as too disturbed (Refused): measured
// under load, its calibrated figures are lower bounds of the hardware's, not its ceilings.
func (c Conditions) Loaded() bool { return len(c.Refused) > 0 }

// Cache returns the cache roof named key ("l1", "l2", "l3") and whether the profile has it.
func (p *Profile) Cache(key string) (CacheRoof, bool) {
	for _, c := range p.Caches {
		if c.Key == key {
			return c, true
		}
	}
	return CacheRoof{}, false
}

// Roof returns the ceiling named by key ("hbm" or "<unit>.<dtype>") and whether the profile
// declares it at all.
func (p *Profile) Roof(key string) (Ceiling, bool) {
	if key == HBMKey {
		return p.HBM, true
	}
	c, ok := p.Units[key]
	return c, ok
}

// Resolve returns the rate that prices key on basis b. ok is false ("none") when the profile
// has no such roof, or when b is Effective and the roof was never measured; Why says which.
func (p *Profile) Resolve(key string, b Basis) (v float64, ok bool) {
	v, why := p.resolve(key, b)
	return v, why == ""
}

// Why explains why Resolve(key, b) is "none", or returns "" when it resolves.
func (p *Profile) Why(key string, b Basis) string {
	_, why := p.resolve(key, b)
	return why
}

func (p *Profile) resolve(key string, b Basis) (float64, string) {
	c, ok := p.Roof(key)
	if !ok {
		have := p.Keys()
		if p.MemoryLabel != "" && p.MemoryLabel != "HBM" {
			// The key keeps the model's name; a CPU profile's reader knows the roof as DRAM.
			have[0] = fmt.Sprintf("%s (%s)", p.MemoryLabel, HBMKey)
		}
		if len(have) == 1 {
			return 0, fmt.Sprintf("profile %s has no %s ceiling (it declares no compute unit)", p.Name, key)
		}
		return 0, fmt.Sprintf("profile %s has no %s ceiling (it has %s)", p.Name, key, strings.Join(have, ", "))
	}
	v, ok := c.Value(b)
	if !ok {
		return 0, fmt.Sprintf("profile %s: %s was never measured, so it has no effective ceiling (theoretical %.4g)", p.Name, key, c.Theoretical)
	}
	return v, ""
}

// Keys lists the profile's roof keys, "hbm" first, then the compute keys sorted.
func (p *Profile) Keys() []string {
	return append([]string{HBMKey}, slices.Sorted(maps.Keys(p.Units))...)
}

// Matches reports whether the measured device name selects p: it equals p.Device or matches
// one of p.Match, case-insensitively.
func (p *Profile) Matches(device string) bool {
	d := strings.ToLower(strings.TrimSpace(device))
	if d == strings.ToLower(p.Device) {
		return true
	}
	for _, pat := range p.Match {
		if globMatch(strings.ToLower(pat), d) {
			return true
		}
	}
	return false
}

// NoMatchError says that no profile matches a measured device name, and names the
// candidates, so a user can pick one or add one.
type NoMatchError struct {
	Device    string
	Available []*Profile
}

func (e *NoMatchError) Error() string {
	var names []string
	for _, p := range e.Available {
		names = append(names, fmt.Sprintf("%s (%s)", p.Name, p.Device))
	}
	if len(names) == 0 {
		return fmt.Sprintf("no device profile matches %q: no profiles available", e.Device)
	}
	return fmt.Sprintf("no device profile matches %q; available: %s", e.Device, strings.Join(names, ", "))
}

// ErrAmbiguous is wrapped by Match when several profiles match one device name.
var ErrAmbiguous = errors.New("several device profiles match")

// Match returns the one profile among candidates that matches the measured device name. No
// match is a *NoMatchError; more than one wraps ErrAmbiguous: pricing against whichever came
// first would make the report depend on file order.
func Match(device string, candidates []*Profile) (*Profile, error) {
	var hits []*Profile
	for _, p := range candidates {
		if p.Matches(device) {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 0:
		return nil, &NoMatchError{Device: device, Available: candidates}
	case 1:
		return hits[0], nil
	}
	var names []string
	for _, p := range hits {
		names = append(names, p.Name+" ("+p.Source+")")
	}
	return nil, fmt.Errorf("%w %q: %s", ErrAmbiguous, device, strings.Join(names, ", "))
}
