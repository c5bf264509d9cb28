package roofrt

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"math"
	"math/big"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/gen"
	"github.com/ropgen/ropgen/manifest"
)

// The differential test of exact arithmetic: a formula of the language (a var V in the vars
// layer, flops in the arithmetic layer) goes through the whole generator (gate, type check,
// rewrite into checked operations), and the generated EvalRoofline body is run by a small
// interpreter that calls this package's real runtime and helpers. The reference evaluates
// the manifest's formula with math/big: every step whose true value fits int64 must give
// exactly that value, every step that does not must be an error; constant subexpressions
// are exact, as Go's; a refusal that is certain from constants alone (a constant that does
// not fit, floordiv by a constant 0, log2 of a constant below 1, negative constant flops)
// must be refused at generation. bytes is fixed ("cond(V == V, 1, 1)": it reads V).

const exactManifest = `Op:
  family: test
  status: implemented
  signature:
    inputs:
      x: {dtype: "float32"}
      a: {dtype: "float32", shape: "[M, K]"}
    outputs:
      y: {dtype: "float32"}
    params:
      dim: {type: int}
      dims: {type: "[]int"}
      causal: {type: bool}
  workloads:
    - {x_shape: [2, 8], M: 2, K: 8, dim: 0, dims: [1], causal: false, dtypes: [float32]}
  roofline:
    vars:
      V: %s
    flops: %s
    bytes: "cond(V == V, 1, 1)"
`

// exactInputs are the bound values of one evaluation.
type exactInputs struct {
	M, K, Dim int
	X, Dims   []int
	Causal    bool
}

func FuzzExact(f *testing.F) {
	const p62, p32 = 1 << 62, 1 << 32
	add := func(v, flops string, m, k int64) {
		f.Add(v, flops, m, k, int64(3), int64(5), int64(7), uint8(3), int64(2), int64(3), int64(-1), false)
	}
	// The cases of issue 11 item 5.
	add("M + M + M + M", "V + 1", p62, 1)                         // wrapped to 0 in the vars layer: flops was 1
	add("M", "cond(M * K > 0, 1, 2)", p62, 2)                     // the float shadow's tolerance hid it
	add("M", "log2(M * K)", p32, 5*(1<<30))                       // returned 62, true 64
	add("M", "M * K", 153092023, 60247241209)                     // 2^63 - 1 exactly: was refused
	add("floormod(M, K)", "V", 1<<55+12345, 1<<55-3)              // "overflows int64 (it is about 0)"
	add("floormod(M, K)", "floormod(M + 0, K - 0) + V", 1<<60, 3) // large operands, exact
	add("M", "M * K - 9223372036854775804", 3, 3074457345618258602)
	add("M", "M * K - V", 1<<31, 1<<31)
	add("M - K", "V", 1, 2)                         // negative flops: an error of its own
	add("M", "V * K - M * K", math.MaxInt64, 1)     // true value 0, every step fits
	add("M", "(M + 1) - 1", math.MaxInt64, 1)       // the first step overflows
	add("M", "-M", math.MinInt64, 1)                // negation overflows
	add("abs(M)", "V", math.MinInt64, 1)            // abs overflows
	add("floordiv(M, K)", "V", math.MinInt64, -1)   // the one division that overflows
	add("cdiv(M, K)", "V", math.MinInt64, -1)       // and its ceiling twin
	add("floordiv(M, K)", "cdiv(V, K) + 1", -7, 2)  // rounding directions
	add("product(x.shape)", "V * 2", 3, 5)          // vars-layer helpers
	add("product(x.shape[1:])", "V", 3, 5)          // slicing
	add("sum(dims) + len(dims)", "V + M", 3, 5)     // sum, len
	add("x.shape[normdim(dim, x.ndim)]", "V", 1, 1) // indexing, normdim
	add("x.shape[K]", "V", 1, 7)                    // an index out of range is an error
	add("clog2(M) + log2(K)", "min(V, M) + max(V, K)", 1000, 1024)
	add("log2(M)", "V", 0, 1)                             // log2 of 0 at run time
	add("M", "floordiv(M, 0)", 1, 1)                      // refused at generation
	add("M", "V + log2(0)", 1, 1)                         // refused at generation
	add("M", "0 - 5 + 0 * V", 1, 1)                       // not constant: -5 at run time, an error
	add("M", "9223372036854775807 + 1 - 1 + 0 * V", 1, 1) // a constant's steps are exact, as Go's
	add("M", "9223372036854775807 + V", 1, 1)
	add("cond(causal, M * K, K)", "V", p62, 4)                 // cond is eager; the product overflows
	add("M", "cond(V > 0 && K > 0, floordiv(V, K), 0)", 9, 0)  // eager cond: floordiv(9, 0) fails
	add("M", "cond(K != 0 && floordiv(V, K) > 1, 1, 0)", 9, 0) // && short-circuits
	add("M * K * 2", "V", p32, p32/4)
	add("M", "-(-V) + +K", 5, 6)
	f.Fuzz(func(t *testing.T, v, flops string, m, k, x0, x1, x2 int64, rank uint8, d0, d1, dim int64, causal bool) {
		// X and Dims have spare capacity: the generated code must not read past a length.
		in := exactInputs{M: int(m), K: int(k), Dim: int(dim), X: []int{int(x0), int(x1), int(x2), 99}[:rank%4], Dims: []int{int(d0), int(d1), 99}[:2], Causal: causal}
		checkExact(t, v, flops, in)
	})
}

