package manifest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/internal/parallel"
)

// FormulasPackage is the import path, relative to the module root, of the package that holds
// func-mode roofline functions.
const FormulasPackage = "perf/formulas"

// Config says where validation finds what lies outside the manifests.
type Config struct {
	// FormulasDir is the directory of package perf/formulas, where a func-mode entry's
	// function must exist. Empty means perf/formulas under the module root: the nearest
	// directory holding go.mod, from the working directory up.
	FormulasDir string
}

// Load is Config{}.Load.
func Load(paths ...string) (*Catalog, diag.Findings) {
	return Config{}.Load(paths...)
}

// Load is the one way into a catalog: it reads the manifest files at paths (files, or
// directories whose *.yaml files are read in name order) and checks them end to end: YAML
// well-formedness (parseFile), each entry's structure against the manifest schema
// (manifest.schema.json, embedded), strict decoding of the entries the schema accepts (a
// second, defensive layer: it reports nothing the schema did not), then what no schema can
// express: func-mode functions exist, dtypes, param types, shapes, and every workload row
// against its signature and shape_rules. It returns every finding, sorted by file and
// position, and the catalog of the entries that decoded, with each op's cases resolved once
// (Op.Cases returns them); the catalog is only fit for use when there are no findings.
//
// An entry with schema findings is left out of decoding, so a problem is not reported twice;
// the price is that an op defined in two files is reported as such only once both
// definitions pass the schema.
func (c Config) Load(paths ...string) (*Catalog, diag.Findings) {
	var fs diag.Findings
	names := ExpandPaths(paths, &fs)
	// Files parse independently: one at a time on each CPU, kept in path order.
	parsed := make([]*File, len(names))
	pfs := make([]diag.Findings, len(names))
	parallel.For(len(names), func(i int) { parsed[i], pfs[i] = parseFile(names[i]) })
	var files []*File
	for _, f := range parsed {
		if f != nil {
			files = append(files, f)
		}
	}
	cat, cfs := c.check(files)
	return cat, slices.Concat(append(pfs, fs, cfs)...).Sort()
}

// check validates parsed files; see Validate.
func (c Config) check(files []*File) (*Catalog, diag.Findings) {
	sfs := make([]diag.Findings, len(files))
	passed := make([]*File, len(files))
	parallel.For(len(files), func(i int) {
		var bad map[string]bool
		sfs[i], bad = checkFile(files[i])
		passed[i] = withoutEntries(files[i], bad)
	})
	cat, dfs := Decode(passed)
	cat.Files = files
	return cat, slices.Concat(append(sfs, dfs, c.checkOps(cat))...)
}

// withoutEntries returns f without the entries named in drop.
func withoutEntries(f *File, drop map[string]bool) *File {
	if len(drop) == 0 {
		return f
	}
	root := *f.Root
	root.Content = nil
	EachEntry(f, func(key, val *yaml.Node) {
		if !drop[key.Value] {
			root.Content = append(root.Content, key, val)
		}
	})
	return &File{Path: f.Path, Root: &root, Src: f.Src, src: f.src}
}

// checkOps runs the checks on decoded entries that need more than one value at a time.
// Ops are checked independently, in parallel.
func (c Config) checkOps(cat *Catalog) diag.Findings {
	funcs := &formulaIndex{dir: c.FormulasDir}
	fs := make([]diag.Findings, len(cat.Ops))
	parallel.For(len(cat.Ops), func(i int) {
		op := cat.Ops[i]
		if r := op.Roofline; r != nil && r.Func != nil {
			fs[i] = append(fs[i], funcs.check(op, *r.Func)...)
		}
		if op.Implemented() && len(op.Workloads) == 0 {
			fs[i] = append(fs[i], diag.Finding{Pos: op.Pos, Op: op.Name, Field: "workloads",
				Msg: "an implemented op needs at least one workload: benchmarks and tests run its rows"})
		}
		cases, cfs := op.resolveCases()
		op.resolved = &resolved{op: op, cases: cases, fs: cfs}
		fs[i] = append(fs[i], cfs...)
		if len(cfs) == 0 {
			fs[i] = append(fs[i], optionalCoverage(op, cases)...)
		}
	})
	return slices.Concat(fs...)
}

