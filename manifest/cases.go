package manifest

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/ropgen/ropgen/diag"
	"go.yaml.in/yaml/v3"
)

// Cases resolves every workload row of op, for every element of its dtypes, to plain values:
// dims, the shapes of present tensors (declared shapes evaluated from the row's dims and
// params), params with defaults filled in, and the dtype of every present tensor. It checks
// each row against the signature on the way: every needed key present, no unknown key,
// values of the right kind, dtypes within the declared unions, shape_rules true. Findings
// also cover the signature itself (dtype and param type syntax, shapes, rules); a row with
// findings yields no case. On an op of a catalog from Load (which is read-only) they were
// resolved once, during validation, and are returned as they were found; a copy of the op,
// changed or not, resolves its own.
func (op *Op) Cases() ([]Case, diag.Findings) {
	if r := op.resolved; r != nil && r.op == op {
		return r.cases, r.fs
	}
	return op.resolveCases()
}

// resolved is an op's cases as Load resolved them.
type resolved struct {
	op    *Op // the op they are of
	cases []Case
	fs    diag.Findings
}

func (op *Op) resolveCases() ([]Case, diag.Findings) {
	s := op.compile()
	if !s.shapesOK {
		// Without the dims the workload keys are unknown: checking rows would only add noise.
		return nil, s.fs
	}
	var cases []Case
	for i, w := range op.Workloads {
		cases = append(cases, s.resolve(i, w)...)
	}
	return cases, s.fs
}

// row holds one workload row's values as they resolve.
type row struct {
	s       *sig
	w       *Workload
	field   string
	dims    map[string]int
	shapes  map[string][]int
	params  map[string]any
	present map[string]bool // inputs passed by the row; outputs always
	bad     bool
}

func (r *row) errorf(pos diag.Pos, field, format string, args ...any) {
	r.s.errorf(pos, field, format, args...)
	r.bad = true
}

func (r *row) nodePos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: r.s.op.Pos.File, Line: n.Line, Col: n.Column}
}

// resolve checks row i and returns its cases, none when it has findings.
func (s *sig) resolve(i int, w *Workload) []Case {
	r := &row{s: s, w: w, field: fmt.Sprintf("workloads[%d]", i), dims: map[string]int{},
		shapes: map[string][]int{}, params: map[string]any{}, present: map[string]bool{}}
	r.values()
	r.missing()
	// Dtypes depend only on which inputs the row passes: check them even when a value is bad.
	var dtypes []map[string]string
	for _, set := range w.DTypes {
		dtypes = append(dtypes, r.dtypes(set))
	}
	if r.bad {
		return nil
	}
	env := r.env()
	r.evalShapes(env)
	if r.bad {
		return nil
	}
	r.checkRules(env)
	if r.bad {
		return nil
	}
	cases := make([]Case, len(dtypes))
	for j, dt := range dtypes {
		// Each case owns its maps: a consumer may change one without touching its siblings.
		cases[j] = Case{Op: s.op.Name, Label: w.Name(i), Row: i, Dims: maps.Clone(r.dims),
			Shapes: maps.Clone(r.shapes), Params: maps.Clone(r.params), DTypes: dt}
	}
	return cases
}

// values decodes every key of the row against what the signature says it stands for.
func (r *row) values() {
	for _, t := range r.s.op.tensors() {
		r.present[t.Name] = !t.Optional
	}
	seen := make(map[string]bool, len(r.w.Values))
	for _, kv := range r.w.Values {
		field := r.field + "." + kv.Key.Value
		if seen[kv.Key.Value] { // YAML rows never get here (duplicate keys are refused on parse); -set rows do
			r.errorf(kv.Key.Pos, field, "%s given twice", kv.Key.Value)
			continue
		}
		seen[kv.Key.Value] = true
		k, ok := r.s.keys[kv.Key.Value]
		if !ok {
			r.errorf(kv.Key.Pos, r.field, "unknown key %q (known: %s)", kv.Key.Value, strings.Join(sortedKeys(r.s.keys), ", "))
			continue
		}
		switch k.kind {
		case keyDim:
			if v, msg := dimValue(kv.Value); msg == "" {
				r.dims[kv.Key.Value] = v
			} else {
				r.errorf(r.nodePos(kv.Value), field, "%s", msg)
			}
		case keyShape:
			r.present[k.tensor.Name] = true
			if shape, ok := r.shapeValue(kv.Value, field); ok {
				r.shapes[k.tensor.Name] = shape
			}
		case keyWith:
			var with bool
			if kv.Value.Kind != yaml.ScalarNode || kv.Value.Tag != "!!bool" || kv.Value.Decode(&with) != nil {
				r.errorf(r.nodePos(kv.Value), field, "must be true or false, not %s", describe(kv.Value))
			}
			r.present[k.tensor.Name] = with
		case keyParam:
			t, ok := r.s.params[k.param]
			if !ok {
				continue // its type is already reported
			}
			if v, msg := t.value(kv.Value); msg != "" {
				r.errorf(r.nodePos(kv.Value), field, "%s", msg)
			} else {
				r.params[k.param] = v
			}
		}
	}
}