func checkExact(t *testing.T, v, flops string, in exactInputs) {
	if strings.ContainsAny(v+flops, "\n\r") || len(v) > 300 || len(flops) > 300 {
		return
	}
	vExpr, err1 := parser.ParseExpr(v)
	fExpr, err2 := parser.ParseExpr(flops)
	if err1 != nil || err2 != nil {
		return
	}
	// The reference.
	ref := &refEval{in: in, env: map[string]refVal{}}
	want, wantErr := ref.run(vExpr, fExpr)
	if errors.Is(wantErr, errUnsupported) || errors.Is(wantErr, errNotInt) {
		return // outside the modelled language, or V is not an int: nothing to compare
	}
	// The generator.
	src := strings.Replace(strings.Replace(exactManifest, "%s", strconv.Quote(v), 1), "%s", strconv.Quote(flops), 1)
	file, fs := manifest.Parse("exact.yaml", []byte(src))
	if len(fs) > 0 {
		return
	}
	cat, fs := manifest.Decode([]*manifest.File{file})
	if len(fs) > 0 || len(cat.Ops) != 1 {
		return
	}
	out, fs := gen.Generate(gen.Config{Catalog: cat, Package: "p", FormulasImport: "p/formulas"})
	if len(fs) > 0 {
		certain := strings.Contains(fs.Error(), "always fails") || strings.Contains(fs.Error(), "cannot be negative")
		switch {
		case errors.Is(wantErr, errRefused):
		case certain && wantErr == nil:
			// A formula refused as always failing must fail on these inputs too. It may
			// fail first for another reason (a var dividing by a zero dim): that agrees.
			t.Fatalf("V = %q, flops = %q, %+v: refused at generation (%v), but the reference gives %d, %v", v, flops, in, fs, want, wantErr)
		}
		return // the gate's structural refusals are FuzzGate's to check
	}
	if errors.Is(wantErr, errRefused) {
		t.Fatalf("V = %q, flops = %q: generated, but the reference says Go refuses it (%v)\n%s", v, flops, wantErr, out.Files[gen.File])
	}
	code := out.Files[gen.File]
	compareExact(t, v, flops, code, in, want, wantErr)
	// The guard's boundary: M and K on either side of every bound the guard has.
	for _, b := range guardBounds(t, code) {
		for _, m := range []int{b - 1, b, b + 1} {
			for _, k := range []int{in.K, b - 1, b, b + 1} {
				at := in
				at.M, at.K = m, k
				ref := &refEval{in: at, env: map[string]refVal{}}
				want, wantErr := ref.run(vExpr, fExpr)
				compareExact(t, v, flops, code, at, want, wantErr)
			}
		}
	}
}

// compareExact runs the generated method on in, on the path the guard picks and on the
// checked path alone, and compares each with the reference.
func compareExact(t *testing.T, v, flops string, src []byte, in exactInputs, want int64, wantErr error) {
	t.Helper()
	for _, checked := range []bool{false, true} {
		got, _, gotErr, fast := runGenerated(t, src, in, checked)
		path := "the checked path"
		if fast {
			path = "the verbatim path"
		}
		switch {
		case wantErr != nil && gotErr == nil:
			t.Fatalf("V = %q, flops = %q, %+v: %s returns %d; the reference fails: %v\n%s", v, flops, in, path, got, wantErr, src)
		case wantErr == nil && gotErr != nil:
			t.Fatalf("V = %q, flops = %q, %+v: %s fails (%v); the reference gives %d\n%s", v, flops, in, path, gotErr, want, src)
		case wantErr == nil && got != want:
			t.Fatalf("V = %q, flops = %q, %+v: %s returns %d, the reference %d\n%s", v, flops, in, path, got, want, src)
		case wantErr != nil && errors.Is(wantErr, errNegative) != strings.Contains(gotErr.Error(), "is negative"):
			t.Fatalf("V = %q, flops = %q, %+v: %s fails with %v; the reference with %v (a negative count is an error of its own)", v, flops, in, path, gotErr, wantErr)
		}
	}
}

// guardBounds returns the bounds 1<<n of the generated guard, if there is one.
func guardBounds(t *testing.T, src []byte) []int {
	f, err := parser.ParseFile(token.NewFileSet(), gen.File, src, 0)
	if err != nil {
		t.Fatalf("generated code does not parse: %v", err)
	}
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.SHL {
			if x, ok := b.Y.(*ast.BasicLit); ok {
				n, _ := strconv.Atoi(x.Value)
				out = append(out, 1<<n)
			}
		}
		return true
	})
	return out
}

