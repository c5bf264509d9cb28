package gen

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
)

// reserved names cannot be declared by a manifest: the generated code uses them itself, or
// Go gives them a meaning a formula must not change.
var reserved = []string{"op", "err", "flops", "bytes", "nil", "true", "false", "iota", "_",
	"int", "int64", "float64", "bool", "string", "any", "error", "len", "cap", "append",
	"make", "new", "copy", "delete", "panic", "print", "println", "recover", "clear",
	"complex", "real", "imag", "close", "byte", "rune", "uint", "uint64", "int32", "float32"}

// isReserved reports whether a manifest may not declare name: a reserved name, or one holding
// "roofline" in any case, which the generated code keeps for its own (rooflineFlops,
// rooflineCk, the helpers' rooflineFloordiv, ...).
func isReserved(name string) bool {
	return slices.Contains(reserved, name) || strings.Contains(strings.ToLower(name), "roofline")
}

// gate checks an op's roofline (docs/model.md §7.2-7.3): names, layers and node kinds. It is the
// authoritative gate: any finding here means the op is not emitted.
type gate struct {
	m  *opModel
	fs diag.Findings
}

func (g *gate) errorf(pos diag.Pos, field, format string, args ...any) {
	g.fs = append(g.fs, diag.Finding{Pos: pos, Op: g.m.op.Name, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// checkOp runs the gate over one implemented op.
func checkOp(op *manifest.Op) (*opModel, diag.Findings) {
	m := &opModel{op: op, dims: op.Dims(), used: map[string]nameKind{}, helpers: map[string]bool{}}
	g := &gate{m: m}
	g.checkDeclaredNames()
	r := op.Roofline
	if r == nil {
		g.errorf(op.Pos, "roofline", "missing roofline")
		return m, g.fs
	}
	if r.Func == nil {
		g.checkFieldNames()
	}
	if r.Func != nil {
		name, off, msg := manifest.FuncName(r.Func.Value)
		if msg != "" {
			g.errorf(r.Func.At(off), "roofline.func", "%s", msg)
		}
		m.fn, m.fnFile = name, r.Func.Pos
		return m, g.fs
	}
	for i, v := range r.Vars {
		f := g.parse(v.Name.Value, "roofline.vars."+v.Name.Value, v.Expr, VarsLayer)
		g.checkVarName(v, r.Vars[:i])
		m.vars = append(m.vars, f)
	}
	m.flops = g.parse("flops", "roofline.flops", *r.Flops, ArithLayer)
	m.bytes = g.parse("bytes", "roofline.bytes", *r.Bytes, ArithLayer)
	for i, f := range m.vars {
		g.walkFormula(f, i)
	}
	g.walkFormula(m.flops, len(m.vars))
	g.walkFormula(m.bytes, len(m.vars))
	if len(g.fs) == 0 { // an earlier finding may have stopped the walk before a use
		g.checkUnusedVars()
	}
	return m, g.fs
}

// checkDeclaredNames refuses declared names that would collide in the generated code.
func (g *gate) checkDeclaredNames() {
	op := g.m.op
	check := func(name string, pos diag.Pos, field string) {
		if isReserved(name) {
			g.errorf(pos, field, "name %q is reserved by Go or by the generated code; rename it", name)
		}
		if _, ok := lookupHelper(name); ok {
			g.errorf(pos, field, "name %q shadows the helper %s; rename it", name, name)
		}
	}
	for _, t := range slices.Concat(op.Inputs, op.Outputs) {
		check(t.Name, t.Pos, "signature")
	}
	for _, p := range op.Params {
		check(p.Name, p.Pos, "signature.params."+p.Name)
	}
	for _, d := range g.m.dims {
		if isReserved(d) {
			g.errorf(op.Pos, "signature", "dim %q is reserved by Go or by the generated code; rename it", d)
		}
	}
}

// checkFieldNames refuses two names of an inline op's signature that bind to one Go field
// (docs/binding.md: split on "_", upper-case each part): param k and dim K both read op.K,
// head_dim and head__dim both op.HeadDim, a param d_type reads op.DType, the element type that
// elem_bytes reads. One field holds one value, so the formulas would silently use it for
// both. Every name counts, read by a formula or not: the op's constructor and Forward set the
// field for the one name, and a formula reading the other would get its value.
func (g *gate) checkFieldNames() {
	op := g.m.op
	type named struct {
		what string // "param k"
		pos  diag.Pos
		key  string // the finding's field
	}
	owner := map[string]named{"DType": {what: "elem_bytes (the element type)"}}
	bind := func(field string, n named) {
		if prev, ok := owner[field]; ok {
			at := ""
			if prev.pos.Line > 0 {
				at = " at " + prev.pos.String()
			}
			g.errorf(n.pos, n.key, "%s and %s%s both bind to the Go field %s (docs/binding.md: split on _, upper-case each part); one field cannot hold both: rename one",
				n.what, prev.what, at, field)
			return
		}
		owner[field] = n
	}
	for _, d := range g.m.dims {
		bind(fieldName(d), named{"dim " + d, dimPos(op, d), "signature"})
	}
	for _, p := range op.Params {
		bind(fieldName(p.Name), named{"param " + p.Name, p.Pos, "signature.params." + p.Name})
	}
	for _, t := range op.Inputs {
		bind(fieldName(t.Name)+"Shape", named{"input " + t.Name + "'s bound shape", t.Pos, "signature.inputs." + t.Name})
	}
}

// dimPos is where dim d is first written in the op's fixed-rank shapes, else the op's
// position.
func dimPos(op *manifest.Op, d string) diag.Pos {
	ident := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
	}
	for _, t := range slices.Concat(op.Inputs, op.Outputs) {
		if t.Shape == nil {
			continue
		}
		s := t.Shape.Value
		for i := strings.Index(s, d); i >= 0; {
			if end := i + len(d); (i == 0 || !ident(s[i-1])) && (end == len(s) || !ident(s[end])) {
				return t.Shape.At(i)
			}
			j := strings.Index(s[i+1:], d)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return op.Pos
}

// checkVarName refuses a var that shadows anything a formula could otherwise mean.
func (g *gate) checkVarName(v manifest.Var, earlier []manifest.Var) {
	name, pos, field := v.Name.Value, v.Name.Pos, "roofline.vars."+v.Name.Value
	what := map[nameKind]string{kindDim: "the dim", kindParam: "the param", kindInput: "the input",
		kindOptional: "the input", kindOutput: "the output", kindElemBytes: "the constant", kindHelper: "the helper"}
	switch k := g.m.kindOf(name); {
	case k != kindNone:
		g.errorf(pos, field, "var %s shadows %s %s; rename the var", name, what[k], name)
	case slices.ContainsFunc(earlier, func(e manifest.Var) bool { return e.Name.Value == name }):
		g.errorf(pos, field, "var %s is declared twice", name)
	case isReserved(name):
		g.errorf(pos, field, "name %q is reserved by Go or by the generated code; rename it", name)
	case pythonOnly[name] != "":
		g.errorf(pos, field, "var %s hides a name the gate explains (%s); rename it", name, pythonOnly[name])
	}
}

// MaxFormulaBytes is the longest formula the gate accepts. The gate, the type check and
// emission are linear in a formula's length, but the emitted expression nests one checked
// call per operation, and no roofline needs a formula of more than a few hundred bytes (the
// catalog's longest is 127): longer ones are refused rather than handed to the compiler.
const MaxFormulaBytes = 4096

// parse scans and parses one formula. Comments and Python-only syntax are refused at the
// token level first: go/parser would otherwise drop `// 2` as a comment without a word.
func (g *gate) parse(name, field string, src manifest.Str, layer Layer) *formula {
	f := &formula{name: name, field: field, src: src, layer: layer, fset: token.NewFileSet()}
	if len(src.Value) > MaxFormulaBytes {
		g.errorf(src.At(0), field, "formula is %d bytes; the limit is %d: split it into vars", len(src.Value), MaxFormulaBytes)
		return f
	}
	if g.scanTokens(f) {
		return f
	}
	e, err := parser.ParseExprFrom(f.fset, "", src.Value, 0)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			g.errorf(src.At(list[0].Pos.Offset), field, "syntax: %s", list[0].Msg)
		} else {
			g.errorf(src.At(0), field, "syntax: %v", err)
		}
		return f
	}
	f.expr = e
	return f
}

// scanTokens reports Python-isms and comments with a hint; it returns true if it found any.
func (g *gate) scanTokens(f *formula) bool {
	var s scanner.Scanner
	file := f.fset.AddFile("", -1, len(f.src.Value))
	bad := false
	report := func(off int, format string, args ...any) {
		bad = true
		g.errorf(f.src.At(off), f.field, format, args...)
	}
	s.Init(file, []byte(f.src.Value), func(pos token.Position, msg string) {
		if strings.Contains(msg, "U+0023") {
			report(pos.Offset, "`#` starts a comment in Python; formulas have no comments")
			return
		}
		report(pos.Offset, "syntax: %s", msg)
	}, scanner.ScanComments)
	prev, prevEnd := token.ILLEGAL, -1
	afterIs := false // inside `is not None`: one hint for the phrase, not one per word
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		switch {
		case tok == token.COMMENT && strings.HasPrefix(lit, "//"):
			report(off, "`//` starts a comment in Go, so the rest of the formula would be ignored; for floor division use floordiv(a, b)")
		case tok == token.COMMENT:
			report(off, "comments are not allowed in formulas")
		case tok == token.MUL && prev == token.MUL && prevEnd == off:
			report(off-1, "`**` is not Go; write the product out (x * x) or use func mode")
		case tok == token.IF:
			report(off, "Go has no conditional expression (a if c else b); write cond(c, a, b)")
		case tok == token.FOR:
			report(off, "no comprehensions or loops in formulas; use product or sum, or func mode")
		case tok == token.STRING || tok == token.CHAR:
			report(off, "string literals have no place in formulas")
		case tok == token.IDENT && afterIs && (lit == "not" || lit == "None"):
		case tok == token.IDENT && (lit == "and" || lit == "or" || lit == "not" || lit == "None" || lit == "True" || lit == "False" || lit == "in" || lit == "is"):
			report(off, "`%s` is Python; %s", lit, pythonOnly[lit])
		}
		afterIs = tok == token.IDENT && (lit == "is" || afterIs && lit == "not")
		prev, prevEnd = tok, off+len(tok.String())
		if lit != "" {
			prevEnd = off + len(lit)
		}
	}
	return bad
}

// walkFormula checks every node of f. varIndex is the number of vars visible to it: the
// vars declared before it in the vars layer, all vars in the arithmetic layer.
func (g *gate) walkFormula(f *formula, varIndex int) {
	if f.expr == nil {
		return
	}
	w := &walker{g: g, f: f, visible: g.m.vars[:varIndex]}
	w.expr(f.expr)
}

type walker struct {
	g       *gate
	f       *formula
	visible []*formula
}

func (w *walker) errorf(n ast.Node, format string, args ...any) {
	w.errorfAt(n.Pos(), format, args...)
}

// errorfAt reports a finding at a token of the formula, such as a binary operator.
func (w *walker) errorfAt(p token.Pos, format string, args ...any) {
	w.g.errorf(w.f.src.At(w.f.fset.Position(p).Offset), w.f.field, format, args...)
}

func (w *walker) vars() bool { return w.f.layer == VarsLayer }

func (w *walker) expr(n ast.Expr) {
	switch n := n.(type) {
	case *ast.BasicLit:
		if n.Kind != token.INT && n.Kind != token.FLOAT {
			w.errorf(n, "%s literals have no place in formulas", strings.ToLower(n.Kind.String()))
		}
		if n.Kind == token.INT {
			w.octal(n)
		}
	case *ast.Ident:
		w.ident(n)
	case *ast.ParenExpr:
		w.expr(n.X)
	case *ast.UnaryExpr:
		if n.Op != token.SUB && n.Op != token.ADD && n.Op != token.NOT {
			w.errorf(n, "operator %s is not allowed in formulas", n.Op)
			return
		}
		w.expr(n.X)
	case *ast.BinaryExpr:
		w.binary(n)
	case *ast.CallExpr:
		w.call(n)
	case *ast.SelectorExpr:
		w.selector(n)
	case *ast.IndexExpr:
		if !w.vars() {
			w.errorf(n, "indexing belongs to the vars layer; bind the value as a var")
			return
		}
		w.expr(n.X)
		w.index(n.Index)
	case *ast.SliceExpr:
		if !w.vars() {
			w.errorf(n, "slicing belongs to the vars layer; bind the value as a var")
			return
		}
		if n.Slice3 {
			w.errorf(n, "three-index slices are not allowed in formulas")
		}
		w.expr(n.X)
		for _, e := range []ast.Expr{n.Low, n.High} {
			if e != nil {
				w.index(e)
			}
		}
	case *ast.StarExpr:
		w.errorf(n, "pointer dereference is not allowed in formulas; read a nullable param with valueor(p, default) or mustvalue(p)")
	case *ast.FuncLit:
		w.errorf(n, "function literals are not allowed in formulas")
	case *ast.CompositeLit:
		w.errorf(n, "composite literals are not allowed in formulas")
	case *ast.TypeAssertExpr:
		w.errorf(n, "type assertions are not allowed in formulas")
	case *ast.IndexListExpr:
		w.errorf(n, "type instantiation is not allowed in formulas")
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
		w.errorf(n, "types are not allowed in formulas")
	default:
		w.errorf(n, "this construct is not allowed in formulas")
	}
}

// octal refuses an integer literal with a leading zero (010, 0_17): Go reads it as octal,
// where Python refuses it (leading zeros are not permitted; 0o10 is its octal), so the
// number a reader of the Python dialect sees is not the one the generated code computes.
// 0o10, 0x10 and 0b10 read alike in both, and so do 0 and 00.
func (w *walker) octal(n *ast.BasicLit) {
	lit := n.Value
	if len(lit) < 2 || lit[0] != '0' || !(lit[1] == '_' || lit[1] >= '0' && lit[1] <= '9') {
		return
	}
	digits := strings.TrimLeft(strings.ReplaceAll(lit, "_", ""), "0")
	if digits == "" {
		return
	}
	v, err := strconv.ParseInt(lit, 0, 64)
	eight := "too large"
	if err == nil {
		eight = strconv.FormatInt(v, 10)
	}
	w.errorf(n, "%s is octal in Go (%s) and an error in Python (leading zeros are not permitted): write %s for decimal, or 0o%s for octal",
		lit, eight, digits, strings.TrimLeft(lit[1:], "_"))
}

// index checks an index or slice bound; Python's negative indexing gets a hint, since Go
// refuses a negative constant index and would panic on a negative computed one.
func (w *walker) index(e ast.Expr) {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		if _, lit := u.X.(*ast.BasicLit); lit {
			w.errorf(e, "Go has no negative indexing; write x.shape[x.ndim-1] or x.shape[normdim(-1, x.ndim)]")
			return
		}
	}
	w.expr(e)
}

