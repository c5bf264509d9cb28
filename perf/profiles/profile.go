// Package profiles holds device profiles: the memory and compute ceilings a report prices
// benchmark records against (spec §5.1). A profile file stores theoretical values and measured
// calibration factors; the loader computes effective = theoretical × calibration. A ceiling
// with no calibration has no effective value: resolving it says "none" rather than inventing
// one, so the report leaves that cell blank.
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

// Mixes are the memory access mixes a bandwidth calibration measures, in file order.
var Mixes = []string{"copy", "triad", "read", "write"}

// Ceiling is one roof of a profile: a theoretical rate (bytes/s for hbm, FLOP/s for a compute
// unit), and, when it was measured, the calibration factor and the effective rate.
type Ceiling struct {
	Key         string  // "hbm", "cube.bf16", "vector.fp32"
	Theoretical float64 // datasheet or derived ceiling
	Calibration float64 // measured / theoretical; 0 when not measured
	Effective   float64 // Theoretical × Calibration; 0 when not measured
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
	// HBM is the main-memory ceiling; MixFractions holds each measured access mix's bandwidth
	// as a fraction of HBM.Theoretical (calibration_mixes), kept as data for per-mix ceilings.
	HBM          Ceiling
	MixFractions map[string]float64
	// Units are the compute ceilings by roof key ("cube.fp16"). A unit listed empty in the
	// file ("vector: {}") contributes no key.
	Units map[string]Ceiling
	// LatencyFloor is the cost in seconds of an empty launch or dispatch; 0 when unknown.
	LatencyFloor float64
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
