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
	return r.b.String(), r.checkedStep || r.panics, r.panics
}

// rewriter writes an expression into b, in one pass (linear in the formula's length).
type rewriter struct {
	t           *typedFormula
	b           strings.Builder
	checker     bool
	unsafe      map[ast.Expr]bool
	alias       map[string]bool
	checkedStep bool // a checked operation was written
	panics      bool // a helper that refuses, an index or a slice was written
}

// check reports whether the int step e is written as a checked operation.
func (r *rewriter) check(e ast.Expr) bool { return r.unsafe == nil || r.unsafe[e] }

func (r *rewriter) isInt(e ast.Expr) bool {
	return types.Identical(r.t.info.TypeOf(e), types.Typ[types.Int])
}

func (r *rewriter) isConst(e ast.Expr) bool {
	tv, ok := r.t.info.Types[e]
	return ok && tv.Value != nil
}

// checked reports whether e is written as a checked operation (a call), not as itself.
func (r *rewriter) checked(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		return checkedOps[e.Op] != "" && !r.isConst(e) && r.isInt(e) && r.check(e)
	case *ast.UnaryExpr:
		return e.Op == token.SUB && !r.isConst(e) && r.isInt(e) && r.check(e)
	}
	return false
}

// binary returns e as the binary expression the output has there, or nil: a checked step
// is a call in the output.
func (r *rewriter) binary(e ast.Expr) *ast.BinaryExpr {
	b, ok := e.(*ast.BinaryExpr)
	if !ok || r.checked(b) {
		return nil
	}
	return b
}

// call writes fn(args...) as gofmt does at depth.
func (r *rewriter) call(fn string, depth int, args ...ast.Expr) {
	if len(args) > 1 {
		depth++
	}
	r.b.WriteString(fn)
	r.b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			r.b.WriteString(", ")
		}
		r.expr1(a, token.LowestPrec, depth)
	}
	r.b.WriteByte(')')
}

var (
	checkedOps = map[token.Token]string{token.ADD: "rooflineAdd", token.SUB: "rooflineSub", token.MUL: "rooflineMul"}
	checkerOps = map[token.Token]string{token.ADD: "rooflineCk.add", token.SUB: "rooflineCk.sub", token.MUL: "rooflineCk.mul"}
)

// expr writes e where the generated code puts a formula (an assignment's right-hand side,
// an if's condition), laid out as gofmt lays it out there.
func (r *rewriter) expr(e ast.Expr) { r.expr1(e, token.LowestPrec, 1) }

