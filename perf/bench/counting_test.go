package bench

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Spec §4.2: "A benchmark file that computes FLOPs or bytes locally is a CI failure." The
// benchmark layer takes every count from an op's EvalRoofline; these tests scan its sources
// for code that counts instead.

// benchmarkSources are the directories of the benchmark layer, from this package's.
var benchmarkSources = []string{".", "benchcmd", "../../cmd/ropbench", "../../internal/opsbench"}

// countingName reports whether a name stands for a FLOP or byte count: flops, Bytes,
// totalFlops, nbytes.
func countingName(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, "flops") || strings.HasSuffix(l, "bytes")
}

// nameOf is the name an assignment target or a called function goes by: x, r.Flops, f(...).
func nameOf(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return nameOf(e.X)
	case *ast.StarExpr:
		return nameOf(e.X)
	case *ast.ParenExpr:
		return nameOf(e.X)
	}
	return ""
}

// computed reports whether e makes a number up rather than passing on one it was given:
// arithmetic, a numeric literal, or a call to a counting function (a Bytes() size, a
// matmulFlops helper) other than EvalRoofline, which is where counts must come from.
// Conversions (int64(x)) and other calls pass their operands' nature on, so their arguments
// are searched too.
func computed(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BinaryExpr:
			switch n.Op {
			case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.SHL, token.SHR:
				found = true
			}
		case *ast.BasicLit:
			found = found || n.Kind == token.INT || n.Kind == token.FLOAT
		case *ast.CallExpr:
			if name := nameOf(n.Fun); name != "EvalRoofline" && countingName(name) {
				found = true
			}
		}
		return !found
	})
	return found
}

// localCounting returns the positions of the statements in f that compute a FLOP or byte
// count: an assignment, declaration or struct field of a counting name from a computed
// value, an increment of one, or a return of a computed value from a counting function or
// into a counting result.
func localCounting(fset *token.FileSet, f *ast.File) []token.Position {
	var found []token.Position
	report := func(n ast.Node) { found = append(found, fset.Position(n.Pos())) }
	pairs := func(n ast.Node, names []string, values []ast.Expr) {
		if len(values) == 1 && len(names) > 1 { // x, y := f(): one call gives every name
			for _, name := range names {
				if countingName(name) && computed(values[0]) {
					report(n)
					return
				}
			}
			return
		}
		for i, v := range values {
			if i < len(names) && countingName(names[i]) && computed(v) {
				report(n)
				return
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			names := make([]string, len(n.Lhs))
			for i, l := range n.Lhs {
				names[i] = nameOf(l)
			}
			if n.Tok != token.ASSIGN && n.Tok != token.DEFINE { // +=, *=, ...
				if slices.ContainsFunc(names, countingName) {
					report(n)
				}
				return true
			}
			pairs(n, names, n.Rhs)
		case *ast.IncDecStmt:
			if countingName(nameOf(n.X)) {
				report(n)
			}
		case *ast.ValueSpec:
			names := make([]string, len(n.Names))
			for i, id := range n.Names {
				names[i] = id.Name
			}
			pairs(n, names, n.Values)
		case *ast.KeyValueExpr:
			if countingName(nameOf(n.Key)) && computed(n.Value) {
				report(n)
			}
		case *ast.FuncDecl:
			if n.Body != nil {
				returns(n, report)
			}
		}
		return true
	})
	return found
}

// returns reports the return statements of fn that give a computed value for a count: any
// result of a function named like a count, or a result named like one.
func returns(fn *ast.FuncDecl, report func(ast.Node)) {
	var results []string // one name per result; "" for an unnamed one
	if fn.Type.Results != nil {
		for _, field := range fn.Type.Results.List {
			if len(field.Names) == 0 {
				results = append(results, "")
			}
			for _, id := range field.Names {
				results = append(results, id.Name)
			}
		}
	}
	whole := countingName(fn.Name.Name)
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its returns are its own
		case *ast.ReturnStmt:
			for i, v := range n.Results {
				if (whole || i < len(results) && countingName(results[i])) && computed(v) {
					report(n)
					return true
				}
			}
		}
		return true
	})
}

// scan parses the Go files of dir (tests included) and returns what localCounting finds,
// and whether any file calls EvalRoofline.
func scan(t *testing.T, dir string) (found []token.Position, callsEval bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, localCounting(fset, f)...)
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && nameOf(c.Fun) == "EvalRoofline" {
				callsEval = true
			}
			return true
		})
	}
	return found, callsEval
}

// TestNoLocalCounting fails when the benchmark layer counts FLOPs or bytes itself.
func TestNoLocalCounting(t *testing.T) {
	for _, dir := range benchmarkSources {
		found, _ := scan(t, dir)
		for _, pos := range found {
			t.Errorf("%s: the benchmark layer computes a FLOP or byte count locally; take it from the op's EvalRoofline (docs/model.md §8)", pos)
		}
	}
	if _, calls := scan(t, "."); !calls {
		t.Error("package bench never calls EvalRoofline: where do its records' counts come from?")
	}
}

// TestLocalCountingFixture plants violations: the checker must find exactly the lines
// marked "// want" and nothing else.
func TestLocalCountingFixture(t *testing.T) {
	fset := token.NewFileSet()
	name := filepath.Join("testdata", "counting", "counting.go")
	f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if c.Text == "// want" {
				want = append(want, fset.Position(c.Pos()).Line)
			}
		}
	}
	var got []int
	for _, pos := range localCounting(fset, f) {
		got = append(got, pos.Line)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if len(want) < 10 {
		t.Fatalf("the fixture plants %d violations; it should plant at least 10", len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("found counting on lines %v, want exactly %v", got, want)
	}
}
