// Package gen is the code generator: it runs the formula gate and the type check over every
// implemented manifest entry, checks the bindings to the op types, and emits the
// EvalRoofline and ComputeRoof methods (docs/model.md §7). Generate is pure: it returns file
// contents and writes nothing.
package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/internal/parallel"
	"github.com/ropgen/ropgen/manifest"
)

// Config is one generation run.
type Config struct {
	Catalog *manifest.Catalog
	// Binding is the op and formulas packages. Nil skips the binding check, for manifests
	// that have no Go package yet (synthetic benchmarks, gate tests); then Package and
	// FormulasImport must be set.
	Binding        *Binding
	Package        string
	FormulasImport string
}

// Output is what a run generates: file contents by base name, and what it did per op.
type Output struct {
	Files     map[string][]byte
	Generated []string // op names, sorted
	Skipped   []string // "Op: reason", sorted
}

// Generate checks every implemented entry and returns the generated files. Any finding
// means no file is returned: the gate is authoritative, and a half-generated package is
// worse than a stale one.
func Generate(cfg Config) (*Output, diag.Findings) {
	out := &Output{Files: map[string][]byte{}}
	var fs diag.Findings
	var models, checked []*opModel
	roofs := map[string]*roofPlan{} // the default ComputeRoof of each op that declares none
	helpers := map[string]bool{}
	// The gate checks each op alone: in parallel, each result at its op's index.
	gated := make([]struct {
		m  *opModel
		fs diag.Findings
	}, len(cfg.Catalog.Ops))
	parallel.For(len(cfg.Catalog.Ops), func(i int) {
		if op := cfg.Catalog.Ops[i]; op.Implemented() {
			gated[i].m, gated[i].fs = checkOp(op)
		}
	})
	for i, op := range cfg.Catalog.Ops {
		if !op.Implemented() {
			out.Skipped = append(out.Skipped, fmt.Sprintf("%s: status %s (%s)", op.Name, op.Status.Value, op.Pos))
			continue
		}
		m, gfs := gated[i].m, gated[i].fs
		if len(gfs) == 0 && m.isInline() {
			checked = append(checked, m)
		}
		fs = append(fs, gfs...)
		if cfg.Binding != nil {
			hand, bfs := cfg.Binding.check(m)
			fs = append(fs, bfs...)
			if !hand && len(bfs) == 0 {
				p, rfs := cfg.Binding.defaultRoof(op)
				roofs[op.Name] = p
				fs = append(fs, rfs...)
			}
		} else if !m.isInline() {
			fs = append(fs, diag.Finding{Pos: op.Roofline.Func.Pos, Op: op.Name, Field: "roofline.func",
				Msg: "func mode needs the formulas package loaded"})
		}
		if cfg.Binding == nil {
			roofs[op.Name], _ = (*Binding)(nil).defaultRoof(op)
		}
		for h := range m.helpers {
			helpers[h] = true
		}
		models = append(models, m)
		out.Generated = append(out.Generated, op.Name)
	}
	fs = append(fs, typeCheck(checked)...)
	if len(fs) > 0 {
		return nil, fs.Sort()
	}
	pkg, formulas := cfg.Package, cfg.FormulasImport
	if cfg.Binding != nil {
		pkg, formulas = cfg.Binding.Ops.Name(), cfg.Binding.FormulasImport
	}
	slices.SortFunc(models, func(a, b *opModel) int { return strings.Compare(a.op.Name, b.op.Name) })
	slices.Sort(out.Generated)
	slices.Sort(out.Skipped)
	src, err := emitFile(pkg, formulas, models, roofs, helpers)
	if err != nil {
		return nil, diag.Findings{{Msg: err.Error()}}
	}
	if cfg.Binding != nil {
		if fs := cfg.Binding.checkGenerated(src); len(fs) > 0 {
			return nil, fs.Sort()
		}
	}
	out.Files[File] = src
	return out, nil
}