func (w *walker) binary(n *ast.BinaryExpr) {
	if n.Op == token.EQL || n.Op == token.NEQ {
		if w.nilCompare(n.X, n.Y) || w.nilCompare(n.Y, n.X) {
			return
		}
	}
	switch n.Op {
	case token.ADD, token.SUB, token.MUL, token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
	case token.QUO:
		w.errorfAt(n.OpPos, "`/` truncates in Go and is true division in Python; write floordiv(a, b) or cdiv(a, b)")
		return
	case token.REM:
		w.errorfAt(n.OpPos, "`%%` truncates in Go and floors in Python; write floormod(a, b)")
		return
	default:
		w.errorfAt(n.OpPos, "operator %s is not allowed in formulas", n.Op)
		return
	}
	w.expr(n.X)
	w.expr(n.Y)
}

// nilCompare accepts `opt != nil` for an optional input opt and `p == nil` for a nullable
// param p. A name that is never nil compared with nil is refused here, naming what it is.
func (w *walker) nilCompare(a, b ast.Expr) bool {
	ia, ok1 := a.(*ast.Ident)
	ib, ok2 := b.(*ast.Ident)
	if !ok1 || !ok2 || ib.Name != "nil" || ia.Name == "nil" {
		return false
	}
	m := w.g.m
	switch k := m.kindOf(ia.Name); {
	case k == kindOptional:
		m.used[ia.Name] = kindOptional
	case w.nullable(ia.Name):
		m.used[ia.Name] = kindParam
	case k == kindParam:
		w.errorf(ia, "param %s has type %s, so it is never nil; %s", ia.Name, m.op.Param(ia.Name).Type.Value, nilOnly)
	case k == kindDim:
		w.errorf(ia, "dim %s is an int, never nil; %s", ia.Name, nilOnly)
	case k == kindInput:
		w.errorf(ia, "input %s is required (not optional), so it is never nil; %s", ia.Name, nilOnly)
	case k == kindElemBytes || k == kindNone && w.isVar(ia.Name):
		w.errorf(ia, "%s is never nil; %s", ia.Name, nilOnly)
	default:
		return false
	}
	return true
}

