package manifest

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/schema"
	"go.yaml.in/yaml/v3"
)

// This file prepares an op's signature for resolving workload rows: it parses dtypes, param
// types and declared shapes, and compiles every dim expression and shape rule once with
// expr-lang. expr-lang evaluates data only (shapes and rules); no roofline formula is ever
// evaluated here (docs/model.md §7.5).

// tensorEnv is what a shape rule sees of a tensor: x.shape and x.ndim. An absent optional
// input is a nil *tensorEnv, so `bias == nil || bias.shape[0] == N` compiles and runs.
type tensorEnv struct {
	Shape []int `expr:"shape"`
	NDim  int   `expr:"ndim"`
}

// ExprBuiltins are the expr-lang builtins a dim expression or shape rule may call: enough for
// arithmetic over shapes, nothing that reads the clock or builds large values.
var ExprBuiltins = []string{"len", "abs", "min", "max", "sum", "ceil", "floor", "int", "float"}

// ParamTypes are the Go types a param may declare. A pointer type is a nullable param: its
// default is null unless it declares one.
var ParamTypes = []string{"int", "bool", "float64", "string", "[]int", "*int", "*bool", "*float64", "*string"}

// sig is an op's signature prepared for resolving workload rows.
type sig struct {
	op *Op
	fs diag.Findings

	dims   []string             // every dim of the fixed-rank shapes, in order of first use
	dimOf  map[string][]*Tensor // the tensors whose shapes use each dim
	shapes map[string][]dimExpr // declared shapes of fixed-rank tensors, by tensor name
	// shapesOK is false when a shape does not parse or a dim expression does not compile:
	// the set of dims, and so of workload keys, is then unknown.
	shapesOK bool

	params   map[string]paramType // params whose type is valid
	defaults map[string]any       // defaults of the params that have one (nil: null)

	dtypes   map[string]dtypeDecl // every tensor's dtype declaration, by name
	dtypesOK bool

	keys  map[string]rowKey // every key a workload row may hold
	rules []rule            // shape rules that compile
}

// dimExpr is one element of a declared shape: a dim, which needs no compiling, or an
// expression, compiled.
type dimExpr struct {
	src  string
	off  int    // byte offset in the shape string
	dim  string // the dim when the element is just one
	prog *vm.Program
}

// rule is one compiled shape rule.
type rule struct {
	index int
	src   Str
	prog  *vm.Program
}

// dtypeDecl is a tensor's dtype: a union of its own, or same_as an input.
type dtypeDecl struct {
	union  []string
	sameAs string
}

// rowKey says what a workload row key stands for.
type rowKey struct {
	kind   rowKeyKind
	tensor *Tensor // for keyShape and keyWith
	param  string  // for keyParam
}

type rowKeyKind int

const (
	keyDim   rowKeyKind = iota + 1 // a dim of a fixed-rank shape
	keyShape                       // <input>_shape of an arbitrary-rank input
	keyWith                        // with_<input> of an optional fixed-rank input
	keyParam                       // a param value
)

