package gen

import (
	"go/ast"
	"go/token"
	"slices"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
)

// opModel is an op entry after the gate: everything emission needs, already checked.
type opModel struct {
	op *manifest.Op

	dims   []string // the op's dims, as the manifest model defines them (manifest.Op.Dims)
	vars   []*formula
	flops  *formula
	bytes  *formula
	fn     string // func mode: the function name in the formulas package
	fnFile diag.Pos

	// used records every name some formula reads, by kind.
	used map[string]nameKind
	// helpers is every helper some formula calls.
	helpers map[string]bool
	// varTypes is each var's Go type as the type check inferred it ("int", "[]int", ...).
	varTypes map[string]string
}

// formula is one expression of an op's roofline.
type formula struct {
	name  string // the var's name, or "flops" / "bytes"
	field string // "roofline.vars.N", "roofline.flops"
	src   manifest.Str
	layer Layer
	expr  ast.Expr
	fset  *token.FileSet
}

// nameKind is what a name in a formula stands for.
type nameKind int

const (
	kindNone nameKind = iota
	kindVar
	kindDim
	kindParam
	kindInput    // a required input: x.shape, x.ndim
	kindOptional // an optional input: only bias != nil
	kindOutput
	kindElemBytes
	kindHelper
)

// elemBytes is the constant every formula may use: the first input's element size.
const elemBytes = "elem_bytes"

// isInline reports whether the op's roofline is inline (vars, flops, bytes).
func (m *opModel) isInline() bool { return m.fn == "" }

// kindOf classifies name in the op's namespace, ignoring vars.
func (m *opModel) kindOf(name string) nameKind {
	op := m.op
	switch {
	case name == elemBytes:
		return kindElemBytes
	case slices.Contains(m.dims, name):
		return kindDim
	case op.Param(name) != nil:
		return kindParam
	case op.Input(name) != nil:
		if op.Input(name).Optional {
			return kindOptional
		}
		return kindInput
	case op.Output(name) != nil:
		return kindOutput
	}
	if _, ok := lookupHelper(name); ok {
		return kindHelper
	}
	return kindNone
}

// names returns the identifiers e reads (not selector fields).
func names(e ast.Expr) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(x ast.Node) bool {
				if id, ok := x.(*ast.Ident); ok {
					out[id.Name] = true
				}
				return true
			})
			return false
		case *ast.Ident:
			out[n.Name] = true
		}
		return true
	})
	return out
}

// mayPanic reports whether evaluating m's formulas can panic: a helper that refuses its
// arguments, or indexing and slicing of a shape. Only then does EvalRoofline need the
// deferred recover that turns a panic into its error.
func (m *opModel) mayPanic() bool {
	for name := range m.helpers {
		if h, _ := lookupHelper(name); h.Fails {
			return true
		}
	}
	for _, v := range m.vars {
		found := false
		ast.Inspect(v.expr, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.IndexExpr, *ast.SliceExpr:
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