// nilOnly says what nil compares with.
const nilOnly = "nil compares only with an optional input (bias != nil) or a nullable param (type *int, *float64, ...)"

// nullable reports whether name is a nullable param (a pointer type: *int, *float64, ...).
func (w *walker) nullable(name string) bool {
	p := w.g.m.op.Param(name)
	return p != nil && p.Nullable()
}

// nullableUse is the finding for a nullable param named anywhere but in a nil comparison or
// as the first argument of valueor or mustvalue.
func (w *walker) nullableUse(n *ast.Ident) {
	t := w.g.m.op.Param(n.Name).Type.Value
	w.errorf(n, "%s is a nullable param (%s, None in Python): compare it with nil (%s != nil), or read it with valueor(%s, default) or mustvalue(%s)",
		n.Name, t, n.Name, n.Name, n.Name)
}

func (w *walker) call(n *ast.CallExpr) {
	if n.Ellipsis.IsValid() {
		w.errorf(n, "`...` is not allowed in formulas")
		return
	}
	switch fn := n.Fun.(type) {
	case *ast.Ident:
		h, ok := lookupHelper(fn.Name)
		switch {
		case ok && h.Layers&w.f.layer == 0:
			w.errorf(fn, "%s is a %s-layer helper; compute it in vars and use the var here", fn.Name, VarsLayer)
			return
		case ok && h.Nullable:
			w.g.m.helpers[fn.Name] = true
			if len(n.Args) > 0 {
				if id, isIdent := n.Args[0].(*ast.Ident); isIdent && w.nullable(id.Name) {
					w.g.m.used[id.Name] = kindParam
				} else if isIdent {
					w.errorf(id, "%s reads a nullable param (type *int, *float64, ...); %s is not one", fn.Name, id.Name)
				} else {
					w.errorf(n.Args[0], "%s reads a nullable param (type *int, *float64, ...); its first argument must be one", fn.Name)
				}
				for _, a := range n.Args[1:] {
					w.expr(a)
				}
			}
			return // too few arguments: the type check says so
		case ok:
			w.g.m.helpers[fn.Name] = true
		case pythonOnly[fn.Name] != "":
			w.errorf(fn, "%s is not a helper of the Go dialect: %s", fn.Name, pythonOnly[fn.Name])
			return
		case w.g.m.kindOf(fn.Name) != kindNone || w.isVar(fn.Name):
			w.errorf(fn, "%s is not a function", fn.Name)
			return
		default:
			w.errorf(fn, "undefined function: %s%s", fn.Name, suggest(fn.Name, w.helperNames()))
			return
		}
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok && w.g.m.kindOf(x.Name) != kindNone {
			w.errorf(fn, "%s.%s(): inputs, outputs and params have no methods (a tensor exposes only .shape and .ndim)%s", x.Name, fn.Sel.Name, hintFor(fn))
			return
		}
		w.errorf(fn, "package-qualified names are not allowed in formulas%s", hintFor(fn))
		return
	case *ast.FuncLit:
		w.expr(fn)
		return
	default:
		w.errorf(n, "only helpers can be called in formulas")
		return
	}
	for _, a := range n.Args {
		w.expr(a)
	}
}

