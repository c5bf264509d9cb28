package profiles

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"ropgen/manifest"
)

// SchemaJSON is the JSON Schema of a profile file, for editors and for Parse.
//
//go:embed profile.schema.json
var SchemaJSON []byte

//go:embed *.yaml
var builtinFS embed.FS

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// MaxFileBytes bounds a profile file: a real one is a few hundred bytes.
const MaxFileBytes = 1 << 20

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	const url = "profile.schema.json"
	if err := c.AddResource(url, bytes.NewReader(SchemaJSON)); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// Load reads and checks the profile file at name. Errors are manifest.Findings with the
// file:line:col of each problem.
func Load(name string) (*Profile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
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
	at := func(n *yaml.Node, format string, args ...any) manifest.Findings {
		f := manifest.Finding{Pos: manifest.Pos{File: name}, Msg: fmt.Sprintf(format, args...)}
		if n != nil {
			f.Pos.Line, f.Pos.Col = n.Line, n.Column
		}
		return manifest.Findings{f}
	}
	if len(data) > MaxFileBytes {
		return nil, at(nil, "file is %d bytes; a profile may be at most %d", len(data), MaxFileBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		f := at(nil, "YAML syntax: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			f[0].Pos.Line, _ = strconv.Atoi(m[1])
			f[0].Msg = "YAML syntax: " + m[2]
		}
		return nil, f
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, at(nil, "file holds no YAML document")
	}
	root := doc.Content[0]
	t := tree{file: name, at: map[string]*yaml.Node{}}
	inst := t.convert(root, "")
	if len(t.fs) > 0 {
		return nil, t.fs.Sort()
	}
	sch, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("profile schema: %w", err) // a broken build, caught by the tests
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		t.schemaFindings(ve)
		return nil, t.fs.Sort()
	}
	p := build(inst.(map[string]any))
	p.Name = strings.TrimSuffix(filepath.Base(name), ".yaml")
	p.Source = source
	t.check(p)
	if len(t.fs) > 0 {
		return nil, t.fs.Sort()
	}
	return p, nil
}

// build turns a schema-valid instance into a Profile.
func build(m map[string]any) *Profile {
	p := &Profile{Device: m["device"].(string), Units: map[string]Ceiling{}}
	for _, s := range asSlice(m["match"]) {
		p.Match = append(p.Match, s.(string))
	}
	hbm := m["hbm"].(map[string]any)
	p.HBM = ceiling(HBMKey, hbm)
	if mixes, ok := hbm["calibration_mixes"].(map[string]any); ok {
		p.MixFractions = map[string]float64{}
		for k, v := range mixes {
			p.MixFractions[k] = v.(float64)
		}
	}
	for _, unit := range []string{"cube", "vector"} {
		dts, _ := m[unit].(map[string]any)
		for dt, c := range dts {
			key := unit + "." + dt
			p.Units[key] = ceiling(key, c.(map[string]any))
		}
	}
	if v, ok := m["latency_floor"].(float64); ok {
		p.LatencyFloor = v
	}
	return p
}

func ceiling(key string, m map[string]any) Ceiling {
	c := Ceiling{Key: key, Theoretical: m["theoretical"].(float64)}
	if cal, ok := m["calibration"].(float64); ok {
		c.Calibration = cal
		c.Effective = c.Theoretical * cal
	}
	return c
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// tree converts a YAML node tree into the JSON-like instance the schema validates, remembering
// the node behind each JSON pointer so every finding gets a line and column.
type tree struct {
	file string
	at   map[string]*yaml.Node // JSON pointer → value node; pointer+"#key" → key node
	fs   manifest.Findings
}

func (t *tree) errorf(n *yaml.Node, format string, args ...any) {
	t.fs = append(t.fs, manifest.Finding{Pos: manifest.Pos{File: t.file, Line: n.Line, Col: n.Column}, Msg: fmt.Sprintf(format, args...)})
}

// convert refuses what a profile never needs (aliases, anchors, tags, duplicate keys, which
// the node API lets through silently) and turns numbers into finite float64s.
func (t *tree) convert(n *yaml.Node, ptr string) any {
	t.at[ptr] = n
	switch {
	case n.Kind == yaml.AliasNode:
		t.errorf(n, "YAML aliases are not allowed in profiles; write the value out")
		return nil
	case n.Anchor != "":
		t.errorf(n, "YAML anchors are not allowed in profiles")
	case n.Style&yaml.TaggedStyle != 0:
		t.errorf(n, "YAML tags (%s) are not allowed in profiles", n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if line, dup := first[k.Value]; dup {
				t.errorf(k, "duplicate key %q (first defined at line %d)", k.Value, line)
				continue
			}
			first[k.Value] = k.Line
			sub := ptr + "/" + escapePtr(k.Value)
			t.at[sub+"#key"] = k
			m[k.Value] = t.convert(v, sub)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = t.convert(c, ptr+"/"+strconv.Itoa(i))
		}
		return s
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil
		case "!!bool":
			return n.Value == "true"
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				t.errorf(n, "%q is not a finite number", n.Value)
				return nil
			}
			return f
		}
		return n.Value
	}
	return nil
}

func escapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// schemaFindings reports the leaves of a schema error tree, each at its YAML node: the key
// node for a bad property name, the value node otherwise.
func (t *tree) schemaFindings(ve *jsonschema.ValidationError) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			t.schemaFindings(c)
		}
		return
	}
	n := t.at[ve.InstanceLocation]
	if k, ok := t.at[ve.InstanceLocation+"#key"]; ok && strings.Contains(ve.KeywordLocation, "propertyNames") {
		n = k
	}
	if n == nil {
		n = t.at[""]
	}
	field := strings.ReplaceAll(strings.TrimPrefix(ve.InstanceLocation, "/"), "/", ".")
	msg := ve.Message
	if field != "" {
		msg = field + ": " + msg
	}
	t.errorf(n, "%s", msg)
}

// check applies the rules the schema cannot express.
func (t *tree) check(p *Profile) {
	for i, pat := range p.Match {
		if _, err := path.Match(pat, ""); err != nil {
			t.errorf(t.at["/match/"+strconv.Itoa(i)], "bad glob pattern %q: %v", pat, err)
		}
	}
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
		switch n := t.at["/hbm/calibration"]; {
		case n == nil:
			t.errorf(t.at["/hbm"], "hbm: calibration_mixes given without calibration: the calibration is their envelope, %.6g (%s)", best, bestMix)
		case p.HBM.Calibration < best*(1-1e-9):
			t.errorf(n, "hbm.calibration: %.6g is below the %s mix's %.6g: the calibration must be the envelope of calibration_mixes (spec §5.1)", p.HBM.Calibration, bestMix, best)
		}
	}
}

func globMatch(pattern, name string) bool {
	ok, _ := path.Match(pattern, name) // patterns were checked at load
	return ok
}
