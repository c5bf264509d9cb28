package gen

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"

	"golang.org/x/tools/go/packages"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
)

// Binding is the op package and the formulas package as go/types sees them. The generated
// files of the op package are left out (an overlay empties them): a stale generated file,
// or one naming a field that was renamed, must never block its own regeneration.
type Binding struct {
	Ops            *types.Package
	OpsDir         string
	Formulas       *types.Package
	FormulasImport string
	fset           *token.FileSet
}

// LoadBinding loads the op package in opsDir and the formulas package in formulasDir with
// types, from source. An empty formulasDir loads no formulas package: func-mode entries
// are then findings.
func LoadBinding(opsDir, formulasDir string) (*Binding, error) {
	overlay := map[string][]byte{}
	for _, name := range []string{File, LegacyHelpersFile} {
		path, err := filepath.Abs(filepath.Join(opsDir, name))
		if err != nil {
			return nil, err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			continue // not generated yet
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		overlay[path] = []byte("package " + f.Name.Name + "\n")
	}
	cfg := &packages.Config{
		Mode:    packages.NeedName | packages.NeedFiles | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:     opsDir,
		Overlay: overlay,
		Tests:   false,
	}
	patterns := []string{"."}
	if formulasDir != "" {
		patterns = append(patterns, relTo(opsDir, formulasDir))
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != len(patterns) {
		return nil, fmt.Errorf("loading %s: got %d packages for %d directories", opsDir, len(pkgs), len(patterns))
	}
	for _, p := range pkgs {
		// Type errors are expected: hand-written code calls the generated methods, and may
		// name the generated cache type, that the overlay removed. They can surface as type
		// errors or as go list's compile errors. A package that does not parse, or that
		// has no files, cannot be trusted at all.
		for _, e := range p.Errors {
			if e.Kind == packages.ParseError {
				return nil, errors.New(e.Error())
			}
		}
		if p.Types == nil || len(p.Syntax) == 0 {
			msg := p.PkgPath + ": no Go source loaded"
			if len(p.Errors) > 0 {
				msg = p.Errors[0].Error()
			}
			return nil, errors.New(msg)
		}
	}
	// packages.Load does not return the patterns' packages in order (ops imports formulas,
	// which may come first): find the op package by its directory.
	if abs, err := filepath.Abs(opsDir); err == nil && len(pkgs) > 1 && len(pkgs[1].GoFiles) > 0 && filepath.Dir(pkgs[1].GoFiles[0]) == abs {
		pkgs[0], pkgs[1] = pkgs[1], pkgs[0]
	}
	b := &Binding{Ops: pkgs[0].Types, OpsDir: opsDir, fset: pkgs[0].Fset}
	if len(pkgs) > 1 {
		b.Formulas, b.FormulasImport = pkgs[1].Types, pkgs[1].PkgPath
	}
	return b, nil
}

func relTo(base, target string) string {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return target
	}
	return "./" + filepath.ToSlash(rel)
}

// check verifies that the op type exposes what m's formulas read (docs/binding.md) and
// reports whether it declares its own ComputeRoof.
func (b *Binding) check(m *opModel) (handRoof bool, fs diag.Findings) {
	op := m.op
	errorf := func(pos diag.Pos, field, format string, args ...any) {
		fs = append(fs, diag.Finding{Pos: pos, Op: op.Name, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	obj, _ := b.Ops.Scope().Lookup(op.Name).(*types.TypeName)
	if obj == nil {
		errorf(op.Pos, "", "no type %s in package %s (%s); declare it, or mark the entry spec-only", op.Name, b.Ops.Name(), b.OpsDir)
		return false, fs
	}
	if _, ok := obj.Type().Underlying().(*types.Struct); !ok {
		errorf(op.Pos, "", "%s must be a struct type, not %s", op.Name, obj.Type().Underlying())
		return false, fs
	}
	ptr := types.NewPointer(obj.Type())
	method := func(name string) *types.Func {
		f, _ := lookup(ptr, b.Ops, name).(*types.Func)
		return f
	}
	if f := method("EvalRoofline"); f != nil {
		errorf(op.Pos, "", "%s declares EvalRoofline by hand at %s; the generator owns that method", op.Name, b.pos(f))
	}
	if f := method("ComputeRoof"); f != nil {
		handRoof = true
		if sig := f.Type().(*types.Signature); sig.Params().Len() != 0 || sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
			errorf(op.Pos, "", "%s.ComputeRoof at %s must be func() string", op.Name, b.pos(f))
		}
	}
	if !m.isInline() {
		b.checkFunc(m, ptr, errorf)
		return handRoof, fs
	}
	field := func(name, want, what string, pos diag.Pos, field string) {
		v, _ := lookup(ptr, b.Ops, name).(*types.Var)
		switch {
		case v == nil || !v.IsField():
			errorf(pos, field, "%s has no field %s %s for %s (docs/binding.md)", op.Name, name, want, what)
		case types.TypeString(v.Type().Underlying(), nil) != want:
			errorf(pos, field, "field %s.%s at %s is %s; %s needs %s", op.Name, name, b.pos(v), v.Type(), what, want)
		case types.TypeString(types.Unalias(v.Type()), nil) != want:
			// The generated code mixes the field with plain values of the manifest's type
			// (cache keys, helper arguments, the formula's arithmetic), where Go converts
			// no named type: it would not compile. An alias (type Dim = int) is the type
			// itself.
			errorf(pos, field, "field %s.%s at %s is %s, a named type over %s; %s needs %s itself, which the generated code computes with: declare the field %s (convert where it is set)",
				op.Name, name, b.pos(v), types.TypeString(v.Type(), types.RelativeTo(b.Ops)), want, what, want, want)
		}
	}
	for _, t := range op.Inputs {
		if k := m.used[t.Name]; k == kindInput || k == kindOptional {
			field(fieldName(t.Name)+"Shape", "[]int", "input "+t.Name+"'s bound shape", t.Pos, "signature.inputs."+t.Name)
		}
	}
	for _, d := range m.dims {
		if m.used[d] == kindDim {
			field(fieldName(d), "int", "dim "+d, dimPos(op, d), "signature")
		}
	}
	for _, p := range op.Params {
		if m.used[p.Name] == kindParam {
			field(fieldName(p.Name), p.Type.Value, "param "+p.Name, p.Pos, "signature.params."+p.Name)
		}
	}
	if m.used[elemBytes] == kindElemBytes {
		b.checkDType(ptr, op, errorf)
	}
	if m.cached() {
		b.checkCache(ptr, op, errorf)
	}
	return handRoof, fs
}

// checkDType verifies the DType field that elem_bytes reads: it needs a Size() int method.
func (b *Binding) checkDType(ptr types.Type, op *manifest.Op, errorf func(diag.Pos, string, string, ...any)) {
	v, _ := lookup(ptr, b.Ops, "DType").(*types.Var)
	if v == nil || !v.IsField() {
		errorf(op.Pos, "roofline", "%s has no field DType, which elem_bytes reads (docs/binding.md)", op.Name)
		return
	}
	size, _ := lookup(v.Type(), b.Ops, "Size").(*types.Func)
	if size == nil {
		errorf(op.Pos, "roofline", "field %s.DType (%s) has no Size() int method, which elem_bytes calls", op.Name, v.Type())
		return
	}
	sig := size.Type().(*types.Signature)
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.Int]) {
		errorf(op.Pos, "roofline", "%s.Size at %s must be func() int", v.Type(), b.pos(size))
	}
}

// checkCache verifies the field an op whose formulas read a bound shape keeps its roofline
// cache in. Its type, rooflineCache, is declared in the generated helpers file, which the
// overlay empties: the field's type is then invalid, and that is the expected case.
func (b *Binding) checkCache(ptr types.Type, op *manifest.Op, errorf func(diag.Pos, string, string, ...any)) {
	v, _ := lookup(ptr, b.Ops, "roofline").(*types.Var)
	if v == nil || !v.IsField() {
		errorf(op.Pos, "roofline", "%s binds input shapes, so EvalRoofline caches its result by them: add the field `roofline rooflineCache` (docs/binding.md)", op.Name)
		return
	}
	if t := v.Type(); t != types.Typ[types.Invalid] && types.TypeString(t, types.RelativeTo(b.Ops)) != "rooflineCache" {
		errorf(op.Pos, "roofline", "field %s.roofline at %s is %s; it must be rooflineCache", op.Name, b.pos(v), t)
	}
}

// checkFunc verifies a func-mode entry: the function exists in the formulas package, takes
// one parameter the op type is assignable to, and returns (int64, int64, error).
func (b *Binding) checkFunc(m *opModel, ptr types.Type, errorf func(diag.Pos, string, string, ...any)) {
	pos := m.op.Roofline.Func.At(0)
	if b.Formulas == nil {
		errorf(pos, "roofline.func", "func mode needs a formulas package; none was given")
		return
	}
	fn, _ := b.Formulas.Scope().Lookup(m.fn).(*types.Func)
	if fn == nil {
		errorf(pos, "roofline.func", "no function %s in package %s (%s)", m.fn, b.Formulas.Name(), b.FormulasImport)
		return
	}
	sig := fn.Type().(*types.Signature)
	int64T, errT := types.Typ[types.Int64], types.Universe.Lookup("error").Type()
	res := sig.Results()
	if res.Len() != 3 || !types.Identical(res.At(0).Type(), int64T) || !types.Identical(res.At(1).Type(), int64T) || !types.Identical(res.At(2).Type(), errT) {
		errorf(pos, "roofline.func", "formulas.%s at %s returns %s; it must return (flops, bytes int64, err error)", m.fn, b.pos(fn), res)
	}
	if sig.Params().Len() != 1 || sig.Variadic() {
		errorf(pos, "roofline.func", "formulas.%s at %s must take exactly one parameter, the op", m.fn, b.pos(fn))
		return
	}
	if pt := sig.Params().At(0).Type(); !types.AssignableTo(ptr, pt) {
		why := ""
		if iface, ok := pt.Underlying().(*types.Interface); ok {
			if missing, _ := types.MissingMethod(ptr, iface, true); missing != nil {
				why = " (missing method " + missing.Name() + ")"
			}
		}
		errorf(pos, "roofline.func", "*%s does not satisfy formulas.%s's parameter type %s%s",
			m.op.Name, m.fn, types.TypeString(pt, types.RelativeTo(b.Formulas)), why)
	}
}

func lookup(t types.Type, pkg *types.Package, name string) types.Object {
	obj, _, _ := types.LookupFieldOrMethod(t, true, pkg, name)
	return obj
}

// pos renders a Go object's position, its file relative to the working directory.
func (b *Binding) pos(obj types.Object) string {
	p := b.fset.Position(obj.Pos())
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p.Filename); err == nil {
			p.Filename = rel
		}
	}
	return fmt.Sprintf("%s:%d", p.Filename, p.Line)
}
