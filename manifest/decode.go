package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/internal/parallel"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/schema"
	"go.yaml.in/yaml/v3"
)

// Decode builds the catalog from parsed files. An op name defined twice, in one file or two,
// is a finding naming both places; an op whose entry is malformed is reported and left out.
func Decode(files []*File) (*Catalog, diag.Findings) {
	cat := &Catalog{Files: files}
	// Which entry defines each op is decided in file order; the entries then decode
	// independently, in parallel, each into its own slot, so that ops and findings keep
	// that order.
	type entry struct {
		f        *File
		key, val *yaml.Node
		op       *Op
		fs       diag.Findings
	}
	var entries []entry
	first := map[string]diag.Pos{}
	for _, f := range files {
		EachEntry(f, func(key, val *yaml.Node) {
			name := key.Value
			pos := diag.Pos{File: f.Path, Line: key.Line, Col: key.Column}
			if prev, ok := first[name]; ok {
				if prev.File != f.Path { // a duplicate within one file is reported by Parse
					entries = append(entries, entry{fs: diag.Findings{{Pos: pos, Op: name, Msg: "op defined twice; first definition at " + prev.String()}}})
				}
				return
			}
			first[name] = pos
			entries = append(entries, entry{f: f, key: key, val: val})
		})
	}
	parallel.For(len(entries), func(i int) {
		if e := &entries[i]; e.f != nil {
			e.op, e.fs = DecodeOp(e.f, e.key, e.val)
		}
	})
	var fs diag.Findings
	for _, e := range entries {
		fs = append(fs, e.fs...)
		if e.op != nil {
			cat.Ops = append(cat.Ops, e.op)
		}
	}
	return cat, fs
}

// EachEntry calls fn for every top-level (op name, entry) pair of f.
func EachEntry(f *File, fn func(key, val *yaml.Node)) {
	for i := 0; i+1 < len(f.Root.Content); i += 2 {
		fn(f.Root.Content[i], f.Root.Content[i+1])
	}
}

// decoder collects findings for one op entry.
type decoder struct {
	file string
	src  *source // the file's bytes, for positions inside scalars
	op   string
	fs   diag.Findings
}

