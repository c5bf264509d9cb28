package gen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// typedFormula is a formula as the type check saw it: its expression in the check's source,
// with the types and constant values go/types computed.
type typedFormula struct {
	expr ast.Expr
	info *types.Info
	fset *token.FileSet
	src  []byte // the check's source, which expr's positions index
}

// exactSource returns f as Go with every +, - and * on int, and every unary - on int, that
// the proof could not show safe (unsafe[step]; nil: every step) replaced by the checked
// operation of the runtime (rooflineAdd, rooflineSub, rooflineMul, rooflineNeg): the result
// is exact or the step panics, never a wrapped value. A helper is called by its formula
// name when alias holds it (the method declares it as a local for its declaration), by its
// Go name otherwise (product is rooflineProduct). Constant subexpressions are left to Go,
// which evaluates them exactly at compile time (and refuses one that does not fit; the type
// check reports that first). fails reports whether evaluating the formula can panic: a
// checked operation, a helper that refuses arguments, an index or a slice. With checker,
// the checked operations are those of the local rooflineCk (a rooflineChecker: a failure is
// recorded, not raised), for an op whose formulas can fail only by overflow; panics reports
// whether this one can fail otherwise.
func (f *formula) exactSource(checker bool, unsafe map[ast.Expr]bool, alias map[string]bool) (src string, fails, panics bool) {
	if tv := f.typed.info.Types[f.typed.expr]; tv.Value != nil && f.layer == ArithLayer {
		// flops and bytes are int: a constant such as 2.0 is written as the int it is.
		return constant.ToInt(tv.Value).ExactString(), false, false
	}
	r := &rewriter{t: f.typed, checker: checker, unsafe: unsafe, alias: alias}
	r.expr(f.typed.expr)
	return r.b.String(), r.checked || r.panics, r.panics
}

// rewriter writes an expression into b, in one pass (linear in the formula's length).
type rewriter struct {
	t       *typedFormula
	b       strings.Builder
	checker bool
	unsafe  map[ast.Expr]bool
	alias   map[string]bool
	checked bool // a checked operation was written
	panics  bool // a helper that refuses, an index or a slice was written
}

// check reports whether the int step e is written as a checked operation.
func (r *rewriter) check(e ast.Expr) bool { return r.unsafe == nil || r.unsafe[e] }

func (r *rewriter) text(n ast.Node) {
	r.b.Write(r.t.src[r.t.fset.Position(n.Pos()).Offset:r.t.fset.Position(n.End()).Offset])
}

func (r *rewriter) isInt(e ast.Expr) bool {
	return types.Identical(r.t.info.TypeOf(e), types.Typ[types.Int])
}

// call writes fn(args...).
func (r *rewriter) call(fn string, args ...ast.Expr) {
	r.b.WriteString(fn)
	r.b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			r.b.WriteString(", ")
		}
		r.expr(a)
	}
	r.b.WriteByte(')')
}

var (
	checkedOps = map[token.Token]string{token.ADD: "rooflineAdd", token.SUB: "rooflineSub", token.MUL: "rooflineMul"}
	checkerOps = map[token.Token]string{token.ADD: "rooflineCk.add", token.SUB: "rooflineCk.sub", token.MUL: "rooflineCk.mul"}
)

func (r *rewriter) expr(e ast.Expr) {
	if tv, ok := r.t.info.Types[e]; ok && tv.Value != nil {
		r.text(e)
		return
	}
	switch e := e.(type) {
	case *ast.Ident:
		r.b.WriteString(e.Name)
	case *ast.BasicLit:
		r.b.WriteString(e.Value)
	case *ast.ParenExpr:
		r.b.WriteByte('(')
		r.expr(e.X)
		r.b.WriteByte(')')
	case *ast.UnaryExpr:
		if e.Op == token.SUB && r.isInt(e) && r.check(e) {
			r.checked = true
			r.call(map[bool]string{false: "rooflineNeg", true: "rooflineCk.neg"}[r.checker], e.X)
			return
		}
		r.b.WriteString(e.Op.String())
		if _, nested := e.X.(*ast.UnaryExpr); nested {
			// Parenthesized, so that + +x never prints as ++x (the operand is not
			// constant: the whole would be).
			r.b.WriteByte('(')
			r.expr(e.X)
			r.b.WriteByte(')')
			return
		}
		r.expr(e.X)
	case *ast.BinaryExpr:
		if fn := checkedOps[e.Op]; fn != "" && r.isInt(e) && r.check(e) {
			if r.checker {
				fn = checkerOps[e.Op]
			}
			r.checked = true
			r.call(fn, e.X, e.Y)
			return
		}
		r.expr(e.X)
		r.b.WriteString(" " + e.Op.String() + " ")
		r.expr(e.Y)
	case *ast.CallExpr:
		h, _ := lookupHelper(e.Fun.(*ast.Ident).Name) // the gate allows only helper calls
		r.panics = r.panics || h.Fails
		name := h.GoName()
		if r.alias[h.Name] {
			name = h.Name
		}
		r.call(name, e.Args...)
	case *ast.SelectorExpr:
		r.expr(e.X)
		r.b.WriteString("." + e.Sel.Name)
	case *ast.IndexExpr:
		r.panics = true
		r.expr(e.X)
		r.b.WriteByte('[')
		r.expr(e.Index)
		r.b.WriteByte(']')
	case *ast.SliceExpr:
		r.panics = true
		r.expr(e.X)
		r.b.WriteByte('[')
		if e.Low != nil {
			r.expr(e.Low)
		}
		r.b.WriteByte(':')
		if e.High != nil {
			r.expr(e.High)
		}
		r.b.WriteByte(']')
	default:
		panic(fmt.Sprintf("exactSource: a node the gate does not allow: %T", e)) // a generator bug
	}
}

// label names a formula in EvalRoofline's error: its field and its text on one line.
func (f *formula) label() string {
	return f.field + ` "` + strings.Join(strings.Fields(f.src.Value), " ") + `"`
}

// constantInt64 returns a constant's value as an int64, if it is an integer that fits.
func constantInt64(tv types.TypeAndValue) (int64, bool) {
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}
