package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// The proof behind the verbatim formulas: interval arithmetic over a formula's typed AST.
// Every int value gets a range [lo, hi]; a step (+, -, *, unary -, a helper) is safe when
// every value its operands' ranges allow gives a result that fits int64 and the helper cannot
// refuse. A formula whose every step is safe is emitted as written; an unsafe step is
// emitted as the runtime's checked operation.

// ival is the range of an int value, both ends included.
type ival struct{ lo, hi int64 }

// full is the range of an int the analysis knows nothing about.
var full = ival{math.MinInt64, math.MaxInt64}

// prover analyzes formulas of one op in order; env holds the range of every int name known.
type prover struct {
	env   map[string]ival
	guard *guard // when not nil, the bounds of its leaves replace env's
	// unsafe, when not nil, records the arithmetic steps that can overflow, for the rewriter.
	unsafe map[ast.Expr]bool
	ok     bool // no step so far can overflow, and no helper or index can refuse
}

func newProver(env map[string]ival, record bool) *prover {
	p := &prover{env: env, ok: true}
	if record {
		p.unsafe = map[ast.Expr]bool{}
	}
	return p
}

func (p *prover) bad(e ast.Expr) ival {
	p.ok = false
	if p.unsafe != nil {
		p.unsafe[e] = true
	}
	return full
}

// formula returns the range of f's value; p.ok turns false if some step of f may fail.
func (p *prover) formula(f *formula) ival {
	return p.expr(f.typed, f.typed.expr)
}

func isIntType(t types.Type) bool { return t != nil && types.Identical(t, types.Typ[types.Int]) }

func (p *prover) expr(t *typedFormula, e ast.Expr) ival {
	tv := t.info.Types[e]
	if tv.Value != nil {
		// A constant: Go evaluates it exactly at compile time (the type check refused one
		// that does not fit).
		if v, ok := constantInt64(tv); ok {
			return ival{v, v}
		}
		return full
	}
	isInt := isIntType(tv.Type)
	switch e := e.(type) {
	case *ast.Ident:
		if !isInt {
			return full
		}
		if p.guard != nil {
			if r, ok := p.guard.bound(e.Name); ok {
				return r
			}
		}
		if r, ok := p.env[e.Name]; ok {
			return r
		}
		return full
	case *ast.ParenExpr:
		return p.expr(t, e.X)
	case *ast.SelectorExpr: // x.ndim (x.shape is a []int)
		p.expr(t, e.X)
		if e.Sel.Name == "ndim" {
			return ival{0, math.MaxInt64}
		}
		return full
	case *ast.IndexExpr: // out of range is a panic
		p.expr(t, e.X)
		p.expr(t, e.Index)
		p.ok = false
		return full
	case *ast.SliceExpr:
		p.expr(t, e.X)
		for _, x := range []ast.Expr{e.Low, e.High, e.Max} {
			if x != nil {
				p.expr(t, x)
			}
		}
		p.ok = false
		return full
	case *ast.UnaryExpr:
		x := p.expr(t, e.X)
		if e.Op == token.SUB && isInt {
			if x.lo == math.MinInt64 {
				return p.bad(e)
			}
			return ival{-x.hi, -x.lo}
		}
		return x
	case *ast.BinaryExpr:
		x, y := p.expr(t, e.X), p.expr(t, e.Y)
		if !isInt {
			return full // a comparison, && or ||, or float arithmetic (nothing to overflow)
		}
		var r ival
		var ok bool
		switch e.Op {
		case token.ADD:
			r, ok = addI(x, y)
		case token.SUB:
			if y.lo != math.MinInt64 {
				r, ok = addI(x, ival{-y.hi, -y.lo})
			}
		case token.MUL:
			r, ok = mulI(x, y)
		default:
			return full // the gate allows no other int operator
		}
		if !ok {
			return p.bad(e)
		}
		return r
	case *ast.CallExpr:
		return p.call(t, e, isInt)
	}
	return full
}

