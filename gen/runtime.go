package gen

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The runtime of generated code is real Go in package roofrt, embedded here for emission.
// doc.go and the tests are not part of it.
//
//go:embed roofrt/runtime.go roofrt/cache.go roofrt/core.go roofrt/helpers.go
var runtimeFS embed.FS

// runtimeFile is one parsed file of package roofrt.
type runtimeFile struct {
	src  []byte
	file *ast.File
}

// runtimeSource is package roofrt, parsed once.
type runtimeSource struct {
	fset  *token.FileSet
	files map[string]*runtimeFile // by base name
	// helpers maps a helper's formula name to its declaration in helpers.go.
	helpers map[string]*ast.FuncDecl
}

var loadRuntime = sync.OnceValue(func() *runtimeSource {
	rs := &runtimeSource{fset: token.NewFileSet(), files: map[string]*runtimeFile{}, helpers: map[string]*ast.FuncDecl{}}
	for _, name := range []string{"runtime.go", "cache.go", "core.go", "helpers.go"} {
		src, err := runtimeFS.ReadFile("roofrt/" + name)
		if err != nil {
			panic(err) // embedded: cannot be missing
		}
		f, err := parser.ParseFile(rs.fset, name, src, parser.ParseComments)
		if err != nil {
			panic(fmt.Sprintf("roofrt/%s: %v", name, err)) // it compiles: a bug, not input
		}
		rs.files[name] = &runtimeFile{src: src, file: f}
	}
	decls := map[string]*ast.FuncDecl{}
	for _, d := range rs.files["helpers.go"].file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			decls[fd.Name.Name] = fd
		}
	}
	for _, h := range Helpers {
		if fd := decls[h.GoName()]; fd != nil && !h.Builtin {
			rs.helpers[h.Name] = fd
		} else if !h.Builtin {
			panic(fmt.Sprintf("helper %s: roofrt/helpers.go does not declare %s", h.Name, h.GoName()))
		}
	}
	return rs
})

func (rs *runtimeSource) offset(p token.Pos) int { return rs.fset.Position(p).Offset }

// body returns the declarations of file name: its text after the package clause and imports.
func (rs *runtimeSource) body(name string) []byte {
	rf := rs.files[name]
	start := rs.offset(rf.file.Name.End())
	for _, d := range rf.file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			start = rs.offset(gd.End())
		}
	}
	return rf.src[start:]
}

// helperDecl returns a helper's declaration with its doc comment.
func (rs *runtimeSource) helperDecl(name string) []byte {
	fd := rs.helpers[name]
	start := fd.Pos()
	if fd.Doc != nil {
		start = fd.Doc.Pos()
	}
	return rs.files["helpers.go"].src[rs.offset(start):rs.offset(fd.End())]
}

// imports returns the import paths that the given declarations of file name use, read from
// their selectors and the file's import list.
func (rs *runtimeSource) imports(name string, decls []ast.Decl, into map[string]bool) {
	byName := map[string]string{}
	for _, spec := range rs.files[name].file.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		local := path[strings.LastIndexByte(path, '/')+1:]
		if spec.Name != nil {
			local = spec.Name.Name
		}
		byName[local] = path
	}
	for _, d := range decls {
		ast.Inspect(d, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && byName[id.Name] != "" {
					into[byName[id.Name]] = true
				}
			}
			return true
		})
	}
}

// sortedImports renders an import set, and imports under a name (path to name), as an
// import declaration.
func sortedImports(set map[string]bool, named map[string]string) string {
	var paths []string
	for p := range set {
		paths = append(paths, p)
	}
	for p := range named {
		paths = append(paths, p)
	}
	slices.Sort(paths) // by path, as gofmt sorts them
	var b bytes.Buffer
	b.WriteString("import (\n")
	for _, p := range paths {
		b.WriteByte('\t')
		if name := named[p]; name != "" {
			b.WriteString(name + " ")
		}
		b.WriteString(strconv.Quote(p) + "\n")
	}
	b.WriteString(")")
	return b.String()
}