func (s *sig) errorf(pos diag.Pos, field, format string, args ...any) {
	s.fs = append(s.fs, diag.Finding{Pos: pos, Op: s.op.Name, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// tensors returns the op's inputs then outputs.
func (op *Op) tensors() []*Tensor { return slices.Concat(op.Inputs, op.Outputs) }

func tensorField(op *Op, t *Tensor) string {
	if op.Input(t.Name) == t {
		return "signature.inputs." + t.Name
	}
	return "signature.outputs." + t.Name
}

// compile prepares op's signature. Its findings are about the signature itself; a problem
// in one part (a bad param type, a rule that does not compile) leaves the rest usable.
func (op *Op) compile() *sig {
	s := &sig{op: op, dimOf: map[string][]*Tensor{}, shapes: map[string][]dimExpr{}, shapesOK: true, params: map[string]paramType{},
		defaults: map[string]any{}, dtypes: map[string]dtypeDecl{}, dtypesOK: true, keys: map[string]rowKey{}}
	s.compileParams()
	s.collectDims()
	s.buildKeys()
	s.compileShapes()
	s.compileDTypes()
	s.compileRules()
	return s
}

func (s *sig) compileParams() {
	for _, p := range s.op.Params {
		field := "signature.params." + p.Name
		t, ok := parseParamType(p.Type.Value)
		if !ok {
			s.errorf(p.Type.Pos, field+".type", "unknown param type %q (known: %s)", p.Type.Value, strings.Join(ParamTypes, ", "))
			continue
		}
		s.params[p.Name] = t
		if p.Default == nil {
			if t.nullable {
				s.defaults[p.Name] = nil
			}
			continue
		}
		v, msg := t.value(p.Default)
		if msg != "" {
			s.errorf(diag.Pos{File: p.Pos.File, Line: p.Default.Line, Col: p.Default.Column}, field+".default", "%s", msg)
			continue
		}
		s.defaults[p.Name] = v
	}
}

// collectDims finds the dims: every identifier of a declared shape that is not a param.
func (s *sig) collectDims() {
	for _, t := range s.op.tensors() {
		if t.Shape == nil {
			continue
		}
		field := tensorField(s.op, t) + ".shape"
		parts, ok := s.splitShape(*t.Shape, field)
		if !ok {
			s.shapesOK = false
			continue
		}
		var exprs []dimExpr
		for _, part := range parts {
			p := parseDim(part.src)
			if p.err != nil {
				s.exprError(*t.Shape, part.off, field, "dim expression "+quote(part.src)+" does not parse", p.err)
				s.shapesOK = false
				continue
			}
			for _, name := range p.names {
				if s.op.Param(name) != nil || slices.Contains(s.dimOf[name], t) {
					continue
				}
				if s.dimOf[name] == nil {
					s.dims = append(s.dims, name)
				}
				s.dimOf[name] = append(s.dimOf[name], t)
			}
			e := dimExpr{src: part.src, off: part.off}
			if p.ident && s.op.Param(p.names[0]) == nil {
				e.dim = p.names[0]
			}
			exprs = append(exprs, e)
		}
		s.shapes[t.Name] = exprs
	}
}

// Dims returns the dims of op: every identifier of its declared (fixed-rank) shapes that is
// not a param and not a builtin called there, inputs then outputs, in order of first use.
// `[M, max(K, 2)]` has the dims M and K. This is the one definition of a dim: workload rows
// give them, and the generator binds them as fields of the op. A shape that does not parse
// contributes no dims (validation reports it).
func (op *Op) Dims() []string {
	s := &sig{op: op, dimOf: map[string][]*Tensor{}, shapes: map[string][]dimExpr{}}
	s.collectDims()
	return s.dims
}

// parsedDim is what collectDims needs of a parsed dim expression.
type parsedDim struct {
	names []string // the names it reads, in order of first use; shared, read-only
	ident bool     // it is just one name
	err   error
}

// parsedDims caches parseDim by expression text, for the reason programs caches programs.
var parsedDims sync.Map // string -> parsedDim

func parseDim(src string) parsedDim {
	if p, ok := parsedDims.Load(src); ok {
		return p.(parsedDim)
	}
	var p parsedDim
	tree, err := parser.Parse(src)
	if err != nil {
		p.err = err
	} else {
		_, p.ident = tree.Node.(*ast.IdentifierNode)
		p.names = identifiers(tree.Node)
	}
	parsedDims.Store(src, p)
	return p
}

// shapePart is one element of a declared shape and its byte offset in the shape string.
type shapePart struct {
	src string
	off int
}

// splitShape splits "[M, 2 * K]" into its elements at the commas outside brackets.
func (s *sig) splitShape(shape Str, field string) ([]shapePart, bool) {
	src := shape.Value
	if !s.noComments(shape, field) {
		return nil, false
	}
	open := strings.IndexFunc(src, func(r rune) bool { return r != ' ' && r != '\t' })
	end := strings.LastIndexFunc(src, func(r rune) bool { return r != ' ' && r != '\t' })
	if open < 0 || src[open] != '[' || src[end] != ']' || open == end {
		s.errorf(shape.Pos, field, "shape must be a list of dims such as \"[M, K]\", not %q", src)
		return nil, false
	}
	inner := src[open+1 : end]
	if strings.TrimSpace(inner) == "" {
		return nil, true // a rank-0 tensor
	}
	var parts []shapePart
	depth, start := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i < len(inner) {
			switch inner[i] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
			if inner[i] != ',' || depth != 0 {
				continue
			}
		}
		part := inner[start:i]
		trimmed := strings.TrimSpace(part)
		off := open + 1 + start + strings.Index(part, trimmed)
		if trimmed == "" {
			s.errorf(shape.At(open+1+start), field, "empty dim in shape %q", src)
			return nil, false
		}
		parts = append(parts, shapePart{src: trimmed, off: off})
		start = i + 1
	}
	return parts, true
}

// noComments rejects comments in a dim expression or rule: expr-lang reads `//` and `/*` as
// comments, so `M // 2 == 0` would silently mean `M`; `#` is how a Python author writes one.
func (s *sig) noComments(e Str, field string) bool {
	at, tok := -1, ""
	for _, t := range []string{"//", "/*", "#"} {
		if i := strings.Index(e.Value, t); i >= 0 && (at < 0 || i < at) {
			at, tok = i, t
		}
	}
	if at < 0 {
		return true
	}
	msg := "comments are not allowed in expressions; write notes as YAML comments"
	if tok == "//" {
		msg = fmt.Sprintf("expr-lang reads it as a comment, so %q would mean %q; for integer division write int(a / b)",
			e.Value, strings.TrimSpace(e.Value[:at]))
	}
	s.errorf(e.At(at), field, "%q is not allowed: %s", tok, msg)
	return false
}

// buildKeys lists the keys a workload row may hold and reports names that would clash: a
// row key, or a name in a rule, must mean one thing.
func (s *sig) buildKeys() {
	type origin struct {
		desc string
		pos  diag.Pos
	}
	taken := map[string]origin{}
	claim := func(name, desc string, pos diag.Pos, field string) bool {
		if name == KeyDTypes || name == KeyLabel {
			s.errorf(pos, field, "%s: %q is a reserved workload key", desc, name)
			return false
		}
		if prev, ok := taken[name]; ok {
			s.errorf(pos, field, "%s clashes with %s at %s", desc, prev.desc, prev.pos)
			return false
		}
		taken[name] = origin{desc, pos}
		return true
	}
	for _, t := range s.op.Inputs {
		claim(t.Name, "input "+t.Name, t.Pos, tensorField(s.op, t))
	}
	for _, t := range s.op.Outputs {
		claim(t.Name, "output "+t.Name, t.Pos, tensorField(s.op, t))
	}
	for _, p := range s.op.Params {
		if claim(p.Name, "param "+p.Name, p.Pos, "signature.params."+p.Name) {
			s.keys[p.Name] = rowKey{kind: keyParam, param: p.Name}
		}
	}
	for _, d := range s.dims {
		t := s.dimOf[d][0]
		if claim(d, "dim "+d, t.Shape.Pos, tensorField(s.op, t)+".shape") {
			s.keys[d] = rowKey{kind: keyDim}
		}
	}
	for _, t := range s.op.Inputs {
		field := tensorField(s.op, t)
		switch {
		case t.Shape == nil:
			key := t.Name + "_shape"
			if claim(key, "workload key "+key+" (the shape of input "+t.Name+")", t.Pos, field) {
				s.keys[key] = rowKey{kind: keyShape, tensor: t}
			}
		case t.Optional:
			key := "with_" + t.Name
			if claim(key, "workload key "+key+" (whether input "+t.Name+" is passed)", t.Pos, field) {
				s.keys[key] = rowKey{kind: keyWith, tensor: t}
			}
		}
	}
}

// baseEnv is a typed environment of the dims and params, for compiling.
func (s *sig) baseEnv() map[string]any {
	env := map[string]any{}
	for _, d := range s.dims {
		env[d] = 0
	}
	for name, t := range s.params {
		env[name] = t.zero()
	}
	return env
}

// exprCompiler compiles expressions against one typed environment. Programs come from
// programs: catalogs repeat rules and dim expressions across ops, and a program depends only
// on its text, on the types in the environment (dims are ints, a nullable param a pointer, a
// tensor a *tensorEnv, absent or not) and on whether it must yield a bool.
type exprCompiler struct {
	env    map[string]any
	asBool bool
	key    string       // the environment's types and asBool: with the text, a program's cache key
	config *conf.Config // built on the first cache miss
}

// compiled is a compile result, an error included: an expression that fails, fails again.
type compiled struct {
	prog *vm.Program
	err  error
}

// programs caches compile results by exprCompiler key and expression text. It lives as long
// as the process: a program is small, and a process validates or generates one catalog. A
// *vm.Program is read-only once built, so ops share one safely across goroutines.
var programs sync.Map // string -> compiled

// exprBase is the configuration every expression compiles under, less the environment. It
// is built once: expr.Compile builds a table of every builtin on each call, then disables
// most of them here, which dominated the validation of a large catalog.
var exprBase = sync.OnceValue(func() *conf.Config {
	c := conf.CreateNew()
	expr.DisableAllBuiltins()(c)
	for _, b := range ExprBuiltins {
		expr.EnableBuiltin(b)(c)
	}
	for name := range c.Disabled {
		delete(c.Builtins, name)
	}
	expr.Function(divideFunc, divide, new(func(int, int) float64), new(func(float64, float64) float64),
		new(func(int, float64) float64), new(func(float64, int) float64))(c)
	expr.Patch(divideGuard{})(c)
	return c
})

// divideFunc is what `/` calls in a rule or shape: expr's `/` divides as floats, so M / 0 is
// +Inf and `M / 0 > 0` holds; a division by zero must fail the row instead.
const divideFunc = "rooflineDivide"

// divideGuard turns every a / b into rooflineDivide(a, b), keeping its position.
type divideGuard struct{}

func (divideGuard) Visit(n *ast.Node) {
	if b, ok := (*n).(*ast.BinaryNode); ok && b.Operator == "/" {
		ast.Patch(n, &ast.CallNode{Callee: &ast.IdentifierNode{Value: divideFunc}, Arguments: []ast.Node{b.Left, b.Right}})
	}
}

// divide is a / b as expr computes it, as floats, but an error when b is 0.
func divide(args ...any) (any, error) {
	var x [2]float64
	for i, a := range args {
		switch v := a.(type) {
		case int:
			x[i] = float64(v)
		case float64:
			x[i] = v
		}
	}
	if x[1] == 0 {
		return nil, fmt.Errorf("division by zero (%v / %v)", args[0], args[1])
	}
	return x[0] / x[1], nil
}

func newExprCompiler(env map[string]any, asBool bool) *exprCompiler {
	var key strings.Builder
	key.WriteString(strconv.FormatBool(asBool))
	for _, name := range slices.Sorted(maps.Keys(env)) {
		key.WriteString("\x00" + name + " " + reflect.TypeOf(env[name]).String())
	}
	return &exprCompiler{env: env, asBool: asBool, key: key.String()}
}

func (c *exprCompiler) compile(src string) (*vm.Program, error) {
	key := c.key + "\x00\x00" + src
	if r, ok := programs.Load(key); ok {
		return r.(compiled).prog, r.(compiled).err
	}
	prog, err := c.build(src)
	programs.Store(key, compiled{prog, err})
	return prog, err
}

// build takes the steps of expr.Compile on a copy of exprBase, which shares exprBase's
// tables: compiling only reads them.
func (c *exprCompiler) build(src string) (*vm.Program, error) {
	if c.config == nil {
		config := *exprBase()
		expr.Env(c.env)(&config)
		if c.asBool {
			expr.AsBool()(&config)
		}
		config.Check()
		c.config = &config
	}
	tree, err := checker.ParseCheck(src, c.config)
	if err != nil {
		return nil, err
	}
	if c.config.Optimize {
		if err := optimizer.Optimize(&tree.Node, c.config); err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, c.config)
}

func (s *sig) compileShapes() {
	if !s.shapesOK {
		return
	}
	var c *exprCompiler // most shapes are plain dims: build it only when needed
	for _, t := range s.op.tensors() {
		exprs := s.shapes[t.Name]
		field := tensorField(s.op, t) + ".shape"
		for i := range exprs {
			if exprs[i].dim != "" {
				continue
			}
			if c == nil {
				c = newExprCompiler(s.baseEnv(), false)
			}
			prog, err := c.compile(exprs[i].src)
			if err != nil {
				s.exprError(*t.Shape, exprs[i].off, field, "dim expression "+quote(exprs[i].src)+" does not compile", err)
				s.shapesOK = false
				continue
			}
			switch k := kindOf(prog.Node().Type()); k {
			case reflect.Int, reflect.Float64, reflect.Interface:
			default:
				s.errorf(t.Shape.At(exprs[i].off), field, "dim expression %q is %s, not a number", exprs[i].src, k)
				s.shapesOK = false
				continue
			}
			exprs[i].prog = prog
		}
	}
}

func kindOf(t reflect.Type) reflect.Kind {
	if t == nil {
		return reflect.Interface
	}
	return t.Kind()
}

var sameAsRE = regexp.MustCompile(`^same_as\(\s*([^()\s]*)\s*\)$`)

func (s *sig) compileDTypes() {
	for _, t := range s.op.tensors() {
		field := tensorField(s.op, t) + ".dtype"
		src := strings.TrimSpace(t.DType.Value)
		if m := sameAsRE.FindStringSubmatch(src); m != nil {
			target := s.op.Input(m[1])
			switch {
			case target == nil:
				s.errorf(t.DType.Pos, field, "same_as(%s) names no input (inputs: %s)", m[1], strings.Join(names(s.op.Inputs), ", "))
			case target == t:
				s.errorf(t.DType.Pos, field, "same_as(%s) names the tensor itself", m[1])
			case sameAsRE.MatchString(strings.TrimSpace(target.DType.Value)):
				s.errorf(t.DType.Pos, field, "same_as(%s): %s is itself %s; name the input it follows", m[1], m[1], strings.TrimSpace(target.DType.Value))
			default:
				s.dtypes[t.Name] = dtypeDecl{sameAs: m[1]}
				continue
			}
			s.dtypesOK = false
			continue
		}
		var union []string
		ok := true
		for tok := range strings.SplitSeq(src, "|") {
			tok = strings.TrimSpace(tok)
			switch _, known := LookupDType(tok); {
			case !known:
				s.errorf(t.DType.Pos, field, "unknown dtype %q in %q (known: %s; or same_as(<input>) alone)", tok, t.DType.Value, strings.Join(dtypeNames(), ", "))
				ok = false
			case slices.Contains(union, tok):
				s.errorf(t.DType.Pos, field, "dtype %s listed twice in %q", tok, t.DType.Value)
				ok = false
			default:
				union = append(union, tok)
			}
		}
		if !ok {
			s.dtypesOK = false
			continue
		}
		s.dtypes[t.Name] = dtypeDecl{union: union}
	}
}

func dtypeNames() []string {
	out := make([]string, len(DTypes))
	for i, d := range DTypes {
		out[i] = d.Name
	}
	return out
}

func names(ts []*Tensor) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func (s *sig) compileRules() {
	env := s.baseEnv()
	for _, t := range s.op.Inputs {
		env[t.Name] = (*tensorEnv)(nil)
	}
	for _, t := range s.op.Outputs {
		if t.Shape != nil { // an arbitrary-rank output's shape is unknown before the kernel runs
			env[t.Name] = (*tensorEnv)(nil)
		}
	}
	var c *exprCompiler
	for i, r := range s.op.ShapeRules {
		field := fmt.Sprintf("signature.shape_rules[%d]", i)
		if !s.noComments(r, field) {
			continue
		}
		if c == nil {
			c = newExprCompiler(env, true)
		}
		prog, err := c.compile(r.Value)
		if err != nil {
			s.exprError(r, 0, field, "rule does not compile", err)
			continue
		}
		s.rules = append(s.rules, rule{index: i, src: r, prog: prog})
	}
}

// exprError reports an expr-lang error at the token it names, within e at byte offset off.
func (s *sig) exprError(e Str, off int, field, what string, err error) {
	var fe *file.Error
	msg := err.Error()
	if errors.As(err, &fe) {
		msg = fe.Message
		src := e.Value[off:]
		off += runeToByte(src, fe.From)
	}
	if strings.Contains(msg, "manifest.tensorEnv") {
		// The Go type behind a tensor means nothing to a manifest author.
		msg = strings.ReplaceAll(msg, "type manifest.tensorEnv", "a tensor") + " (a tensor has shape and ndim)"
	}
	s.errorf(e.At(off), field, "%s: %s", what, msg)
}

func runeToByte(s string, runes int) int {
	off := 0
	for i := 0; i < runes && off < len(s); i++ {
		_, n := utf8.DecodeRuneInString(s[off:])
		off += n
	}
	return off
}

// identifiers returns the variable names an expression reads, in order of first use.
func identifiers(n ast.Node) []string {
	v := &identVisitor{}
	ast.Walk(&n, v)
	return v.names
}

type identVisitor struct{ names []string }

func (v *identVisitor) Visit(n *ast.Node) {
	if id, ok := (*n).(*ast.IdentifierNode); ok && id.Value != divideFunc && !slices.Contains(v.names, id.Value) {
		v.names = append(v.names, id.Value)
	}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// paramType is a param's declared Go type.
type paramType struct {
	base     string // int, bool, float64, string or []int
	nullable bool   // a pointer type: null is a value
}

// ValidParamType reports whether s is one of ParamTypes, the Go types a param may declare.
// Validation and the generator both read it.
func ValidParamType(s string) bool {
	_, ok := parseParamType(s)
	return ok
}

// Nullable reports whether p is a nullable param: its type is a valid pointer type (*int,
// *float64, ...), so null is one of its values.
func (p *Param) Nullable() bool {
	t, ok := parseParamType(p.Type.Value)
	return ok && t.nullable
}

func parseParamType(s string) (paramType, bool) {
	if !slices.Contains(ParamTypes, s) {
		return paramType{}, false
	}
	base, nullable := strings.CutPrefix(s, "*")
	return paramType{base: base, nullable: nullable}, true
}

func (t paramType) String() string {
	if t.nullable {
		return "*" + t.base
	}
	return t.base
}

// value decodes n as a value of type t: int, bool, float64, string, []int, or nil for a
// nullable param's null. It returns a message saying what is wrong instead when n does not fit.
func (t paramType) value(n *yaml.Node) (any, string) {
	bad := func() (any, string) {
		return nil, fmt.Sprintf("must be of type %s, not %s", t, describe(n))
	}
	if t.nullable && n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, ""
	}
	switch t.base {
	case "int":
		if v, ok := intValue(n); ok {
			return v, ""
		}
		if isInt(n) {
			return nil, fmt.Sprintf("must be of type int, not %s: %s", n.Value, outOfRange)
		}
	case "bool":
		var v bool
		if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && n.Decode(&v) == nil {
			return v, ""
		}
	case "float64":
		var v float64
		if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") && n.Decode(&v) == nil {
			return v, ""
		}
	case "string":
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			return n.Value, ""
		}
	case "[]int":
		if v, ok := intValue(n); ok {
			return nil, scalarForList(v)
		}
		if n.Kind != yaml.SequenceNode {
			return bad()
		}
		v := make([]int, len(n.Content))
		for i, e := range n.Content {
			x, ok := intValue(e)
			if !ok {
				return nil, fmt.Sprintf("must be of type []int; element %d is %s", i, describe(e))
			}
			v[i] = x
		}
		return v, ""
	}
	return bad()
}