var (
	errUnsupported = errors.New("outside the modelled language")
	errNotInt      = errors.New("var V is not an int")
	errRefused     = errors.New("refused by the Go compiler")
	errFails       = errors.New("fails at run time")
	errNegative    = errors.New("negative flops")
)

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errRefused, fmt.Sprintf(format, args...))
}

func fails(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errFails, fmt.Sprintf(format, args...))
}

// isConst reports a constant expression of the language, as Go defines one.
func isConst(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT || e.Kind == token.FLOAT
	case *ast.Ident:
		return e.Name == "true" || e.Name == "false"
	case *ast.ParenExpr:
		return isConst(e.X)
	case *ast.UnaryExpr:
		return isConst(e.X)
	case *ast.BinaryExpr:
		return isConst(e.X) && isConst(e.Y)
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		return ok && (id.Name == "min" || id.Name == "max") && len(e.Args) > 0 && !slices.ContainsFunc(e.Args, func(a ast.Expr) bool { return !isConst(a) })
	}
	return false
}

// constEval evaluates a constant expression exactly, as the Go compiler does.
func constEval(e ast.Expr) (constant.Value, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		return constant.MakeFromLiteral(e.Value, e.Kind, 0), nil
	case *ast.Ident:
		return constant.MakeBool(e.Name == "true"), nil
	case *ast.ParenExpr:
		return constEval(e.X)
	case *ast.UnaryExpr:
		x, err := constEval(e.X)
		if err != nil {
			return nil, err
		}
		if (e.Op == token.NOT) != (x.Kind() == constant.Bool) || e.Op != token.NOT && e.Op != token.SUB && e.Op != token.ADD {
			return nil, refused("unary %s on %s", e.Op, x)
		}
		return constant.UnaryOp(e.Op, x, 0), nil
	case *ast.BinaryExpr:
		x, err := constEval(e.X)
		if err != nil {
			return nil, err
		}
		y, err := constEval(e.Y)
		if err != nil {
			return nil, err
		}
		xb, yb := x.Kind() == constant.Bool, y.Kind() == constant.Bool
		switch e.Op {
		case token.LAND, token.LOR:
			if !xb || !yb {
				return nil, refused("%s on non-bools", e.Op)
			}
			return constant.BinaryOp(x, e.Op, y), nil
		case token.EQL, token.NEQ:
			if xb != yb {
				return nil, refused("mismatched comparison")
			}
			return constant.MakeBool(constant.Compare(x, e.Op, y)), nil
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
			if xb || yb {
				return nil, refused("ordered comparison of bools")
			}
			return constant.MakeBool(constant.Compare(x, e.Op, y)), nil
		case token.ADD, token.SUB, token.MUL:
			if xb || yb {
				return nil, refused("arithmetic on bools")
			}
			return constant.BinaryOp(x, e.Op, y), nil
		}
		return nil, errUnsupported
	case *ast.CallExpr: // min or max of constants
		best, err := constEval(e.Args[0])
		if err != nil {
			return nil, err
		}
		for _, a := range e.Args[1:] {
			c, err := constEval(a)
			if err != nil {
				return nil, err
			}
			if c.Kind() == constant.Bool || best.Kind() == constant.Bool {
				return nil, refused("min/max of bools")
			}
			if op := map[string]token.Token{"min": token.LSS, "max": token.GTR}[e.Fun.(*ast.Ident).Name]; constant.Compare(c, op, best) {
				best = c
			}
		}
		return best, nil
	}
	return nil, errUnsupported
}

// constInt converts a constant to int as Go does where an int is needed.
func constInt(c constant.Value) (int64, error) {
	if c.Kind() == constant.Bool {
		return 0, refused("a bool where an int is needed")
	}
	i := constant.ToInt(c)
	if i.Kind() != constant.Int {
		return 0, refused("constant %s is not an integer", c)
	}
	v, exact := constant.Int64Val(i)
	if !exact {
		return 0, refused("constant %s overflows int", c)
	}
	return v, nil
}

// refVal is a reference value: an int (exact), a bool, a []int, a tensor, or an untyped
// constant.
type refVal struct {
	kind  byte // 'i' int, 'b' bool, 's' []int, 't' tensor, 'c' constant
	i     *big.Int
	b     bool
	s     []int
	c     constant.Value
	float bool // a constant of float kind (cond's type inference)
}

type refEval struct {
	in    exactInputs
	env   map[string]refVal
	arith bool
}