// hintFor explains a package-qualified name: a helper that does the job, or what the
// package's name means in the dialect.
func hintFor(sel *ast.SelectorExpr) string {
	if h, ok := lookupHelper(strings.ToLower(sel.Sel.Name)); ok {
		return "; call the helper " + h.Name + " directly"
	}
	if h := pythonOnly[strings.ToLower(sel.Sel.Name)]; h != "" {
		return "; " + h
	}
	if x, ok := sel.X.(*ast.Ident); ok && pythonOnly[x.Name] != "" {
		return "; " + pythonOnly[x.Name]
	}
	return ""
}

func (w *walker) selector(n *ast.SelectorExpr) {
	x, ok := n.X.(*ast.Ident)
	if !ok {
		w.errorf(n, "selectors are allowed only as x.shape and x.ndim on an input tensor")
		return
	}
	switch kind := w.g.m.kindOf(x.Name); {
	case kind == kindInput && !w.vars():
		w.errorf(n, "tensor access (%s.%s) belongs to the vars layer; bind the value as a var", x.Name, n.Sel.Name)
	case kind == kindInput && n.Sel.Name != "shape" && n.Sel.Name != "ndim":
		w.errorf(n.Sel, "a tensor exposes only .shape and .ndim, not .%s", n.Sel.Name)
	case kind == kindInput:
		w.g.m.used[x.Name] = kindInput
	case kind == kindOptional:
		w.errorf(n, "optional input %s may only be compared with nil (%s != nil); a formula that needs its shape belongs in func mode", x.Name, x.Name)
	case kind == kindOutput:
		w.errorf(n, "output %s cannot be read by a formula; name its dims in its declared shape instead", x.Name)
	case kind != kindNone || w.isVar(x.Name):
		w.errorf(n, "selectors are allowed only as x.shape and x.ndim on an input tensor")
	default:
		w.errorf(n, "package-qualified names are not allowed in formulas%s", hintFor(n))
	}
}

