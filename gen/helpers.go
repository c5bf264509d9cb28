package gen

import (
	"slices"
	"strings"
)

// Layer is one of the two expression layers of an inline formula (docs/model.md §7.2).
type Layer int

const (
	// VarsLayer resolves shape-derived variables: roofline.vars.
	VarsLayer Layer = 1 << iota
	// ArithLayer computes the results: roofline.flops and roofline.bytes.
	ArithLayer
)

func (l Layer) String() string {
	if l == VarsLayer {
		return "vars"
	}
	return "arithmetic"
}

// Helper is one entry of the binding table (docs/model.md §7.3, in its Go dialect): a function a
// formula may call. The table is the single source of truth for what the generator knows
// about a helper: the gate, the type check, emission and the README's table read these
// fields, never the helper's source. The declaration itself is real Go, in
// gen/roofrt/helpers.go under the same name (TestHelperFacts keeps the two in agreement).
type Helper struct {
	Name    string
	Layers  Layer
	Meaning string
	// Builtin marks a Go builtin: no declaration is emitted.
	Builtin bool
	// Fails reports that the helper can refuse its arguments, itself or through what it
	// calls: it panics (rooflineError, rooflineOverflow), so an op calling it needs the
	// deferred recover that turns the panic into EvalRoofline's error.
	Fails bool
	// Needs lists the other helpers the declaration calls; they are emitted with it.
	Needs []string
	// Nullable marks a reader of a nullable param: its first argument must be one, and
	// that is the only place (beside p == nil, p != nil) a formula may name one.
	Nullable bool
}

// Helpers is the binding table. Formulas compute in int, exactly: every helper returns the
// true result when it fits int64 and refuses anything else (roofrt/helpers.go).
var Helpers = []Helper{
	{Name: "len", Layers: VarsLayer, Meaning: "length of a shape or a []int param (Go builtin)", Builtin: true},
	{Name: "min", Layers: VarsLayer | ArithLayer, Meaning: "smallest argument (Go builtin)", Builtin: true},
	{Name: "max", Layers: VarsLayer | ArithLayer, Meaning: "largest argument (Go builtin)", Builtin: true},
	{Name: "product", Layers: VarsLayer, Meaning: "product of a []int (1 for an empty one), left to right; overflow is an error", Fails: true},
	{Name: "sum", Layers: VarsLayer, Meaning: "sum of a []int, left to right; overflow is an error", Fails: true},
	{Name: "abs", Layers: VarsLayer | ArithLayer, Meaning: "absolute value; abs(math.MinInt64) is an overflow error", Fails: true},
	{Name: "floordiv", Layers: VarsLayer | ArithLayer, Meaning: "a // b in Python: division rounded toward minus infinity; b = 0 is an error", Fails: true},
	{Name: "cdiv", Layers: VarsLayer | ArithLayer, Meaning: "ceil(a / b) in Python: division rounded toward plus infinity; b = 0 is an error", Fails: true},
	{Name: "floormod", Layers: VarsLayer | ArithLayer, Meaning: "a % b in Python: the remainder takes the sign of b; b = 0 is an error", Fails: true},
	{Name: "normdim", Layers: VarsLayer, Meaning: "validates dim against ndim and normalizes a negative axis (dim + ndim); out of range is an error", Fails: true},
	{Name: "cond", Layers: VarsLayer | ArithLayer, Meaning: "a if c else b; eager: both a and b are evaluated"},
	{Name: "log2", Layers: VarsLayer | ArithLayer, Meaning: "floor(log2(a)) for a >= 1; otherwise an error", Fails: true},
	{Name: "clog2", Layers: VarsLayer | ArithLayer, Meaning: "ceil(log2(a)) for a >= 1; otherwise an error", Fails: true},
	// The two readers of a nullable param (type *int, *float64, ...). Not `value`: that is
	// a common param name (pad's and masked_fill's value), which a helper would shadow.
	{Name: "valueor", Layers: VarsLayer | ArithLayer, Meaning: "p if p is not None else d in Python: the value of the nullable param p, or d when p is nil", Nullable: true},
	{Name: "mustvalue", Layers: VarsLayer | ArithLayer, Meaning: "the value of the nullable param p; nil is an error (for a param every call gives)", Fails: true, Nullable: true},
}

// GoName is the name of the helper's declaration in generated code: the formula name with
// the roofline prefix (product is rooflineProduct), so that no generated package-level name
// can collide with one of the op package's own; a builtin keeps its name.
func (h Helper) GoName() string {
	if h.Builtin {
		return h.Name
	}
	return "roofline" + strings.ToUpper(h.Name[:1]) + h.Name[1:]
}

// lookupHelper returns the helper named name.
func lookupHelper(name string) (Helper, bool) {
	i := slices.IndexFunc(Helpers, func(h Helper) bool { return h.Name == name })
	if i < 0 {
		return Helper{}, false
	}
	return Helpers[i], true
}

// pythonOnly maps names an author coming from the Python formula dialect might write to the Go
// dialect's answer.
var pythonOnly = map[string]string{
	"ceil":       "for ceil(a / b) write cdiv(a, b); ceil(log2(n)) is clog2(n)",
	"floor":      "for floor(a / b) write floordiv(a, b); floor(log2(n)) is log2(n)",
	"None":       "Go has no None: an optional input or a nullable param is tested with name != nil",
	"True":       "Go's boolean is true",
	"False":      "Go's boolean is false",
	"and":        "Go's logical and is &&",
	"or":         "Go's logical or is ||",
	"not":        "Go's logical not is !",
	"isinstance": "params have static Go types; what needs isinstance belongs in func mode",
	"tuple":      "tuples have no place in formulas; move the logic to func mode",
	"set":        "sets have no place in formulas (for duplicate axes use normdim per axis, or func mode)",
	"list":       "lists have no place in formulas; move the logic to func mode",
	"range":      "no loops or comprehensions in formulas; use product/sum or func mode",
	"int":        "values are already int; conversions are not allowed in formulas",
	"float":      "formulas compute in int; conversions are not allowed",
	"float64":    "formulas compute in int; conversions are not allowed",
	"bool":       "conversions are not allowed in formulas",
	"self":       "formulas name inputs, params and dims directly, without self",
	"math":       "no packages in formulas; the helpers are cdiv, floordiv, floormod, log2, clog2, min, max, abs",
	"unsafe":     "unsafe has no place in formulas",
	"prod":       "a product over a shape is product(x.shape) or product(x.shape[a:b])",
	"numel":      "a tensor's element count is product(x.shape), computed in vars",
	"in":         "Go has no membership test; compare each value (x.ndim == 0 || x.ndim == 1), or use func mode",
	"is":         "Python's `is not None` is `!= nil` in Go (allowed for an optional input or a nullable param)",
}