func (r *refEval) run(v, flops ast.Expr) (int64, error) {
	vv, err := r.eval(v)
	if err != nil {
		return 0, err
	}
	if vv.kind == 'c' {
		if vv.c.Kind() == constant.Bool {
			return 0, errNotInt
		}
		if vv.c.Kind() != constant.Int {
			return 0, errNotInt // V := 2.0 is a float64 var
		}
		n, err := constInt(vv.c)
		if err != nil {
			return 0, err
		}
		vv = refVal{kind: 'i', i: big.NewInt(n)}
	}
	if vv.kind != 'i' {
		return 0, errNotInt
	}
	r.env["V"] = vv
	r.arith = true
	fv, err := r.eval(flops)
	if err != nil {
		return 0, err
	}
	n, err := r.toInt(fv)
	if err != nil {
		return 0, err
	}
	if fv.kind == 'c' && n < 0 {
		return 0, refused("negative constant flops")
	}
	if n < 0 {
		return 0, fmt.Errorf("%w (%d)", errNegative, n)
	}
	return n, nil
}

// toInt returns an int value, converting a constant as Go would.
func (r *refEval) toInt(v refVal) (int64, error) {
	switch v.kind {
	case 'i':
		return v.i.Int64(), nil
	case 'c':
		return constInt(v.c)
	}
	return 0, refused("not an int")
}

func ints(v refVal) bool { return v.kind == 'i' || v.kind == 'c' && v.c.Kind() != constant.Bool }

func bools(v refVal) bool { return v.kind == 'b' || v.kind == 'c' && v.c.Kind() == constant.Bool }

func (r *refEval) toBool(v refVal) (bool, error) {
	switch {
	case v.kind == 'b':
		return v.b, nil
	case v.kind == 'c' && v.c.Kind() == constant.Bool:
		return constant.BoolVal(v.c), nil
	}
	return false, refused("not a bool")
}

func fit(x *big.Int, what string) (refVal, error) {
	if !x.IsInt64() {
		return refVal{}, fails("%s: %v does not fit int64", what, x)
	}
	return refVal{kind: 'i', i: x}, nil
}

func intVal(n int) refVal { return refVal{kind: 'i', i: big.NewInt(int64(n))} }

func (r *refEval) eval(e ast.Expr) (refVal, error) {
	if isConst(e) {
		c, err := constEval(e)
		if err != nil {
			return refVal{}, err
		}
		return refVal{kind: 'c', c: c, float: c.Kind() == constant.Float}, nil
	}
	switch e := e.(type) {
	case *ast.Ident:
		switch e.Name {
		case "M":
			return intVal(r.in.M), nil
		case "K":
			return intVal(r.in.K), nil
		case "dim":
			return intVal(r.in.Dim), nil
		case "causal":
			return refVal{kind: 'b', b: r.in.Causal}, nil
		case "dims":
			return refVal{kind: 's', s: r.in.Dims}, nil
		case "x":
			return refVal{kind: 't', s: r.in.X}, nil
		case "V":
			if v, ok := r.env["V"]; ok {
				return v, nil
			}
		}
		return refVal{}, errUnsupported
	case *ast.ParenExpr:
		return r.eval(e.X)
	case *ast.SelectorExpr:
		x, err := r.eval(e.X)
		if err != nil {
			return refVal{}, err
		}
		if x.kind != 't' || r.arith {
			return refVal{}, errUnsupported
		}
		switch e.Sel.Name {
		case "shape":
			return refVal{kind: 's', s: x.s}, nil
		case "ndim":
			return intVal(len(x.s)), nil
		}
		return refVal{}, errUnsupported
	case *ast.IndexExpr:
		if r.arith {
			return refVal{}, errUnsupported
		}
		x, err := r.eval(e.X)
		if err != nil {
			return refVal{}, err
		}
		iv, err := r.eval(e.Index)
		if err != nil {
			return refVal{}, err
		}
		if x.kind != 's' {
			return refVal{}, errUnsupported
		}
		i, err := r.toInt(iv)
		if err != nil {
			return refVal{}, err
		}
		if iv.kind == 'c' && i < 0 {
			return refVal{}, errUnsupported // the gate's own refusal (Go has no negative indexing)
		}
		if i < 0 || i >= int64(len(x.s)) {
			return refVal{}, fails("index %d out of range", i)
		}
		return intVal(x.s[i]), nil
	case *ast.SliceExpr:
		if r.arith || e.Slice3 {
			return refVal{}, errUnsupported
		}
		x, err := r.eval(e.X)
		if err != nil {
			return refVal{}, err
		}
		if x.kind != 's' {
			return refVal{}, errUnsupported
		}
		lo, hi := int64(0), int64(len(x.s))
		var constLo, constHi *int64
		for _, b := range []struct {
			e  ast.Expr
			v  *int64
			cv **int64
		}{{e.Low, &lo, &constLo}, {e.High, &hi, &constHi}} {
			if b.e == nil {
				continue
			}
			bv, err := r.eval(b.e)
			if err != nil {
				return refVal{}, err
			}
			n, err := r.toInt(bv)
			if err != nil {
				return refVal{}, err
			}
			if bv.kind == 'c' {
				if n < 0 {
					return refVal{}, refused("negative constant slice index")
				}
				c := n
				*b.cv = &c
			}
			*b.v = n
		}
		if constLo != nil && constHi != nil && *constLo > *constHi {
			return refVal{}, refused("inverted constant slice indices")
		}
		if lo < 0 || hi < lo || hi > int64(len(x.s)) {
			return refVal{}, fails("slice bounds [%d:%d] out of range", lo, hi)
		}
		return refVal{kind: 's', s: x.s[lo:hi]}, nil
	case *ast.UnaryExpr:
		x, err := r.eval(e.X)
		if err != nil {
			return refVal{}, err
		}
		switch e.Op {
		case token.NOT:
			b, err := r.toBool(x)
			return refVal{kind: 'b', b: !b}, err
		case token.SUB, token.ADD:
			if x.kind != 'i' {
				return refVal{}, refused("unary %s on a non-int", e.Op)
			}
			if e.Op == token.ADD {
				return x, nil
			}
			return fit(new(big.Int).Neg(x.i), "-")
		}
		return refVal{}, errUnsupported
	case *ast.BinaryExpr:
		return r.binary(e)
	case *ast.CallExpr:
		return r.call(e)
	}
	return refVal{}, errUnsupported
}

