package profiles

import (
	"embed"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/schema"
)

// SchemaJSON is the JSON Schema of a profile file, for editors and for Parse.
//
//go:embed profile.schema.json
var SchemaJSON []byte

//go:embed *.yaml
var builtinFS embed.FS

// MaxFileBytes bounds a profile file: a real one is a few hundred bytes.
const MaxFileBytes = 1 << 20

var compiled = sync.OnceValues(func() (*schema.Compiled, error) {
	return schema.Compile("profile.schema.json", SchemaJSON)
})

// Load reads and checks the profile file at name. Errors are diag.Findings with the
// file:line:col of each problem.
func Load(name string) (*Profile, error) {
	data, fs := schema.ReadFile(name, MaxFileBytes, "profile") // a regular file, read through the limit
	if len(fs) > 0 {
		return nil, fs
	}
	return Parse(name, data)
}

// Builtin returns the embedded profiles, sorted by name. They are checked by the package
// tests, so an error here means a broken build.
func Builtin() ([]*Profile, error) { return builtin() }

var builtin = sync.OnceValues(func() ([]*Profile, error) {
	entries, err := builtinFS.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var ps []*Profile
	for _, e := range entries {
		data, err := builtinFS.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		p, err := parse("builtin:"+e.Name(), e.Name(), data)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
})

// BuiltinText returns the file of the builtin profile name ("h200") as embedded: what a
// history keeps beside the runs priced against it, to price them again.
func BuiltinText(name string) ([]byte, error) { return builtinFS.ReadFile(name + ".yaml") }

// Open returns the profile named by s: a builtin profile's name ("a100-sxm-80gb"), or the
// path of a profile file (anything containing a path separator or ending in .yaml).
func Open(s string) (*Profile, error) {
	if strings.ContainsRune(s, filepath.Separator) || strings.Contains(s, "/") || strings.HasSuffix(s, ".yaml") {
		return Load(s)
	}
	ps, err := Builtin()
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.Name == s {
			return p, nil
		}
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("no builtin profile %q (builtin: %s; or give a path to a .yaml file)", s, strings.Join(names, ", "))
}

// Parse checks one profile file's content against the schema and the rules the schema cannot
// express, and computes the effective ceilings. name is used in error positions and gives the
// profile its Name.
func Parse(name string, data []byte) (*Profile, error) {
	return parse(name, name, data)
}

func parse(source, name string, data []byte) (*Profile, error) {
	root, fs := schema.ParseDocument(name, data, MaxFileBytes, "profile")
	if len(fs) > 0 {
		return nil, fs
	}
	sch, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("profile schema: %w", err) // a broken build, caught by the tests
	}
	inst, fs := sch.Check(name, root)
	if len(fs) > 0 {
		return nil, fs.Sort()
	}
	p := build(inst.(map[string]any))
	p.Name = strings.TrimSuffix(filepath.Base(name), ".yaml")
	p.Source = source
	if fs := check(name, root, p); len(fs) > 0 {
		return nil, fs.Sort()
	}
	return p, nil
}

// build turns a schema-valid instance into a Profile.
func build(m map[string]any) *Profile {
	p := &Profile{Device: m["device"].(string), Units: map[string]Ceiling{}, MemoryLabel: "HBM"}
	if h, ok := m["half_precision"].(string); ok {
		p.HalfPrecision = h
	}
	if l, ok := m["memory"].(string); ok {
		p.MemoryLabel = l
	}
	for _, s := range asSlice(m["match"]) {
		p.Match = append(p.Match, s.(string))
	}
	hbm := m["hbm"].(map[string]any)
	p.HBM = ceiling(HBMKey, hbm)
	if mixes, ok := hbm["calibration_mixes"].(map[string]any); ok {
		p.MixFractions = map[string]float64{}
		for k, v := range mixes {
			p.MixFractions[k] = number(v)
		}
	}
	if mixes, ok := hbm["mix_spreads"].(map[string]any); ok {
		p.MixSpreads = map[string]Spread{}
		for k, v := range mixes {
			p.MixSpreads[k] = spread(v)
		}
	}
	if caches, ok := m["caches"].(map[string]any); ok {
		for _, key := range CacheKeys {
			if c, ok := caches[key].(map[string]any); ok {
				cr := CacheRoof{Ceiling: ceiling(key, c), Bytes: int64(number(c["bytes"]))}
				if v, ok := c["sys_bytes"]; ok {
					cr.SysBytes = int64(number(v))
				}
				p.Caches = append(p.Caches, cr)
			}
		}
	}
	if ms, ok := m["measured"].(map[string]any); ok {
		p.Measured.At, _ = time.Parse(time.RFC3339, ms["at"].(string)) // checked in check
		p.Measured.BootID, _ = ms["boot_id"].(string)
		if v, ok := ms["loadavg"]; ok {
			p.Measured.LoadAvg = number(v)
		}
		if v, ok := ms["cores"]; ok {
			p.Measured.Cores = int(number(v))
		}
		if v, ok := ms["refused"].([]any); ok {
			for _, why := range v {
				p.Measured.Refused = append(p.Measured.Refused, why.(string)) // checked by the schema
			}
		}
	}
	for _, unit := range Units {
		dts, _ := m[unit].(map[string]any)
		for dt, c := range dts {
			key := unit + "." + dt
			p.Units[key] = ceiling(key, c.(map[string]any))
		}
	}
	if v, ok := m["latency_floor"]; ok {
		p.LatencyFloor = number(v)
	}
	return p
}

// Units are the compute unit keys of a profile file, in the order they are read.
var Units = []string{"cube", "vector", "scalar"}

