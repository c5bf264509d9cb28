// Package config finds and reads ropgen.yaml, the one configuration file of a module that
// uses ropgen: where its manifests are, the op packages generate writes into (each with its
// manifests), the func-mode formulas package, and the dtypes it adds to the builtin ones.
// Every command finds it the way the go command finds go.mod: from the working directory
// up, the first directory holding ropgen.yaml or go.mod is the root; a go.mod there without
// a ropgen.yaml means today's defaults (Default). Paths in the file are relative to it.
// Decoding is strict: an unknown key, a wrong type, a path that does not exist and a
// duplicate are findings at file:line:col.
package config

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/schema"
)

// FileName is the configuration file's name.
const FileName = "ropgen.yaml"

//go:embed ropgen.schema.json
var schemaJSON []byte

// SchemaJSON returns the JSON Schema of ropgen.yaml (`ropgen schema -config` prints it), for
// editors: ropgen itself decodes the file strictly (Parse), which a test keeps in step with it.
func SchemaJSON() []byte { return slices.Clone(schemaJSON) }

// MaxFileBytes bounds the configuration file: a real one is a few hundred bytes.
const MaxFileBytes = 1 << 20

// Config is a module's configuration with every path absolute.
type Config struct {
	// File is the ropgen.yaml read, or "" when the root has none (the defaults).
	File string
	// Root is the directory paths are resolved against: File's, or the go.mod directory.
	Root string
	// Manifests are the manifest files and directories of the whole catalog: what validate
	// and the benchmark commands read. Default: the packages' manifests, or manifest/.
	Manifests []string
	// Packages are the op packages generate writes into.
	Packages []Package
	// Formulas is the directory of the func-mode formulas package, or "" for none (every
	// roofline inline).
	Formulas string
	// DTypes are the dtypes the module adds to the builtin ones (manifest.DTypes).
	DTypes []DType
}

// Package is one op package and the manifests whose implemented entries it holds.
type Package struct {
	Dir       string
	Manifests []string
	Pos       diag.Pos
}

// DType is a dtype the module adds: its name and storage size in bytes.
type DType struct {
	Name string
	Size int
	Pos  diag.Pos
}

// Defaults, relative to the root: ropgen's own layout, which a module without ropgen.yaml
// is taken to share.
const (
	DefaultManifests = "manifest"
	DefaultOps       = "ops"
	DefaultFormulas  = "perf/formulas"
)

// Default is the configuration of a root without ropgen.yaml: manifest/, one op package
// ops/ generated from manifest/, and perf/formulas when that directory exists.
func Default(root string) *Config {
	m := filepath.Join(root, DefaultManifests)
	c := &Config{Root: root, Manifests: []string{m},
		Packages: []Package{{Dir: filepath.Join(root, DefaultOps), Manifests: []string{m}}}}
	if st, err := os.Stat(filepath.Join(root, DefaultFormulas)); err == nil && st.IsDir() {
		c.Formulas = filepath.Join(root, DefaultFormulas)
	}
	return c
}

// FindRoot returns the nearest directory, from dir up, that holds ropgen.yaml or go.mod.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		for _, name := range []string{FileName, "go.mod"} {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				return d, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", &NoRootError{Dir: abs}
		}
		d = parent
	}
}

// NoRootError is FindRoot's error when no directory from Dir up holds ropgen.yaml or go.mod.
type NoRootError struct{ Dir string }

func (e *NoRootError) Error() string {
	return fmt.Sprintf("no %s or go.mod in %s or any directory above it", FileName, e.Dir)
}

// Find finds the root from dir up (FindRoot) and reads its ropgen.yaml, or returns the
// defaults when it has none. A configuration with findings is an error (diag.Findings).
func Find(dir string) (*Config, error) {
	root, err := FindRoot(dir)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(root, FileName)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Default(root), nil
	}
	if err != nil {
		return nil, err
	}
	c, fs := Parse(file, data)
	if len(fs) > 0 {
		return nil, fs
	}
	return c, nil
}

// Load is Find from the working directory.
func Load() (*Config, error) { return Find(".") }

// Parse decodes the ropgen.yaml named file (its directory is the root) and checks that
// every path it names exists.
func Parse(file string, data []byte) (*Config, diag.Findings) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, diag.Findings{{Pos: diag.Pos{File: file}, Msg: err.Error()}}
	}
	root, fs := schema.ParseDocument(file, data, MaxFileBytes, "ropgen.yaml")
	if len(fs) > 0 {
		return nil, fs
	}
	d := &decoder{file: file, c: &Config{File: abs, Root: filepath.Dir(abs)}}
	d.top(root)
	if len(d.fs) > 0 {
		return nil, d.fs.Sort()
	}
	return d.c, nil
}

type decoder struct {
	file string
	c    *Config
	fs   diag.Findings
}

func (d *decoder) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	d.fs = append(d.fs, diag.Finding{Pos: d.pos(n), Field: field, Msg: fmt.Sprintf(format, args...)})
}