func (r *refEval) binary(e *ast.BinaryExpr) (refVal, error) {
	x, err := r.eval(e.X)
	if err != nil {
		return refVal{}, err
	}
	if e.Op == token.LAND || e.Op == token.LOR {
		xb, err := r.toBool(x)
		if err != nil {
			return refVal{}, err
		}
		if xb == (e.Op == token.LOR) { // short circuit: the right side is only type-checked
			y, err := r.evalTypeOnly(e.Y)
			if err != nil {
				return refVal{}, err
			}
			if !bools(y) {
				return refVal{}, refused("%s on a non-bool", e.Op)
			}
			return refVal{kind: 'b', b: xb}, nil
		}
		y, err := r.eval(e.Y)
		if err != nil {
			return refVal{}, err
		}
		yb, err := r.toBool(y)
		return refVal{kind: 'b', b: yb}, err
	}
	y, err := r.eval(e.Y)
	if err != nil {
		return refVal{}, err
	}
	switch e.Op {
	case token.EQL, token.NEQ:
		if bools(x) && bools(y) {
			xb, _ := r.toBool(x)
			yb, _ := r.toBool(y)
			return refVal{kind: 'b', b: (xb == yb) == (e.Op == token.EQL)}, nil
		}
	}
	if !ints(x) || !ints(y) {
		return refVal{}, refused("%s on non-ints", e.Op)
	}
	a, err := r.toInt(x)
	if err != nil {
		return refVal{}, err
	}
	b, err := r.toInt(y)
	if err != nil {
		return refVal{}, err
	}
	A, B := big.NewInt(a), big.NewInt(b)
	switch e.Op {
	case token.ADD:
		return fit(new(big.Int).Add(A, B), "+")
	case token.SUB:
		return fit(new(big.Int).Sub(A, B), "-")
	case token.MUL:
		return fit(new(big.Int).Mul(A, B), "*")
	case token.EQL:
		return refVal{kind: 'b', b: a == b}, nil
	case token.NEQ:
		return refVal{kind: 'b', b: a != b}, nil
	case token.LSS:
		return refVal{kind: 'b', b: a < b}, nil
	case token.LEQ:
		return refVal{kind: 'b', b: a <= b}, nil
	case token.GTR:
		return refVal{kind: 'b', b: a > b}, nil
	case token.GEQ:
		return refVal{kind: 'b', b: a >= b}, nil
	}
	return refVal{}, errUnsupported
}

// evalTypeOnly evaluates an expression that Go type-checks but does not run (the right side
// of a short-circuited && or ||): its run-time failures do not count, its refusals do.
func (r *refEval) evalTypeOnly(e ast.Expr) (refVal, error) {
	v, err := r.eval(e)
	if errors.Is(err, errFails) {
		return refVal{kind: 'b'}, nil // the only type a && or || operand may have
	}
	return v, err
}