// missing reports the keys the row must give and does not.
func (r *row) missing() {
	for _, d := range r.s.dims {
		if r.w.Value(d) != nil {
			continue
		}
		// A dim only an absent optional input uses is not needed.
		if i := slices.IndexFunc(r.s.dimOf[d], func(t *Tensor) bool { return r.present[t.Name] }); i >= 0 {
			r.errorf(r.w.Pos, r.field, "missing dim %s (used by the shape of %s)", d, r.s.dimOf[d][i].Name)
		}
	}
	for _, t := range r.s.op.Inputs {
		if t.Shape == nil && !t.Optional && r.w.Value(t.Name+"_shape") == nil {
			r.errorf(r.w.Pos, r.field, "missing %s_shape: input %s has no declared shape, so each row gives it", t.Name, t.Name)
		}
	}
	for _, p := range r.s.op.Params {
		if _, given := r.params[p.Name]; given || r.w.Value(p.Name) != nil {
			continue
		}
		_, typed := r.s.params[p.Name]
		v, ok := r.s.defaults[p.Name]
		switch {
		case ok:
			r.params[p.Name] = v
		case !typed || p.Default != nil:
			r.bad = true // its type or default is reported with the signature
		default:
			r.errorf(r.w.Pos, r.field, "missing param %s (it has no default)", p.Name)
		}
	}
}

// dimValue decodes a dim given in a workload row, or says what is wrong with it: the value
// itself when it is an integer but not positive, or too large for an int.
func dimValue(n *yaml.Node) (int, string) {
	v, ok := intValue(n)
	switch {
	case ok && v > 0:
		return v, ""
	case ok:
		return 0, fmt.Sprintf("a dim must be a positive integer, not %d", v)
	case isInt(n):
		return 0, fmt.Sprintf("a dim must be a positive integer, not %s: %s", n.Value, outOfRange)
	}
	return 0, "a dim must be a positive integer, not " + describe(n)
}

// shapeValue decodes an <input>_shape value: a list of positive integers.
func (r *row) shapeValue(n *yaml.Node, field string) ([]int, bool) {
	if n.Kind != yaml.SequenceNode {
		r.errorf(r.nodePos(n), field, "a shape must be a list of positive integers, not %s", describe(n))
		return nil, false
	}
	shape := make([]int, len(n.Content))
	ok := true
	for i, e := range n.Content {
		v, msg := dimValue(e)
		if msg != "" {
			r.errorf(r.nodePos(e), fmt.Sprintf("%s[%d]", field, i), "%s", msg)
			ok = false
		}
		shape[i] = v
	}
	return shape, ok
}

// env is what the row's dim expressions see: dims and params. checkRules adds the tensors.
func (r *row) env() map[string]any {
	env := make(map[string]any, len(r.dims)+len(r.s.params))
	for d, v := range r.dims {
		env[d] = v
	}
	for name, t := range r.s.params {
		env[name] = t.env(r.params[name])
	}
	return env
}

// evalShapes evaluates, in env, the declared shape of every present fixed-rank tensor.
func (r *row) evalShapes(env map[string]any) {
	for _, t := range r.s.op.tensors() {
		exprs, ok := r.s.shapes[t.Name]
		if !ok || !r.present[t.Name] {
			continue
		}
		shape := make([]int, len(exprs))
		for i, e := range exprs {
			if e.dim != "" {
				shape[i] = r.dims[e.dim]
				continue
			}
			v, err := expr.Run(e.prog, env)
			d, isInt := toInt(v)
			switch {
			case err != nil:
				r.errorf(r.w.Pos, r.field, "dim %s of %s %s: %v", e.src, t.Name, t.Shape.Value, err)
			case !isInt || d <= 0:
				r.errorf(r.w.Pos, r.field, "dim %s of %s %s is %v; a dim must be a positive integer", e.src, t.Name, t.Shape.Value, v)
			}
			shape[i] = d
		}
		r.shapes[t.Name] = shape
	}
}

// toInt accepts an integer, or a float with an integral value (expr-lang's `/` yields one).
func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	}
	return 0, false
}

