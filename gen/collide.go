package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/diag"
)

// checkGenerated refuses what would not build once the generated file joins the op
// package: a package-level name of the package that the file declares too, a method or
// field of an op type that it declares as a method, a builtin the file uses that the package
// redeclares, and a package-level name equal to one the file imports. Every name the file
// declares starts with roofline (helpers too: product is rooflineProduct), so only a package
// that uses that prefix can collide with a declaration; each finding names both positions.
func (b *Binding) checkGenerated(src []byte) diag.Findings {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, File, src, 0)
	if err != nil {
		return diag.Findings{{Msg: "generated code does not parse (a generator bug): " + err.Error()}}
	}
	var fs diag.Findings
	scope := b.Ops.Scope()
	at := func(p token.Pos) string { return fmt.Sprintf("%s:%d", File, fset.Position(p).Line) }
	clash := func(obj types.Object, format string, args ...any) {
		fs = append(fs, diag.Finding{Pos: b.diagPos(obj), Msg: fmt.Sprintf(format, args...)})
	}
	pkg := b.Ops.Name()
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				if obj := scope.Lookup(d.Name.Name); obj != nil {
					clash(obj, "package %s declares %s, which the generated %s declares (%s); names starting with roofline are reserved for generated code: rename yours", pkg, d.Name.Name, File, at(d.Name.Pos()))
				}
				continue
			}
			name := d.Name.Name
			if name == "EvalRoofline" || name == "ComputeRoof" {
				continue // the binding check owns these: hand-written ones are reported or kept
			}
			recv := d.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			tn, _ := scope.Lookup(recv.(*ast.Ident).Name).(*types.TypeName)
			if tn == nil {
				continue
			}
			if obj := lookup(types.NewPointer(tn.Type()), b.Ops, name); obj != nil && obj.Pkg() == b.Ops {
				clash(obj, "%s.%s is declared here, and the generated %s declares the method %s.%s (%s): rename yours", tn.Name(), name, File, tn.Name(), name, at(d.Name.Pos()))
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				var names []*ast.Ident
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names = []*ast.Ident{s.Name}
				case *ast.ValueSpec:
					names = s.Names
				case *ast.ImportSpec:
					path, _ := strconv.Unquote(s.Path.Value)
					local := path[strings.LastIndexByte(path, '/')+1:]
					if s.Name != nil {
						local = s.Name.Name
					}
					if obj := scope.Lookup(local); obj != nil {
						clash(obj, "package %s declares %s, the name the generated %s imports %q under (%s): rename yours", pkg, local, File, path, at(s.Pos()))
					}
				}
				for _, n := range names {
					if obj := scope.Lookup(n.Name); n.Name != "_" && obj != nil {
						clash(obj, "package %s declares %s, which the generated %s declares (%s); names starting with roofline are reserved for generated code: rename yours", pkg, n.Name, File, at(n.Pos()))
					}
				}
			}
		}
	}
	// Builtins the file uses (min, max, len, panic, error, int, ...): a package-level
	// redeclaration would silently change what a formula means, or break the build.
	seen := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || seen[id.Name] || types.Universe.Lookup(id.Name) == nil {
			return true
		}
		seen[id.Name] = true
		if obj := scope.Lookup(id.Name); obj != nil {
			clash(obj, "package %s declares %s, which shadows the builtin %s that the generated %s uses (%s): rename yours", pkg, id.Name, id.Name, File, at(id.Pos()))
		}
		return true
	})
	return fs
}

// diagPos is a Go object's position as a finding's, its file relative to the working
// directory.
func (b *Binding) diagPos(obj types.Object) diag.Pos {
	p := b.fset.Position(obj.Pos())
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p.Filename); err == nil {
			p.Filename = rel
		}
	}
	return diag.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}