// expr1 is go/printer's expr1 for the nodes the gate allows: the output is gofmt'ed as
// written, so the generated file needs no go/format pass (TestGeneratedIsFormatted, and
// FuzzGate on every formula it finds, hold it to format.Source).
func (r *rewriter) expr1(e ast.Expr, prec1, depth int) {
	switch e := e.(type) {
	case *ast.Ident:
		r.b.WriteString(e.Name)
	case *ast.BasicLit:
		if e.Kind == token.INT || e.Kind == token.FLOAT || e.Kind == token.IMAG {
			r.b.WriteString(normalizedNumber(e.Value))
		} else {
			r.b.WriteString(e.Value)
		}
	case *ast.ParenExpr:
		if _, nested := e.X.(*ast.ParenExpr); nested {
			// gofmt prints ((x)) as (x): one pair of parentheses around one already there is
			// dropped.
			r.expr1(e.X, token.LowestPrec, depth)
			return
		}
		r.b.WriteByte('(')
		r.expr1(e.X, token.LowestPrec, max(depth-1, 1)) // parentheses undo one level of depth
		r.b.WriteByte(')')
	case *ast.UnaryExpr:
		if r.checked(e) {
			r.checkedStep = true
			r.call(map[bool]string{false: "rooflineNeg", true: "rooflineCk.neg"}[r.checker], depth, e.X)
			return
		}
		r.b.WriteString(e.Op.String())
		if _, nested := e.X.(*ast.UnaryExpr); nested && !r.checked(e.X) {
			// Parenthesized, so that + +x never prints as ++x.
			r.b.WriteByte('(')
			r.expr1(e.X, token.LowestPrec, max(depth-1, 1))
			r.b.WriteByte(')')
			return
		}
		r.expr1(e.X, token.UnaryPrec, depth)
	case *ast.BinaryExpr:
		if r.checked(e) {
			fn := checkedOps[e.Op]
			if r.checker {
				fn = checkerOps[e.Op]
			}
			r.checkedStep = true
			r.call(fn, depth, e.X, e.Y)
			return
		}
		prec := e.Op.Precedence()
		blank := prec < r.cutoff(e, depth)
		xDepth := depth + 1
		if x := r.binary(e.X); x != nil && x.Op.Precedence() == prec {
			xDepth = depth
		}
		r.expr1(e.X, prec, xDepth)
		if blank {
			r.b.WriteByte(' ')
		}
		r.b.WriteString(e.Op.String())
		if blank {
			r.b.WriteByte(' ')
		}
		r.expr1(e.Y, prec+1, depth+1)
	case *ast.CallExpr:
		h, _ := lookupHelper(e.Fun.(*ast.Ident).Name) // the gate allows only helper calls
		r.panics = r.panics || h.Fails
		name := h.GoName()
		if r.alias[h.Name] {
			name = h.Name
		}
		r.call(name, depth, e.Args...)
	case *ast.SelectorExpr:
		r.expr1(e.X, token.HighestPrec, depth)
		r.b.WriteString("." + e.Sel.Name)
	case *ast.IndexExpr:
		r.panics = true
		r.expr1(e.X, token.HighestPrec, 1)
		r.b.WriteByte('[')
		r.expr1(e.Index, token.LowestPrec, depth+1)
		r.b.WriteByte(']')
	case *ast.SliceExpr:
		r.panics = true
		r.expr1(e.X, token.HighestPrec, 1)
		r.b.WriteByte('[')
		// gofmt puts blanks around the colon when both indices are there and one is a
		// binary expression.
		blanks := depth <= 1 && e.Low != nil && e.High != nil && (r.binary(e.Low) != nil || r.binary(e.High) != nil)
		if e.Low != nil {
			r.expr1(e.Low, token.LowestPrec, depth+1)
			if blanks {
				r.b.WriteByte(' ')
			}
		}
		r.b.WriteByte(':')
		if e.High != nil {
			if blanks {
				r.b.WriteByte(' ')
			}
			r.expr1(e.High, token.LowestPrec, depth+1)
		}
		r.b.WriteByte(']')
	default:
		panic(fmt.Sprintf("exactSource: a node the gate does not allow: %T", e)) // a generator bug
	}
}

// cutoff is go/printer's: the precedence below which a binary operator gets blanks around
// it, from the operators of the expression it heads (the output's: a checked step is a
// call) and the depth. Comparisons and logical operators always get them.
func (r *rewriter) cutoff(e *ast.BinaryExpr, depth int) int {
	has4, has5, problem := r.walkBinary(e)
	switch {
	case problem > 0:
		return problem + 1
	case has4 && has5 && depth == 1:
		return 5
	case depth == 1 && !(has4 && has5):
		return 6
	}
	return 4
}

func (r *rewriter) walkBinary(e *ast.BinaryExpr) (has4, has5 bool, problem int) {
	switch e.Op.Precedence() {
	case 4:
		has4 = true
	case 5:
		has5 = true
	}
	if l := r.binary(e.X); l != nil && l.Op.Precedence() >= e.Op.Precedence() {
		h4, h5, p := r.walkBinary(l)
		has4, has5, problem = has4 || h4, has5 || h5, max(problem, p)
	}
	switch y := e.Y.(type) {
	case *ast.BinaryExpr:
		if y := r.binary(y); y != nil && y.Op.Precedence() > e.Op.Precedence() {
			h4, h5, p := r.walkBinary(y)
			has4, has5, problem = has4 || h4, has5 || h5, max(problem, p)
		}
	case *ast.UnaryExpr:
		if !r.checked(y) {
			switch e.Op.String() + y.Op.String() {
			case "/*", "&&", "&^":
				problem = 5
			case "++", "--":
				problem = max(problem, 4)
			}
		}
	}
	return
}

// normalizedNumber is a number literal as gofmt writes it: lower-case prefix and exponent.
func normalizedNumber(x string) string {
	if len(x) < 2 {
		return x
	}
	switch x[:2] {
	case "0X":
		x = "0x" + x[2:]
		fallthrough
	case "0x":
		if i := strings.LastIndexByte(x, 'P'); i >= 0 {
			x = x[:i] + "p" + x[i+1:]
		}
	case "0O":
		x = "0o" + x[2:]
	case "0B":
		x = "0b" + x[2:]
	case "0o", "0b":
	default:
		if i := strings.LastIndexByte(x, 'E'); i >= 0 {
			x = x[:i] + "e" + x[i+1:]
		}
	}
	return x
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