// checkRules evaluates every shape rule on the row, in env with the present tensors' shapes
// added (an absent optional input is a nil tensor). A rule that fails is reported at the
// rule, naming the row and the values the rule read.
func (r *row) checkRules(env map[string]any) {
	if len(r.s.rules) == 0 {
		return
	}
	for _, t := range r.s.op.tensors() {
		if shape, ok := r.shapes[t.Name]; ok {
			env[t.Name] = &tensorEnv{Shape: shape, NDim: len(shape)}
		} else {
			env[t.Name] = (*tensorEnv)(nil)
		}
	}
	for _, ru := range r.s.rules {
		field := fmt.Sprintf("signature.shape_rules[%d]", ru.index)
		v, err := expr.Run(ru.prog, env)
		switch {
		case err != nil:
			msg := err.Error()
			var fe *file.Error
			if errors.As(err, &fe) { // the message, not expr's copy of the rule with a caret under it
				msg = fe.Message
			}
			r.errorf(ru.src.At(0), field, "%s fails on %s: %s", quote(ru.src.Value), r.describe(), msg)
		case v != true:
			r.errorf(ru.src.At(0), field, "%s is false for %s (%s)", quote(ru.src.Value), r.describe(), r.show(identifiers(ru.prog.Node())))
		}
	}
}

// describe names the row: its index, label and line. A row that is in no file (one given on
// a command line, ropbench -set) has no line and no index of its own: its label names it.
func (r *row) describe() string {
	if r.w.Pos.Line == 0 && r.w.Label != nil {
		return "the row " + quote(r.w.Label.Value)
	}
	s := r.field
	if r.w.Label != nil {
		s += " " + quote(r.w.Label.Value)
	}
	if r.w.Pos.Line == 0 {
		return s
	}
	return fmt.Sprintf("%s at line %d", s, r.w.Pos.Line)
}

// show lists the values the row binds to names.
func (r *row) show(names []string) string {
	var parts []string
	for _, n := range names {
		if v, ok := r.dims[n]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", n, v))
		} else if v, ok := r.params[n]; ok {
			if v == nil {
				v = "null"
			}
			parts = append(parts, fmt.Sprintf("%s=%v", n, v))
		} else if shape, ok := r.shapes[n]; ok {
			parts = append(parts, fmt.Sprintf("%s.shape=%v", n, shape))
		} else if slices.ContainsFunc(r.s.op.tensors(), func(t *Tensor) bool { return t.Name == n }) {
			parts = append(parts, n+" absent")
		}
	}
	return strings.Join(parts, ", ")
}

// dtypes resolves one element of the row's dtypes to the dtype of every present tensor, or
// returns nil with findings (marking the row bad).
func (r *row) dtypes(set DTypeSet) map[string]string {
	s := r.s
	if !s.dtypesOK {
		r.bad = true // the signature's dtypes are already reported
		return nil
	}
	before := len(s.fs)
	field := r.field + "." + KeyDTypes
	bound := map[string]string{}
	primary := s.root(s.op.Inputs[0].Name)
	if set.Single != nil {
		// A dtype that does not fit is reported once: it still counts as given.
		r.inUnion(set.Single.Pos, field, primary, set.Single.Value)
		bound[primary] = set.Single.Value
	} else {
		for _, kv := range set.ByInput {
			name := kv.Key.Value
			decl, ok := s.dtypes[name]
			switch {
			case !ok:
				r.errorf(kv.Key.Pos, field, "no input or output named %s", name)
			case decl.sameAs != "":
				r.errorf(kv.Key.Pos, field, "%s is same_as(%s): give the dtype of %s", name, decl.sameAs, decl.sameAs)
			default:
				r.inUnion(kv.Value.Pos, field, name, kv.Value.Value)
				bound[name] = kv.Value.Value
			}
		}
	}
	out := map[string]string{}
	for _, t := range s.op.tensors() {
		if !r.present[t.Name] {
			continue
		}
		root := s.root(t.Name)
		d, ok := bound[root]
		if !ok {
			union := s.dtypes[root].union
			switch {
			case len(union) == 1:
				d = union[0]
			case set.Single != nil:
				r.errorf(set.Pos, field, "%s has dtypes of its own (%s), so this element must be a mapping such as {%s: %s, %s: %s}",
					root, strings.Join(union, " | "), primary, set.Single.Value, root, union[0])
			default:
				r.errorf(set.Pos, field, "missing %s: it has dtypes of its own (%s)", root, strings.Join(union, " | "))
			}
			bound[root] = d // report a root once
		}
		out[t.Name] = d
	}
	if len(s.fs) > before {
		return nil
	}
	return out
}

// root is the tensor whose dtype union decides the dtype of tensor name.
func (s *sig) root(name string) string {
	if d := s.dtypes[name]; d.sameAs != "" {
		return d.sameAs
	}
	return name
}

// inUnion reports whether d is one of tensor's dtypes, and says why not when it is not.
func (r *row) inUnion(pos diag.Pos, field, tensor, d string) bool {
	union := r.s.dtypes[tensor].union
	switch _, known := LookupDType(d); {
	case slices.Contains(union, d):
		return true
	case !known:
		r.errorf(pos, field, "unknown dtype %q (known: %s)", d, strings.Join(dtypeNames(), ", "))
	default:
		r.errorf(pos, field, "%s is not a dtype of %s (%s)", d, tensor, strings.Join(union, " | "))
	}
	return false
}