// scalarForList is the message for an integer where a []int param's list goes, with the
// fix. PyTorch takes a scalar for many list arguments, but under two rules: dim=-1 is the
// one-element [-1], a square kernel_size=3 is [3, 3], once per spatial dim (its _pair). The
// param type cannot say which reading a scalar means, and a guess could price another
// op than the author's (a reduction over [3] instead of a 3x3 window), so the author writes
// the list.
func scalarForList(v int) string {
	return fmt.Sprintf("must be of type []int, not an integer (%d): write a list, [%d] if the integer is one element "+
		"(PyTorch's dim=%d), or [%d, %d, ...] once per dimension if PyTorch repeats it (a square kernel_size=3 of a 2-d op is [3, 3])",
		v, v, v, v, v)
}

// zero is a typed value of t for compiling expressions: a nullable param is a nil pointer.
func (t paramType) zero() any { return t.env(nil) }

// env turns a value of t (as value returns it) into what an expression sees: the value, or
// for a nullable param a pointer to it, nil for null.
func (t paramType) env(v any) any {
	if !t.nullable {
		if v == nil {
			return reflect.Zero(t.goType()).Interface()
		}
		return v
	}
	p := reflect.New(t.goType())
	if v == nil {
		return reflect.Zero(p.Type()).Interface()
	}
	p.Elem().Set(reflect.ValueOf(v))
	return p.Interface()
}

func (t paramType) goType() reflect.Type {
	switch t.base {
	case "int":
		return reflect.TypeFor[int]()
	case "bool":
		return reflect.TypeFor[bool]()
	case "float64":
		return reflect.TypeFor[float64]()
	case "string":
		return reflect.TypeFor[string]()
	}
	return reflect.TypeFor[[]int]()
}

// outOfRange says why an integer scalar that intValue refuses is refused.
const outOfRange = "it does not fit in an int (64 bits)"

// isInt reports whether n is an integer scalar, whatever its size: tag !!int, or a decimal
// too long for one, which YAML resolves to !!float.
func isInt(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float" && decimalDigits.MatchString(n.Value))
}

var decimalDigits = regexp.MustCompile(`^[-+]?[0-9]+$`)

// intValue decodes an integer scalar, in any YAML integer syntax, that fits in an int.
func intValue(n *yaml.Node) (int, bool) {
	v, ok := schema.Int64(n)
	if !ok || int64(int(v)) != v {
		return 0, false
	}
	return int(v), true
}

// describe names a value for a message: its kind, and a scalar's text.
func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return fmt.Sprintf("%s (%s)", schema.KindName(n), n.Value)
	}
	return schema.KindName(n)
}