func (r *refEval) call(e *ast.CallExpr) (refVal, error) {
	id, ok := e.Fun.(*ast.Ident)
	if !ok || e.Ellipsis.IsValid() {
		return refVal{}, errUnsupported
	}
	var args []refVal
	for _, a := range e.Args {
		v, err := r.eval(a)
		if err != nil {
			return refVal{}, err
		}
		args = append(args, v)
	}
	want := map[string]int{"len": 1, "product": 1, "sum": 1, "abs": 1, "floordiv": 2, "cdiv": 2, "floormod": 2, "normdim": 2, "cond": 3, "log2": 1, "clog2": 1}
	if n, ok := want[id.Name]; ok && len(args) != n {
		return refVal{}, refused("%s takes %d arguments", id.Name, n)
	}
	vars := map[string]bool{"len": true, "product": true, "sum": true, "normdim": true}
	if r.arith && vars[id.Name] {
		return refVal{}, errUnsupported // the gate's layer rule
	}
	intArgs := func() ([]int64, error) {
		var out []int64
		for _, a := range args {
			n, err := r.toInt(a)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	switch id.Name {
	case "len", "product", "sum":
		if args[0].kind != 's' {
			return refVal{}, refused("%s of a non-slice", id.Name)
		}
		if id.Name == "len" {
			return intVal(len(args[0].s)), nil
		}
		acc := big.NewInt(0)
		if id.Name == "product" {
			acc = big.NewInt(1)
		}
		for _, v := range args[0].s {
			if id.Name == "product" {
				acc.Mul(acc, big.NewInt(int64(v)))
			} else {
				acc.Add(acc, big.NewInt(int64(v)))
			}
			if !acc.IsInt64() {
				return refVal{}, fails("%s overflows at a step", id.Name)
			}
		}
		return refVal{kind: 'i', i: acc}, nil
	case "min", "max":
		if len(args) == 0 {
			return refVal{}, refused("%s of nothing", id.Name)
		}
		ns, err := intArgs()
		if err != nil {
			return refVal{}, err
		}
		if id.Name == "min" {
			return refVal{kind: 'i', i: big.NewInt(slices.Min(ns))}, nil
		}
		return refVal{kind: 'i', i: big.NewInt(slices.Max(ns))}, nil
	case "cond":
		c, err := r.toBool(args[0])
		if err != nil {
			return refVal{}, err
		}
		a, b := args[1], args[2]
		switch {
		case a.kind == 'c' && b.kind == 'c':
			if a.float || b.float || a.c.Kind() == constant.Bool || b.c.Kind() == constant.Bool {
				return refVal{}, errUnsupported // T is float64 or bool: not modelled
			}
			fallthrough
		case ints(a) && ints(b):
			x, err := r.toInt(a)
			if err != nil {
				return refVal{}, err
			}
			y, err := r.toInt(b)
			if err != nil {
				return refVal{}, err
			}
			return refVal{kind: 'i', i: big.NewInt(rooflineCond(c, x, y))}, nil
		case bools(a) && bools(b):
			x, _ := r.toBool(a)
			y, _ := r.toBool(b)
			return refVal{kind: 'b', b: rooflineCond(c, x, y)}, nil
		case a.kind == 's' && b.kind == 's':
			return rooflineCond(c, a, b), nil
		}
		return refVal{}, refused("cond of mismatched types")
	}
	ns, err := intArgs()
	if err != nil {
		return refVal{}, err
	}
	constArg := func(i int) bool { return args[i].kind == 'c' }
	switch id.Name {
	case "abs":
		return fit(new(big.Int).Abs(big.NewInt(ns[0])), "abs")
	case "floordiv", "cdiv", "floormod":
		if ns[1] == 0 {
			if constArg(1) {
				return refVal{}, refused("%s by a constant 0", id.Name)
			}
			return refVal{}, fails("division by zero")
		}
		a, b := big.NewInt(ns[0]), big.NewInt(ns[1])
		q, m := new(big.Int).DivMod(a, b, new(big.Int)) // Euclidean: 0 <= m < |b|
		if m.Sign() != 0 && b.Sign() < 0 {              // floor: the remainder takes b's sign
			q.Sub(q, big.NewInt(1))
			m.Add(m, b)
		}
		switch id.Name {
		case "floordiv":
			return fit(q, "floordiv")
		case "floormod":
			return fit(m, "floormod")
		}
		if m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		return fit(q, "cdiv")
	case "normdim":
		d, n := ns[0], ns[1]
		if n < 0 || d < -n || d >= n {
			return refVal{}, fails("normdim out of range")
		}
		if d < 0 {
			d += n
		}
		return refVal{kind: 'i', i: big.NewInt(d)}, nil
	case "log2", "clog2":
		if ns[0] < 1 {
			if constArg(0) {
				return refVal{}, refused("%s of a constant below 1", id.Name)
			}
			return refVal{}, fails("%s of %d", id.Name, ns[0])
		}
		n := big.NewInt(ns[0])
		l := n.BitLen() - 1
		if id.Name == "clog2" && new(big.Int).Lsh(big.NewInt(1), uint(l)).Cmp(n) != 0 {
			l++
		}
		return intVal(l), nil
	}
	return refVal{}, errUnsupported
}

// runGenerated interprets the generated method that computes the roofline (rooflineEval, or
// EvalRoofline for an op that does not cache, going on into rooflineChecked where it calls
// it), calling this package's runtime and helpers.
// With checked, the guard of the verbatim path is taken as false; fast reports whether the
// verbatim path returned.
func runGenerated(t *testing.T, methods []byte, in exactInputs, checked bool) (flops, bytes int64, err error, fast bool) {
	f, perr := parser.ParseFile(token.NewFileSet(), "zz_roofline.go", methods, 0)
	if perr != nil {
		t.Fatalf("generated code does not parse: %v", perr)
	}
	var body, checkedBody *ast.BlockStmt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && (fd.Name.Name == "rooflineEval" || body == nil && fd.Name.Name == "EvalRoofline") {
			body = fd.Body
		}
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "rooflineChecked" {
			checkedBody = fd.Body
		}
	}
	ip := &interp{t: t, in: in, env: map[string]any{}, ck: &rooflineChecker{}}
	defer func() {
		if r := recover(); r != nil {
			switch r := r.(type) {
			case rooflineError, rooflineOverflow:
				err = r.(error)
			case runtime.Error:
				if !strings.Contains(r.Error(), "out of range") {
					panic(r)
				}
				err = r
			default:
				panic(r)
			}
		}
	}()
	stmts := body.List
	for len(stmts) > 0 {
		s := stmts[0]
		stmts = stmts[1:]
		switch s := s.(type) {
		case *ast.AssignStmt:
			if isHelperRef(s.Rhs[0]) { // product, cond := rooflineProduct, rooflineCond[int]
				for i, l := range s.Lhs {
					ip.env[l.(*ast.Ident).Name] = newHelperRef(s.Rhs[i])
				}
				continue
			}
			ip.env[s.Lhs[0].(*ast.Ident).Name] = ip.eval(s.Rhs[0])
		case *ast.DeferStmt: // the recover: this function's own
		case *ast.DeclStmt: // var rooflineCk rooflineChecker: ip.ck
		case *ast.IfStmt:
			if sel, ok := s.Cond.(*ast.SelectorExpr); ok && sel.Sel.Name == "bad" {
				// if rooflineCk.bad { return 0, 0, rooflineCk.err(...) }
				if ip.ck.bad {
					return 0, 0, ip.ck.first, false
				}
				continue
			}
			// The guard of the verbatim path: its body returns.
			if !checked && ip.eval(s.Cond).(bool) {
				fast = true
				stmts = s.Body.List
			}
		case *ast.ReturnStmt:
			if len(s.Results) == 3 { // return int64(rooflineFlops), int64(rooflineBytes), nil
				conv := func(e ast.Expr) int { return ip.eval(e.(*ast.CallExpr).Args[0]).(int) }
				flops, bytes := conv(s.Results[0]), conv(s.Results[1])
				if flops < 0 || bytes < 0 {
					t.Fatalf("the verbatim path returns a negative count (%d, %d) without rooflineResult", flops, bytes)
				}
				return int64(flops), int64(bytes), nil, fast
			}
			call := s.Results[0].(*ast.CallExpr)
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "rooflineChecked" {
				// return op.rooflineChecked(): the checked path, a method of its own with
				// its own rooflineCk.
				if checkedBody == nil {
					t.Fatal("the generated code calls rooflineChecked and does not declare it")
				}
				stmts, ip.ck = checkedBody.List, &rooflineChecker{}
				continue
			}
			flops, bytes, err := rooflineResult("Op", ip.eval(call.Args[1]).(int), ip.eval(call.Args[2]).(int))
			return flops, bytes, err, fast
		default:
			t.Fatalf("generated statement %T not interpreted", s)
		}
	}
	t.Fatal("generated method does not return")
	return
}

// helperRef is a helper the generated method declares under its formula name: the Go name it
// stands for.
type helperRef string

// isHelperRef reports a helper's Go name (as the generated code declares a local for).
func isHelperRef(e ast.Expr) bool {
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ix.X
	}
	id, ok := e.(*ast.Ident)
	return ok && strings.HasPrefix(id.Name, "roofline")
}