func (d *decoder) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	d.fs = append(d.fs, diag.Finding{Pos: d.pos(n), Op: d.op, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) str(n *yaml.Node) Str {
	return Str{Value: n.Value, Pos: d.pos(n), style: n.Style, src: d.src}
}

// fields walks a mapping node, calling the handler registered for each key and reporting
// unknown keys, missing required keys and non-mapping nodes.
func (d *decoder) fields(n *yaml.Node, field string, required []string, handlers map[string]func(k, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, field, "must be a mapping, not %s", schema.KindName(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h, ok := handlers[k.Value]
		if !ok {
			d.errorf(k, field, "unknown key %q (known: %s)", k.Value, strings.Join(sortedKeys(handlers), ", "))
			continue
		}
		seen[k.Value] = true
		h(k, v)
	}
	for _, r := range required {
		if !seen[r] {
			d.errorf(n, field, "missing required key %q", r)
		}
	}
	return true
}

// text decodes a non-empty string scalar.
func (d *decoder) text(n *yaml.Node, field string) (Str, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		d.errorf(n, field, "must be a string, not %s", schema.KindName(n))
		return Str{}, false
	}
	if strings.TrimSpace(n.Value) == "" {
		d.errorf(n, field, "must not be empty")
		return Str{}, false
	}
	return d.str(n), true
}

func (d *decoder) textPtr(n *yaml.Node, field string) *Str {
	if s, ok := d.text(n, field); ok {
		return &s
	}
	return nil
}

// DecodeOp decodes one op entry. It returns nil when the entry has findings.
func DecodeOp(f *File, key, val *yaml.Node) (*Op, diag.Findings) {
	d := &decoder{file: f.Path, op: key.Value, src: f.source()}
	op := &Op{Name: key.Value, Pos: d.pos(key), Node: val}
	if key.Kind != yaml.ScalarNode || !isIdent(key.Value) {
		d.errorf(key, "", "op name %q is not an identifier (ASCII letters, digits and _, not starting with a digit)", key.Value)
	}
	d.fields(val, "", []string{"family", "status", "signature", "roofline"}, map[string]func(k, v *yaml.Node){
		"family": func(_, v *yaml.Node) {
			if s, ok := d.text(v, "family"); ok {
				op.Family = s
			}
		},
		"status": func(_, v *yaml.Node) {
			if s, ok := d.text(v, "status"); ok {
				if s.Value != StatusImplemented && s.Value != StatusSpecOnly {
					d.errorf(v, "status", "must be %q or %q, not %q", StatusImplemented, StatusSpecOnly, s.Value)
				}
				op.Status = s
			}
		},
		"ref":       func(_, v *yaml.Node) { op.Ref = d.textPtr(v, "ref") },
		"signature": func(_, v *yaml.Node) { d.signature(op, v) },
		"workloads": func(_, v *yaml.Node) { d.workloads(op, v) },
		"roofline":  func(_, v *yaml.Node) { op.Roofline = d.roofline(v) },
	})
	if len(d.fs) > 0 {
		return nil, d.fs
	}
	return op, nil
}

func (d *decoder) signature(op *Op, n *yaml.Node) {
	d.fields(n, "signature", []string{"inputs", "outputs"}, map[string]func(k, v *yaml.Node){
		"inputs":  func(_, v *yaml.Node) { op.Inputs = d.tensors(v, "signature.inputs", true) },
		"outputs": func(_, v *yaml.Node) { op.Outputs = d.tensors(v, "signature.outputs", false) },
		"params": func(_, v *yaml.Node) {
			d.eachPair(v, "signature.params", func(k, pv *yaml.Node) {
				field := "signature.params." + k.Value
				p := &Param{Name: k.Value, Pos: d.pos(k)}
				d.name(k, field)
				d.fields(pv, field, []string{"type"}, map[string]func(k, v *yaml.Node){
					"type": func(_, v *yaml.Node) {
						if s, ok := d.text(v, field+".type"); ok {
							p.Type = s
						}
					},
					"default": func(_, v *yaml.Node) { p.Default = v },
				})
				op.Params = append(op.Params, p)
			})
		},
		"shape_rules": func(_, v *yaml.Node) {
			if v.Kind != yaml.SequenceNode {
				d.errorf(v, "signature.shape_rules", "must be a list of expressions, not %s", schema.KindName(v))
				return
			}
			for _, r := range v.Content {
				if s, ok := d.text(r, "signature.shape_rules"); ok {
					op.ShapeRules = append(op.ShapeRules, s)
				}
			}
		},
	})
}

func (d *decoder) eachPair(n *yaml.Node, field string, fn func(k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, field, "must be a mapping, not %s", schema.KindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		fn(n.Content[i], n.Content[i+1])
	}
}

// name checks that a declared name is usable as a Go identifier in generated code.
func (d *decoder) name(k *yaml.Node, field string) {
	if !isIdent(k.Value) {
		d.errorf(k, field, "name %q is not an identifier", k.Value)
	}
}

func (d *decoder) tensors(n *yaml.Node, field string, inputs bool) []*Tensor {
	var ts []*Tensor
	d.eachPair(n, field, func(k, v *yaml.Node) {
		tf := field + "." + k.Value
		d.name(k, tf)
		t := &Tensor{Name: k.Value, Pos: d.pos(k)}
		h := map[string]func(k, v *yaml.Node){
			"dtype": func(_, v *yaml.Node) {
				if s, ok := d.text(v, tf+".dtype"); ok {
					t.DType = s
				}
			},
			"shape":   func(_, v *yaml.Node) { t.Shape = d.textPtr(v, tf+".shape") },
			"partial": func(_, v *yaml.Node) { t.Partial = d.textPtr(v, tf+".partial") },
		}
		if inputs {
			h["optional"] = func(_, v *yaml.Node) {
				if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
					d.errorf(v, tf+".optional", "must be true or false, not %s", schema.KindName(v))
					return
				}
				t.Optional = v.Value == "true"
			}
		}
		d.fields(v, tf, []string{"dtype"}, h)
		ts = append(ts, t)
	})
	if len(ts) == 0 && inputs {
		d.errorf(n, field, "an op needs at least one input")
	}
	return ts
}

