package gen

import "slices"

// Layer is one of the two expression layers of an inline formula (spec §4.4.3).
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

// Helper is one entry of the binding table (spec §4.4.4, in its Go dialect): a function a
// formula may call. The table is the single source of truth: the gate, the type check, the
// emitted helpers file and the README's table are all read from it.
type Helper struct {
	Name    string
	Layers  Layer
	Meaning string
	// Decl is the helper's Go declaration, emitted into zz_roofline_helpers.go and used by
	// the type check. Empty for Go builtins.
	Decl string
	// Needs lists the other helpers Decl calls.
	Needs []string
}

// Helpers is the binding table. The arithmetic-layer helpers are generic over int and
// float64: the generated code evaluates flops and bytes once in int (the result) and once in
// float64 (an overflow shadow), and both must agree.
var Helpers = []Helper{
	{Name: "len", Layers: VarsLayer, Meaning: "length of a shape or a []int param (Go builtin)"},
	{Name: "min", Layers: VarsLayer | ArithLayer, Meaning: "smallest argument (Go builtin)"},
	{Name: "max", Layers: VarsLayer | ArithLayer, Meaning: "largest argument (Go builtin)"},
	{Name: "product", Layers: VarsLayer, Meaning: "product of a []int (1 for an empty one); overflow is an error", Decl: `
// product returns the product of s, 1 for an empty s. Overflow panics with a roofline error.
func product(s []int) int {
	p := 1
	for _, v := range s {
		hi, lo := bits.Mul64(uint64(abs(p)), uint64(abs(v)))
		if hi != 0 || lo > math.MaxInt64 {
			panic(rooflineOverflow("product"))
		}
		p *= v
	}
	return p
}`, Needs: []string{"abs"}},
	{Name: "sum", Layers: VarsLayer, Meaning: "sum of a []int; overflow is an error", Decl: `
// sum returns the sum of s. Overflow panics with a roofline error.
func sum(s []int) int {
	t := 0
	for _, v := range s {
		r := t + v
		if (r > t) != (v > 0) {
			panic(rooflineOverflow("sum"))
		}
		t = r
	}
	return t
}`},
	{Name: "abs", Layers: VarsLayer | ArithLayer, Meaning: "absolute value", Decl: `
// abs returns the absolute value of a.
func abs[T rooflineNumber](a T) T {
	if a < 0 {
		return -a
	}
	return a
}`},
	{Name: "floordiv", Layers: VarsLayer | ArithLayer, Meaning: "a // b in Python: division rounded toward minus infinity", Decl: `
// floordiv returns a / b rounded toward minus infinity, as Python's a // b.
func floordiv[T rooflineNumber](a, b T) T {
	if b == 0 {
		panic(rooflineError("floordiv: division by zero"))
	}
	if x, ok := any(a).(float64); ok {
		return T(math.Floor(x / float64(b)))
	}
	q := a / b // int: truncated toward zero, so step down when the signs differ
	if q*b != a && (a < 0) != (b < 0) {
		q--
	}
	return q
}`},
	{Name: "cdiv", Layers: VarsLayer | ArithLayer, Meaning: "ceil(a / b) in Python: division rounded toward plus infinity", Decl: `
// cdiv returns a / b rounded toward plus infinity, as Python's ceil(a / b) (or -(-a // b)).
func cdiv[T rooflineNumber](a, b T) T {
	return -floordiv(-a, b)
}`, Needs: []string{"floordiv"}},
	{Name: "floormod", Layers: VarsLayer | ArithLayer, Meaning: "a % b in Python: the remainder takes the sign of b", Decl: `
// floormod returns a - b*floordiv(a, b), as Python's a % b.
func floormod[T rooflineNumber](a, b T) T {
	return a - b*floordiv(a, b)
}`, Needs: []string{"floordiv"}},
	{Name: "normdim", Layers: VarsLayer, Meaning: "validates dim against ndim and normalizes a negative axis (dim + ndim); out of range is an error", Decl: `
// normdim validates dim for a tensor of rank ndim and returns it normalized to [0, ndim).
func normdim(dim, ndim int) int {
	if dim < -ndim || dim >= ndim {
		panic(rooflineError(fmt.Sprintf("dim %d out of range for a tensor of rank %d", dim, ndim)))
	}
	if dim < 0 {
		return dim + ndim
	}
	return dim
}`},
	{Name: "cond", Layers: VarsLayer | ArithLayer, Meaning: "a if c else b; eager: both a and b are evaluated", Decl: `
// cond returns a when c holds, else b. Both arguments are evaluated (eagerly).
func cond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}`},
	{Name: "log2", Layers: VarsLayer | ArithLayer, Meaning: "floor(log2(a)) for a >= 1; otherwise an error", Decl: `
// log2 returns floor(log2(a)) for a >= 1.
func log2[T rooflineNumber](a T) T {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("log2 of %v", a)))
	}
	return T(bits.Len64(uint64(a)) - 1)
}`},
	{Name: "clog2", Layers: VarsLayer | ArithLayer, Meaning: "ceil(log2(a)) for a >= 1; otherwise an error", Decl: `
// clog2 returns ceil(log2(a)) for a >= 1.
func clog2[T rooflineNumber](a T) T {
	if a < 1 {
		panic(rooflineError(fmt.Sprintf("clog2 of %v", a)))
	}
	return T(bits.Len64(uint64(a) - 1))
}`},
}

// lookupHelper returns the helper named name.
func lookupHelper(name string) (Helper, bool) {
	i := slices.IndexFunc(Helpers, func(h Helper) bool { return h.Name == name })
	if i < 0 {
		return Helper{}, false
	}
	return Helpers[i], true
}

// pythonOnly maps names an author coming from the spec's Python might write to the Go
// dialect's answer.
var pythonOnly = map[string]string{
	"ceil":       "for ceil(a / b) write cdiv(a, b); ceil(log2(n)) is clog2(n)",
	"floor":      "for floor(a / b) write floordiv(a, b); floor(log2(n)) is log2(n)",
	"None":       "Go has no None: an optional input is tested with name != nil",
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
}