func newHelperRef(e ast.Expr) helperRef {
	if ix, ok := e.(*ast.IndexExpr); ok { // rooflineCond[int]
		e = ix.X
	}
	return helperRef(e.(*ast.Ident).Name)
}

type interp struct {
	t   *testing.T
	in  exactInputs
	env map[string]any
	ck  *rooflineChecker // the generated rooflineCk
}

func (ip *interp) eval(e ast.Expr) any {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.SHL { // the guard's 1<<n
		n, _ := strconv.Atoi(b.Y.(*ast.BasicLit).Value)
		return uint(1) << n
	}
	if isConst(e) {
		c, err := constEval(e)
		if err != nil {
			ip.t.Fatalf("generated constant %T: %v", e, err)
		}
		if c.Kind() == constant.Bool {
			return constant.BoolVal(c)
		}
		n, err := constInt(c)
		if err != nil {
			ip.t.Fatalf("the generated code holds a constant Go refuses: %v", err)
		}
		return int(n)
	}
	switch e := e.(type) {
	case *ast.Ident:
		v, ok := ip.env[e.Name]
		if !ok {
			ip.t.Fatalf("generated code reads %s before it is set", e.Name)
		}
		return v
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, _ := strconv.Unquote(e.Value)
			return s
		}
	case *ast.ParenExpr:
		return ip.eval(e.X)
	case *ast.CompositeLit: // rooflineTensor{op.XShape, len(op.XShape)}
		return rooflineTensor{shape: ip.eval(e.Elts[0]).([]int), ndim: ip.eval(e.Elts[1]).(int)}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Name == "op" {
			return map[string]any{"M": ip.in.M, "K": ip.in.K, "Dim": ip.in.Dim, "Dims": ip.in.Dims, "Causal": ip.in.Causal, "XShape": ip.in.X}[e.Sel.Name]
		}
		x := ip.eval(e.X).(rooflineTensor)
		if e.Sel.Name == "shape" {
			return x.shape
		}
		return x.ndim
	case *ast.IndexExpr:
		return ip.eval(e.X).([]int)[ip.eval(e.Index).(int)]
	case *ast.SliceExpr:
		s := ip.eval(e.X).([]int)
		lo, hi := 0, len(s)
		if e.Low != nil {
			lo = ip.eval(e.Low).(int)
		}
		if e.High != nil {
			hi = ip.eval(e.High).(int)
		}
		if e.Slice3 {
			return s[lo:hi:ip.eval(e.Max).(int)]
		}
		return s[lo:hi]
	case *ast.UnaryExpr:
		x := ip.eval(e.X)
		switch e.Op {
		case token.NOT:
			return !x.(bool)
		case token.ADD:
			return x
		case token.SUB:
			return -x.(int) // wraps, as Go does: only a missed rewrite reaches here
		}
	case *ast.BinaryExpr:
		x := ip.eval(e.X)
		switch e.Op {
		case token.LAND:
			return x.(bool) && ip.eval(e.Y).(bool)
		case token.LOR:
			return x.(bool) || ip.eval(e.Y).(bool)
		}
		y := ip.eval(e.Y)
		if xb, ok := x.(bool); ok {
			return (xb == y.(bool)) == (e.Op == token.EQL)
		}
		if xu, ok := x.(uint); ok && e.Op == token.LSS { // the guard
			return xu < y.(uint)
		}
		a, b := x.(int), y.(int)
		switch e.Op {
		case token.OR: // the guard's OR of its leaves
			return a | b
		case token.ADD: // wraps, as Go does: only a missed rewrite reaches here
			return a + b
		case token.SUB:
			return a - b
		case token.MUL:
			return a * b
		case token.EQL:
			return a == b
		case token.NEQ:
			return a != b
		case token.LSS:
			return a < b
		case token.LEQ:
			return a <= b
		case token.GTR:
			return a > b
		case token.GEQ:
			return a >= b
		}
	case *ast.CallExpr:
		return ip.call(e)
	}
	ip.t.Fatalf("generated expression %T not interpreted", e)
	return nil
}

