package gen

import (
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

// exactSource returns f as Go with every +, - and * on int, and every unary - on int,
// replaced by the checked operation of the runtime (rooflineAdd, rooflineSub, rooflineMul,
// rooflineNeg): the result is exact or the step panics, never a wrapped value. Constant
// subexpressions are left to Go, which evaluates them exactly at compile time (and refuses
// one that does not fit; the type check reports that first). fails reports whether
// evaluating the formula can panic: a checked operation, a helper that refuses arguments,
// an index or a slice.
func (f *formula) exactSource() (src string, fails bool) {
	if tv := f.typed.info.Types[f.typed.expr]; tv.Value != nil && f.layer == ArithLayer {
		// flops and bytes are int: a constant such as 2.0 is written as the int it is.
		return constant.ToInt(tv.Value).ExactString(), false
	}
	r := &rewriter{t: f.typed}
	return r.expr(f.typed.expr), r.fails
}

type rewriter struct {
	t     *typedFormula
	fails bool
}

func (r *rewriter) text(n ast.Node) string {
	return string(r.t.src[r.t.fset.Position(n.Pos()).Offset:r.t.fset.Position(n.End()).Offset])
}

func (r *rewriter) isInt(e ast.Expr) bool {
	return types.Identical(r.t.info.TypeOf(e), types.Typ[types.Int])
}

func (r *rewriter) call(fn string, args ...ast.Expr) string {
	r.fails = true
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = r.expr(a)
	}
	return fn + "(" + strings.Join(parts, ", ") + ")"
}

var checkedOps = map[token.Token]string{token.ADD: "rooflineAdd", token.SUB: "rooflineSub", token.MUL: "rooflineMul"}

func (r *rewriter) expr(e ast.Expr) string {
	if tv, ok := r.t.info.Types[e]; ok && tv.Value != nil {
		return r.text(e)
	}
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		return e.Value
	case *ast.ParenExpr:
		return "(" + r.expr(e.X) + ")"
	case *ast.UnaryExpr:
		if e.Op == token.SUB && r.isInt(e) {
			return r.call("rooflineNeg", e.X)
		}
		x := r.expr(e.X)
		if strings.HasPrefix(x, "-") || strings.HasPrefix(x, "+") {
			x = "(" + x + ")"
		}
		return e.Op.String() + x
	case *ast.BinaryExpr:
		if fn := checkedOps[e.Op]; fn != "" && r.isInt(e) {
			return r.call(fn, e.X, e.Y)
		}
		return r.expr(e.X) + " " + e.Op.String() + " " + r.expr(e.Y)
	case *ast.CallExpr:
		name := e.Fun.(*ast.Ident).Name // the gate allows only helper calls
		if h, _ := lookupHelper(name); h.Fails {
			r.fails = true
		}
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = r.expr(a)
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	case *ast.SelectorExpr:
		return r.expr(e.X) + "." + e.Sel.Name
	case *ast.IndexExpr:
		r.fails = true
		return r.expr(e.X) + "[" + r.expr(e.Index) + "]"
	case *ast.SliceExpr:
		r.fails = true
		s := r.expr(e.X) + "["
		if e.Low != nil {
			s += r.expr(e.Low)
		}
		s += ":"
		if e.High != nil {
			s += r.expr(e.High)
		}
		return s + "]"
	}
	panic("exactSource: a node the gate does not allow: " + r.text(e)) // a generator bug
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