// optionalCoverage requires, for each optional input, a row that passes it and a row that
// omits it: the generated roofline branches on its presence, and both branches need a run.
func optionalCoverage(op *Op, cases []Case) diag.Findings {
	if len(cases) == 0 {
		return nil
	}
	var fs diag.Findings
	for _, t := range op.Inputs {
		if !t.Optional {
			continue
		}
		passed, omitted := false, false
		for _, c := range cases {
			_, present := c.Shapes[t.Name]
			passed = passed || present
			omitted = omitted || !present
		}
		how := t.Name + "_shape"
		if t.FixedRank() {
			how = "with_" + t.Name + ": true"
		}
		field := "signature.inputs." + t.Name
		if !passed {
			fs = append(fs, diag.Finding{Pos: t.Pos, Op: op.Name, Field: field,
				Msg: "optional input is passed by no workload row; add a row with " + how})
		}
		if !omitted {
			fs = append(fs, diag.Finding{Pos: t.Pos, Op: op.Name, Field: field,
				Msg: "optional input is omitted by no workload row; add a row without it"})
		}
	}
	return fs
}

// formulaIndex knows the top-level functions of package perf/formulas. It parses the
// package's files (not its types: the generator type-checks the signature) once, on first use.
type formulaIndex struct {
	dir   string
	once  sync.Once
	shown string // the directory as messages name it
	funcs map[string]bool
	err   error
}

func (x *formulaIndex) load() {
	dir := x.dir
	if dir == "" {
		root, err := ModuleRoot()
		if err != nil {
			x.err = err
			return
		}
		dir = filepath.Join(root, FormulasPackage)
		x.shown = FormulasPackage
	} else {
		x.shown = dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		x.err = err
		return
	}
	x.funcs = map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			x.err = err
			return
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				x.funcs[fd.Name.Name] = true
			}
		}
	}
}

// funcPrefix is how a func-mode roofline names its function: formulas.<Name>.
const funcPrefix = "formulas."

// FuncName returns the function of package perf/formulas that a func-mode roofline's func
// value names ("formulas.Attention" -> "Attention"). When the value is malformed or names an
// unexported function it returns a message and the byte offset in the value it is about.
// This is the one statement of the rule: validation and the generator both read it.
func FuncName(value string) (name string, off int, msg string) {
	name, ok := strings.CutPrefix(value, funcPrefix)
	if !ok || !token.IsIdentifier(name) {
		return "", 0, fmt.Sprintf("must be %q: a function of package %s, not %q", funcPrefix+"<Name>", FormulasPackage, value)
	}
	if !token.IsExported(name) {
		return "", len(funcPrefix), fmt.Sprintf("%s is not exported: the generated method in package ops calls it", value)
	}
	return name, 0, ""
}

// check reports a func-mode function that is malformed, unexported or missing.
func (x *formulaIndex) check(op *Op, fn Str) diag.Findings {
	at := func(off int, format string, args ...any) diag.Findings {
		return diag.Findings{{Pos: fn.At(off), Op: op.Name, Field: "roofline.func", Msg: fmt.Sprintf(format, args...)}}
	}
	name, off, msg := FuncName(fn.Value)
	if msg != "" {
		return at(off, "%s", msg)
	}
	x.once.Do(x.load)
	if x.err != nil {
		return at(len(funcPrefix), "cannot check %s: %v", fn.Value, x.err)
	}
	if !x.funcs[name] {
		return at(len(funcPrefix), "no function %s in %s (exported functions there: %s)", name, x.shown, exported(x.funcs))
	}
	return nil
}

func exported(set map[string]bool) string {
	var names []string
	for n := range set {
		if token.IsExported(n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