func (ip *interp) call(e *ast.CallExpr) any {
	if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
		if sel.Sel.Name == "Size" {
			return 4 // op.DType.Size()
		}
		a := ip.eval(e.Args[0]).(int)
		switch sel.Sel.Name { // rooflineCk's checked operations
		case "add":
			return ip.ck.add(a, ip.eval(e.Args[1]).(int))
		case "sub":
			return ip.ck.sub(a, ip.eval(e.Args[1]).(int))
		case "mul":
			return ip.ck.mul(a, ip.eval(e.Args[1]).(int))
		case "neg":
			return ip.ck.neg(a)
		}
	}
	name := e.Fun.(*ast.Ident).Name
	if ref, ok := ip.env[name].(helperRef); ok {
		name = string(ref)
	}
	var args []any
	for _, a := range e.Args {
		args = append(args, ip.eval(a))
	}
	i := func(k int) int { return args[k].(int) }
	switch name {
	case "uint": // the guard
		return uint(i(0))
	case "rooflineAdd":
		return rooflineAdd(i(0), i(1))
	case "rooflineSub":
		return rooflineSub(i(0), i(1))
	case "rooflineMul":
		return rooflineMul(i(0), i(1))
	case "rooflineNeg":
		return rooflineNeg(i(0))
	case "len":
		return len(args[0].([]int))
	case "rooflineProduct":
		return rooflineProduct(args[0].([]int))
	case "rooflineSum":
		return rooflineSum(args[0].([]int))
	case "rooflineAbs":
		return rooflineAbs(i(0))
	case "rooflineFloordiv":
		return rooflineFloordiv(i(0), i(1))
	case "rooflineCdiv":
		return rooflineCdiv(i(0), i(1))
	case "rooflineFloormod":
		return rooflineFloormod(i(0), i(1))
	case "rooflineNormdim":
		return rooflineNormdim(i(0), i(1))
	case "rooflineLog2":
		return rooflineLog2(i(0))
	case "rooflineClog2":
		return rooflineClog2(i(0))
	case "min", "max":
		ns := make([]int, len(args))
		for k := range args {
			ns[k] = i(k)
		}
		if name == "min" {
			return slices.Min(ns)
		}
		return slices.Max(ns)
	case "rooflineCond":
		switch a := args[1].(type) {
		case int:
			return rooflineCond(args[0].(bool), a, i(2))
		case bool:
			return rooflineCond(args[0].(bool), a, args[2].(bool))
		case []int:
			return rooflineCond(args[0].(bool), a, args[2].([]int))
		}
	}
	ip.t.Fatalf("generated call of %s not interpreted", name)
	return nil
}