func (d *decoder) workloads(op *Op, n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "workloads", "must be a list of rows, not %s", schema.KindName(n))
		return
	}
	for i, row := range n.Content {
		field := fmt.Sprintf("workloads[%d]", i)
		if row.Kind != yaml.MappingNode {
			d.errorf(row, field, "must be a mapping, not %s", schema.KindName(row))
			continue
		}
		w := &Workload{Pos: d.pos(row)}
		hasDTypes := false
		for j := 0; j+1 < len(row.Content); j += 2 {
			k, v := row.Content[j], row.Content[j+1]
			switch k.Value {
			case KeyLabel:
				w.Label = d.textPtr(v, field+".label")
				if w.Label != nil {
					// A record names the workload by its label: one no record can carry
					// would be timed and then refused by every reader.
					for _, msg := range record.NameErrors(KeyLabel, w.Label.Value) {
						d.errorf(v, field+".label", "%s: benchmark records name the workload by it", msg)
					}
				}
			case KeyDTypes:
				hasDTypes = true
				w.DTypes = d.dtypeSets(v, field+".dtypes")
			default:
				w.Values = append(w.Values, KeyValue{Key: d.str(k), Value: v})
			}
		}
		if !hasDTypes {
			d.errorf(row, field, "missing required key %q", KeyDTypes)
		}
		op.Workloads = append(op.Workloads, w)
	}
}

func (d *decoder) dtypeSets(n *yaml.Node, field string) []DTypeSet {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.errorf(n, field, "must be a non-empty list of dtypes")
		return nil
	}
	var sets []DTypeSet
	for _, e := range n.Content {
		set := DTypeSet{Pos: d.pos(e)}
		switch e.Kind {
		case yaml.ScalarNode:
			set.Single = d.textPtr(e, field)
		case yaml.MappingNode:
			d.eachPair(e, field, func(k, v *yaml.Node) {
				if s, ok := d.text(v, field+"."+k.Value); ok {
					set.ByInput = append(set.ByInput, KeyStr{Key: d.str(k), Value: s})
				}
			})
		default:
			d.errorf(e, field, "each element must be a dtype name or a mapping from input names to dtypes, not %s", schema.KindName(e))
		}
		sets = append(sets, set)
	}
	return sets
}

func (d *decoder) roofline(n *yaml.Node) *Roofline {
	r := &Roofline{Pos: d.pos(n)}
	ok := d.fields(n, "roofline", nil, map[string]func(k, v *yaml.Node){
		"flops": func(_, v *yaml.Node) { r.Flops = d.textPtr(v, "roofline.flops") },
		"bytes": func(_, v *yaml.Node) { r.Bytes = d.textPtr(v, "roofline.bytes") },
		"func":  func(_, v *yaml.Node) { r.Func = d.textPtr(v, "roofline.func") },
		"vars": func(_, v *yaml.Node) {
			d.eachPair(v, "roofline.vars", func(k, e *yaml.Node) {
				d.name(k, "roofline.vars")
				if s, ok := d.text(e, "roofline.vars."+k.Value); ok {
					r.Vars = append(r.Vars, Var{Name: d.str(k), Expr: s})
				}
			})
		},
	})
	if !ok {
		return nil
	}
	inline := r.Flops != nil || r.Bytes != nil || r.Vars != nil
	switch {
	case r.Func != nil && inline:
		d.errorf(n, "roofline", "func mode and inline mode (vars, flops, bytes) are exclusive")
	case r.Func == nil && (r.Flops == nil || r.Bytes == nil):
		if !d.hasErrorIn("roofline.") {
			d.errorf(n, "roofline", "inline mode needs both flops and bytes; func mode needs func")
		}
	}
	return r
}

func (d *decoder) hasErrorIn(prefix string) bool {
	for _, f := range d.fs {
		if strings.HasPrefix(f.Field, prefix) {
			return true
		}
	}
	return false
}

func isIdent(s string) bool {
	if s == "" || s == "_" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