func (w *walker) isVar(name string) bool {
	return slices.ContainsFunc(w.g.m.vars, func(f *formula) bool { return f.name == name })
}

func (w *walker) ident(n *ast.Ident) {
	name := n.Name
	if name == "true" || name == "false" {
		return
	}
	if slices.ContainsFunc(w.visible, func(f *formula) bool { return f.name == name }) {
		w.g.m.used[name] = kindVar
		return
	}
	if w.isVar(name) && w.g.m.kindOf(name) == kindNone {
		if name == w.f.name {
			w.errorf(n, "var %s refers to itself", name)
		} else {
			w.errorf(n, "var %s is declared after %s; vars resolve in declaration order", name, w.f.name)
		}
		return
	}
	switch kind := w.g.m.kindOf(name); kind {
	case kindParam:
		if w.nullable(name) {
			w.nullableUse(n)
			return
		}
		w.g.m.used[name] = kind
	case kindDim, kindElemBytes:
		w.g.m.used[name] = kind
	case kindInput:
		if w.vars() {
			w.errorf(n, "tensor %s: use %s.shape or %s.ndim", name, name, name)
		} else {
			w.errorf(n, "tensor %s belongs to the vars layer; bind what you need as a var (e.g. N: \"%s.shape[0]\")", name, name)
		}
	case kindOptional:
		w.errorf(n, "optional input %s may only be compared with nil (%s != nil)", name, name)
	case kindOutput:
		w.errorf(n, "output %s cannot be read by a formula; name its dims in its declared shape instead", name)
	case kindHelper:
		w.errorf(n, "helper %s must be called", name)
	default:
		if name == "nil" {
			w.errorf(n, "nil may only be compared with an optional input (bias != nil) or a nullable param (type *int, *float64, ...)")
			return
		}
		if h := pythonOnly[name]; h != "" {
			w.errorf(n, "undefined: %s (%s)", name, h)
			return
		}
		w.errorf(n, "undefined: %s%s", name, suggest(name, w.scopeNames()))
	}
}

// scopeNames lists every name a formula of this layer could mean.
func (w *walker) scopeNames() []string {
	m := w.g.m
	names := []string{elemBytes}
	names = append(names, m.dims...)
	for _, p := range m.op.Params {
		names = append(names, p.Name)
	}
	if w.vars() {
		for _, t := range m.op.Inputs {
			names = append(names, t.Name)
		}
	}
	for _, f := range w.visible {
		names = append(names, f.name)
	}
	return names
}

func (w *walker) helperNames() []string {
	var names []string
	for _, h := range Helpers {
		if h.Layers&w.f.layer != 0 {
			names = append(names, h.Name)
		}
	}
	return names
}

// checkUnusedVars refuses a var no later formula reads: it would not compile in Go, and
// it is almost always a typo elsewhere.
func (g *gate) checkUnusedVars() {
	for _, v := range g.m.vars {
		if g.m.used[v.name] != kindVar {
			g.errorf(v.src.Pos, v.field, "var %s is not used by flops, bytes or a later var", v.name)
		}
	}
}

// suggest returns a "did you mean" hint: the closest candidate within edit distance 2, or
// one that differs only in case.
func suggest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if strings.EqualFold(name, c) {
			d = 0
		}
		if d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if best == "" || best == name {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