func ceiling(key string, m map[string]any) Ceiling {
	c := Ceiling{Key: key, Theoretical: number(m["theoretical"])}
	if cal, ok := m["calibration"]; ok {
		c.Calibration = number(cal)
		c.Effective = c.Theoretical * c.Calibration
	}
	c.Estimate, _ = m["estimate"].(bool)
	c.Note, _ = m["note"].(string)
	if s, ok := m["spread"]; ok {
		c.Spread = spread(s)
	}
	return c
}

func spread(v any) Spread {
	m := v.(map[string]any)
	return Spread{Min: number(m["min"]), Median: number(m["median"]), Max: number(m["max"]), N: int(number(m["n"]))}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// number reads a number the schema accepted: schema.Check keeps integers as integers.
func number(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case uint64:
		return float64(v)
	}
	return v.(float64)
}

// check applies the rules the schema cannot express to p, read from root.
func check(name string, root *yaml.Node, p *Profile) diag.Findings {
	var fs diag.Findings
	errorf := func(n *yaml.Node, field, format string, args ...any) {
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: name, Line: n.Line, Col: n.Column}, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	for i, pat := range p.Match {
		if _, err := path.Match(pat, ""); err != nil {
			errorf(schema.Lookup(root, "match", strconv.Itoa(i)), fmt.Sprintf("match[%d]", i), "bad glob pattern %q: %v", pat, err)
		}
	}
	if n := schema.Lookup(root, "measured", "at"); n != nil && p.Measured.At.IsZero() {
		errorf(n, "measured.at", "%q is not an RFC 3339 time (2006-01-02T15:04:05Z)", n.Value)
	}
	checkSpread := func(c Ceiling, path ...string) {
		n := schema.Lookup(root, path...)
		if n == nil {
			return
		}
		field := strings.Join(path, ".")
		s := c.Spread
		if !(s.Min <= s.Median && s.Median <= s.Max) {
			errorf(n, field, "min %.6g <= median %.6g <= max %.6g does not hold", s.Min, s.Median, s.Max)
			return
		}
		// The effective value is one of the measurement's statistics (calibrate keeps the
		// best, Max); outside [Min, Max] it would not come from this measurement.
		if c.Calibrated() && (c.Effective < s.Min*(1-1e-6) || c.Effective > s.Max*(1+1e-6)) {
			errorf(n, field, "the effective value %.6g (theoretical x calibration) is outside the measured spread [%.6g, %.6g]", c.Effective, s.Min, s.Max)
		}
	}
	checkSpread(p.HBM, "hbm", "spread")
	for _, key := range slices.Sorted(maps.Keys(p.Units)) {
		unit, dt, _ := strings.Cut(key, ".")
		checkSpread(p.Units[key], unit, dt, "spread")
	}
	for _, c := range p.Caches {
		checkSpread(c.Ceiling, "caches", c.Key, "spread")
	}
	for _, mix := range Mixes {
		if s, ok := p.MixSpreads[mix]; ok {
			f := p.MixFractions[mix] // 0 (not calibrated) when the mix has no fraction
			checkSpread(Ceiling{Calibration: f, Effective: f * p.HBM.Theoretical, Spread: s}, "hbm", "mix_spreads", mix)
		}
	}
	checkHierarchy(p, func(key, format string, args ...any) {
		errorf(schema.Lookup(root, "caches", key), "caches."+key, format, args...)
	})
	// Spec §5.1: the bandwidth calibration is the envelope over the measured mixes. A ceiling
	// some legitimate mix exceeds is not a ceiling: readings above 100% must stay reserved
	// for formula errors.
	if len(p.MixFractions) > 0 {
		best, bestMix := 0.0, ""
		for _, mix := range Mixes {
			if f, ok := p.MixFractions[mix]; ok && f > best {
				best, bestMix = f, mix
			}
		}
		switch n := schema.Lookup(root, "hbm", "calibration"); {
		case n == nil:
			errorf(schema.Lookup(root, "hbm"), "hbm", "calibration_mixes given without calibration: the calibration is their envelope, %.6g (%s)", best, bestMix)
		case p.HBM.Calibration < best*(1-1e-9):
			errorf(n, "hbm.calibration", "%.6g is below the %s mix's %.6g: the calibration must be the envelope of calibration_mixes (docs/model.md §4.2)", p.HBM.Calibration, bestMix, best)
		}
	}
	return fs
}

func globMatch(pattern, name string) bool {
	ok, _ := path.Match(pattern, name) // patterns were checked at load
	return ok
}

// checkHierarchy refuses caches no memory hierarchy has, as calibrate refuses a measurement
// that shows one: a level nearer the core (l1 before l2 before l3) is smaller than one
// further out, and no slower than it. Priced on such a profile, a row reads its cache SOL on
// the wrong level (an l1 larger and slower than its l2 gave a cache SOL far above 100%).
// Bandwidths are the effective ones, where both are measured. A level is not compared with
// hbm: a calibration whose memory arrays were no larger than the last cache measured that
// cache as hbm, and calibrate keeps the levels it found all the same.
func checkHierarchy(p *Profile, errorf func(key, format string, args ...any)) {
	for i, c := range p.Caches {
		for _, o := range p.Caches[i+1:] {
			if c.Bytes > 0 && o.Bytes > 0 && c.Bytes >= o.Bytes {
				errorf(c.Key, "%d bytes is not below %s's %d: a level nearer the core is never the larger", c.Bytes, o.Key, o.Bytes)
			}
			if c.Calibrated() && o.Calibrated() && c.Effective < o.Effective {
				errorf(c.Key, "effective bandwidth %.6g B/s is below %s's %.6g B/s: a level nearer the core is never the slower", c.Effective, o.Key, o.Effective)
			}
		}
	}
}