func (p *prover) call(t *typedFormula, e *ast.CallExpr, isInt bool) ival {
	args := make([]ival, len(e.Args))
	for i, a := range e.Args {
		args[i] = p.expr(t, a)
	}
	name := e.Fun.(*ast.Ident).Name // the gate allows only helper calls
	switch name {
	case "len":
		return ival{0, math.MaxInt64}
	case "min", "max":
		r := args[0]
		for _, a := range args[1:] {
			if name == "min" {
				r = ival{min(r.lo, a.lo), min(r.hi, a.hi)}
			} else {
				r = ival{max(r.lo, a.lo), max(r.hi, a.hi)}
			}
		}
		if !isInt {
			return full
		}
		return r
	case "cond": // eager: both arms run
		if !isInt {
			return full
		}
		return ival{min(args[1].lo, args[2].lo), max(args[1].hi, args[2].hi)}
	case "abs":
		a := args[0]
		if a.lo == math.MinInt64 {
			p.ok = false
			return full
		}
		switch {
		case a.lo >= 0:
			return a
		case a.hi <= 0:
			return ival{-a.hi, -a.lo}
		}
		return ival{0, max(-a.lo, a.hi)}
	case "floordiv", "cdiv", "floormod":
		a, b := args[0], args[1]
		if b.lo <= 0 && b.hi >= 0 || a.lo == math.MinInt64 {
			p.ok = false // b may be 0, or math.MinInt64 / -1
			return full
		}
		if name == "floormod" {
			if b.lo > 0 {
				return ival{0, b.hi - 1}
			}
			return ival{b.lo + 1, 0}
		}
		// For b of one sign the quotient is monotone in a and in b: the corners bound it.
		div := floorDiv
		if name == "cdiv" {
			div = func(a, b int64) int64 { return -floorDiv(-a, b) }
		}
		r := ival{math.MaxInt64, math.MinInt64}
		for _, x := range []int64{a.lo, a.hi} {
			for _, y := range []int64{b.lo, b.hi} {
				q := div(x, y)
				r = ival{min(r.lo, q), max(r.hi, q)}
			}
		}
		return r
	case "log2", "clog2":
		a := args[0]
		if a.lo < 1 {
			p.ok = false
			return full
		}
		if name == "log2" {
			return ival{int64(bits.Len64(uint64(a.lo)) - 1), int64(bits.Len64(uint64(a.hi)) - 1)}
		}
		return ival{int64(bits.Len64(uint64(a.lo) - 1)), int64(bits.Len64(uint64(a.hi) - 1))}
	case "normdim": // [0, ndim) when it does not refuse
		p.ok = false
		return ival{0, max(0, args[1].hi-1)}
	case "valueor":
		return full // the nullable param's value is unbounded
	}
	// product, sum, mustvalue: unbounded, or refusing.
	p.ok = false
	return full
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func addI(x, y ival) (ival, bool) {
	lo, ok1 := add64(x.lo, y.lo)
	hi, ok2 := add64(x.hi, y.hi)
	return ival{lo, hi}, ok1 && ok2
}

func mulI(x, y ival) (ival, bool) {
	r := ival{math.MaxInt64, math.MinInt64}
	for _, a := range []int64{x.lo, x.hi} {
		for _, b := range []int64{y.lo, y.hi} {
			c, ok := mul64(a, b)
			if !ok {
				return full, false
			}
			r = ival{min(r.lo, c), max(r.hi, c)}
		}
	}
	return r, true
}

func add64(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

func mul64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	hi -= uint64(b)&uint64(a>>63) + uint64(a)&uint64(b>>63)
	return int64(lo), hi == uint64(int64(lo)>>63)
}

// guard is the bounds of the verbatim path: every int leaf the results read lies in
// [lo, 2^bits) where lo is 0, or 1 for a leaf that divides or takes a log2 (written (N-1)
// in the guard, which then bounds N to [1, 2^bits]); elem_bytes, when read, below 2^elemBits.
type guard struct {
	leaves   []string // sorted by first use
	one      map[string]bool
	elem     bool
	bits     int
	elemBits int
}

// maxElemBits bounds elem_bytes on the verbatim path: the widest element a dtype has is a
// few bytes; bounding it apart leaves the rest of the range to the dims.
const maxElemBits = 6

// source is the guard as Go, laid out as gofmt lays out an if's condition: no blanks inside
// uint(...) and around <<, blanks around < and &&.
func (g *guard) source() string {
	var terms []string
	leaves := g.leaves
	if g.merged() {
		leaves = append(slices.Clone(leaves), elemBytes)
	}
	for _, l := range leaves {
		switch {
		case !g.one[l]:
			terms = append(terms, l)
		case len(leaves) == 1:
			terms = append(terms, l+"-1")
		default:
			terms = append(terms, "("+l+"-1)")
		}
	}
	var conj []string
	if len(terms) > 0 {
		conj = append(conj, "uint("+strings.Join(terms, "|")+") < 1<<"+strconv.Itoa(g.bits))
	}
	if g.elem && !g.merged() {
		e := elemBytes
		if g.one[elemBytes] {
			e += "-1"
		}
		conj = append(conj, "uint("+e+") < 1<<"+strconv.Itoa(g.elemBits))
	}
	return strings.Join(conj, " && ")
}

// merged reports whether elem_bytes shares the dims' bound, so that the guard tests it in
// the same OR: one comparison where there would be two.
func (g *guard) merged() bool { return g.elem && g.elemBits == g.bits }

// bound returns the range the guard gives name, if it bounds it.
func (g *guard) bound(name string) (ival, bool) {
	if name == elemBytes {
		if !g.elem {
			return ival{}, false
		}
		if g.one[elemBytes] {
			return ival{1, 1 << g.elemBits}, true
		}
		return ival{0, 1<<g.elemBits - 1}, true
	}
	if !slices.Contains(g.leaves, name) {
		return ival{}, false
	}
	if g.one[name] {
		return ival{1, 1 << g.bits}, true
	}
	return ival{0, 1<<g.bits - 1}, true
}

// proveResults finds the guard under which no step of flops and bytes can fail, as wide as
// a binary search over its exponent finds. needed is false when no guard is needed at all
// (every step is safe for every value); ok is false when no bound helps (a helper that may
// refuse whatever the bounds, an unbounded nullable value).
func proveResults(m *opModel, base map[string]ival) (g *guard, needed, ok bool) {
	results := []*formula{m.flops, m.bytes}
	try := func(g *guard) bool {
		p := newProver(base, false)
		p.guard = g
		for _, f := range results {
			p.formula(f)
		}
		return p.ok
	}
	if try(nil) {
		return nil, false, true
	}
	g = &guard{one: map[string]bool{}}
	seen := map[string]bool{}
	for _, f := range results {
		collectLeaves(f, g, seen)
	}
	prove := func(b int) bool {
		g.bits, g.elemBits = b, min(b, maxElemBits)
		return try(g)
	}
	if len(g.leaves) == 0 && !g.elem || !prove(1) {
		return nil, true, false
	}
	lo, hi := 1, 62 // prove(lo) holds
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if prove(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	prove(lo)
	if g.elem && lo > maxElemBits {
		// elem_bytes under the dims' bound too, if that still proves: the guard is then one
		// OR and one comparison (GemmFwd's 2*M*N*K and (M*K+K*N+M*N)*elem_bytes both fit
		// with every leaf below 2^20).
		g.elemBits = lo
		if !try(g) {
			g.elemBits = maxElemBits
		}
	}
	return g, true, true
}

// collectLeaves adds the int names f reads (vars, dims, params, elem_bytes) to g, marking a
// name that a division helper divides by, or whose log2 is taken, as one that must be >= 1.
func collectLeaves(f *formula, g *guard, seen map[string]bool) {
	info := f.typed.info
	var walk func(e ast.Node) bool
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if !isIntType(info.TypeOf(n)) || info.Types[n].Value != nil {
				return true
			}
			if n.Name == elemBytes {
				g.elem = true
				return true
			}
			if !seen[n.Name] {
				seen[n.Name] = true
				g.leaves = append(g.leaves, n.Name)
			}
		case *ast.CallExpr:
			id := n.Fun.(*ast.Ident)
			var pos ast.Expr
			switch id.Name {
			case "floordiv", "cdiv", "floormod":
				pos = n.Args[1]
			case "log2", "clog2":
				pos = n.Args[0]
			}
			if x, ok := ast.Unparen(pos).(*ast.Ident); ok {
				g.one[x.Name] = true
			}
			for _, a := range n.Args {
				ast.Inspect(a, walk)
			}
			return false
		}
		return true
	}
	ast.Inspect(f.typed.expr, walk)
}
