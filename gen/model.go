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
}

// formula is one expression of an op's roofline.
type formula struct {
	name  string // the var's name, or "flops" / "bytes"
	field string // "roofline.vars.N", "roofline.flops"
	src   manifest.Str
	layer Layer
	expr  ast.Expr
	fset  *token.FileSet
	// typed is the formula as the type check saw it, set when the check passes.
	typed *typedFormula
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