// mapping calls fn for each key of n, refusing what is not a mapping, unknown keys and
// duplicates, and reports the required keys that are missing.
func (d *decoder) mapping(n *yaml.Node, field string, keys, required []string, fn func(key string, k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, field, "must be a mapping, not %s", schema.KindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f := join(field, k.Value)
		switch {
		case k.Kind != yaml.ScalarNode:
			d.errorf(k, field, "a key must be a string, not %s", schema.KindName(k))
		case !slices.Contains(keys, k.Value):
			d.errorf(k, field, "unknown key %q (known: %s)", k.Value, strings.Join(keys, ", "))
		case seen[k.Value] > 0:
			d.errorf(k, f, "duplicate key %q (first at line %d)", k.Value, seen[k.Value])
		default:
			seen[k.Value] = k.Line
			fn(k.Value, k, v)
		}
	}
	for _, r := range required {
		if seen[r] == 0 {
			d.errorf(n, field, "missing required key %q", r)
		}
	}
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func (d *decoder) top(n *yaml.Node) {
	var manifests []string
	haveManifests, havePackages := false, false
	d.mapping(n, "", []string{"manifests", "packages", "formulas", "dtypes"}, nil, func(key string, _, v *yaml.Node) {
		switch key {
		case "manifests":
			manifests, haveManifests = d.paths(v, key, false), true
		case "packages":
			havePackages = true
			d.packages(v)
		case "formulas":
			d.c.Formulas = d.path(v, key, true)
		case "dtypes":
			d.dtypes(v)
		}
	})
	switch {
	case haveManifests:
		d.c.Manifests = manifests
	case havePackages:
		for _, p := range d.c.Packages {
			for _, m := range p.Manifests {
				if !slices.Contains(d.c.Manifests, m) {
					d.c.Manifests = append(d.c.Manifests, m)
				}
			}
		}
	default:
		d.c.Manifests = []string{filepath.Join(d.c.Root, DefaultManifests)}
	}
	if !havePackages {
		d.c.Packages = []Package{{Dir: filepath.Join(d.c.Root, DefaultOps), Manifests: d.c.Manifests, Pos: d.pos(n)}}
	}
	for i, p := range d.c.Packages {
		if p.Manifests == nil {
			d.c.Packages[i].Manifests = d.c.Manifests
		}
	}
}

// path decodes one path, relative to the root, that must exist (a directory when dir).
func (d *decoder) path(n *yaml.Node, field string, dir bool) string {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Value == "" {
		d.errorf(n, field, "must be a path (a non-empty string), not %s", schema.KindName(n))
		return ""
	}
	p := filepath.FromSlash(n.Value)
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.c.Root, p)
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		d.errorf(n, field, "%s: %v", n.Value, unwrapPath(err))
	case dir && !st.IsDir():
		d.errorf(n, field, "%s is not a directory", n.Value)
	}
	return p
}

// unwrapPath drops the absolute path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// paths decodes a path or a list of paths.
func (d *decoder) paths(n *yaml.Node, field string, dir bool) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{d.path(n, field, dir)}
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.errorf(n, field, "must be a path or a non-empty list of paths, not %s", schema.KindName(n))
		return nil
	}
	var out []string
	for i, e := range n.Content {
		p := d.path(e, fmt.Sprintf("%s[%d]", field, i), dir)
		if slices.Contains(out, p) {
			d.errorf(e, fmt.Sprintf("%s[%d]", field, i), "%s is listed twice", e.Value)
		}
		out = append(out, p)
	}
	return out
}

func (d *decoder) packages(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.errorf(n, "packages", "must be a non-empty list of {dir: PATH, manifests: PATHS}, not %s", schema.KindName(n))
		return
	}
	seen := map[string]int{}
	for i, e := range n.Content {
		field := fmt.Sprintf("packages[%d]", i)
		p := Package{Pos: d.pos(e)}
		d.mapping(e, field, []string{"dir", "manifests"}, []string{"dir"}, func(key string, _, v *yaml.Node) {
			switch key {
			case "dir":
				p.Dir = d.path(v, field+".dir", true)
				if line, dup := seen[p.Dir]; dup {
					d.errorf(v, field+".dir", "package %s is listed twice (first at line %d)", v.Value, line)
				}
				seen[p.Dir] = v.Line
			case "manifests":
				p.Manifests = d.paths(v, field+".manifests", false)
			}
		})
		d.c.Packages = append(d.c.Packages, p)
	}
}

var dtypeName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func (d *decoder) dtypes(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "dtypes", "must be a mapping from dtype names to sizes in bytes, not %s", schema.KindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := "dtypes." + k.Value
		size, err := strconv.Atoi(v.Value)
		switch {
		case k.Kind != yaml.ScalarNode || !dtypeName.MatchString(k.Value):
			d.errorf(k, "dtypes", "dtype name %s must be lower-case letters, digits and _, starting with a letter", describe(k))
			continue
		case seen[k.Value] > 0:
			d.errorf(k, field, "duplicate dtype %q (first at line %d)", k.Value, seen[k.Value])
			continue
		case knownDType(k.Value):
			d.errorf(k, field, "%s is a builtin dtype already", k.Value)
			continue
		case v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || size < 1 || size > 64:
			d.errorf(v, field, "the size in bytes must be an integer in [1, 64], not %s", describe(v))
			continue
		}
		seen[k.Value] = k.Line
		d.c.DTypes = append(d.c.DTypes, DType{Name: k.Value, Size: size, Pos: d.pos(k)})
	}
}

func knownDType(name string) bool {
	_, ok := manifest.BuiltinDType(name)
	return ok
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return schema.KindName(n)
}

// Rel returns path relative to the working directory when that is shorter, as messages
// name files.
func Rel(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && len(rel) < len(path) {
		return rel
	}
	return path
}

// RelAll is Rel of each path.
func RelAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = Rel(p)
	}
	return out
}
