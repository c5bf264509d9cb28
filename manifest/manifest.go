// Package manifest holds the op catalog's manifest model and its YAML loader.
//
// A manifest file is a YAML mapping from op names (the Go type names in package ops) to
// entries. Every value keeps its file, line and column so that the validator and the
// generator can point at the exact token that is wrong.
package manifest

import (
	"strconv"

	"github.com/ropgen/ropgen/diag"
	"go.yaml.in/yaml/v3"
)

// Entry statuses (docs/model.md §7.6): the generator emits code for implemented entries only.
const (
	StatusImplemented = "implemented"
	StatusSpecOnly    = "spec-only"
)

// Reserved workload keys. Every other key of a workload row is a dim, an input shape
// (<input>_shape), an optional fixed-rank input switch (with_<input>) or a param.
const (
	KeyDTypes = "dtypes"
	KeyLabel  = "label"
)

// Str is a scalar string with the position of its first character in the file.
type Str struct {
	Value string
	Pos   diag.Pos
	// style and src (the file's bytes) let At map an offset in Value to the file (strpos.go).
	style yaml.Style
	src   *source
}

// Catalog is every op of a set of manifest files, in file order then declaration order.
type Catalog struct {
	Files []*File
	Ops   []*Op
}

// Op returns the op named name, or nil.
func (c *Catalog) Op(name string) *Op {
	for _, op := range c.Ops {
		if op.Name == name {
			return op
		}
	}
	return nil
}

// Op is one manifest entry.
type Op struct {
	Name   string
	Pos    diag.Pos
	Family Str
	Status Str
	Ref    *Str // optional reference API, e.g. torch.nn.functional.rms_norm

	Inputs     []*Tensor
	Outputs    []*Tensor
	Params     []*Param
	ShapeRules []Str

	Workloads []*Workload
	Roofline  *Roofline

	// Node is the entry's YAML mapping, kept for position lookups.
	Node *yaml.Node

	resolved *resolved // set by Load: the op's cases, resolved once
}

// Implemented reports whether the generator emits code for the op.
func (op *Op) Implemented() bool { return op.Status.Value == StatusImplemented }

// Input returns the input tensor named name, or nil.
func (op *Op) Input(name string) *Tensor { return findNamed(op.Inputs, name) }

// Output returns the output tensor named name, or nil.
func (op *Op) Output(name string) *Tensor { return findNamed(op.Outputs, name) }

// Param returns the param named name, or nil.
func (op *Op) Param(name string) *Param {
	for _, p := range op.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func findNamed(ts []*Tensor, name string) *Tensor {
	for _, t := range ts {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Tensor is one input or output of an op's signature.
type Tensor struct {
	Name string
	Pos  diag.Pos
	// DType is a union such as "float16 | bfloat16", or "same_as(x)".
	DType Str
	// Shape is "[M, K]" for a fixed-rank tensor; nil for an arbitrary-rank one.
	Shape    *Str
	Optional bool
	// Partial, when set, says why the op touches only part of the tensor (a gather's table,
	// a paged cache): the tensor then leaves the footprint floor (Footprint), and the text is
	// the reason a reader sees. Nil for the usual tensor, read or written whole.
	Partial *Str
}

// FixedRank reports whether the tensor declares its shape.
func (t *Tensor) FixedRank() bool { return t.Shape != nil }

// Param is one op parameter. Type is a Go type: int, bool, float64, string, []int, or a
// pointer to one of the scalars for a nullable param.
type Param struct {
	Name    string
	Pos     diag.Pos
	Type    Str
	Default *yaml.Node // nil when the param has no default
}

// Workload is one row of an op's workloads.
type Workload struct {
	Pos    diag.Pos
	Label  *Str
	Values []KeyValue // every key but dtypes and label, in row order
	DTypes []DTypeSet
}

// Value returns the row's value for key, or nil.
func (w *Workload) Value(key string) *yaml.Node {
	for _, kv := range w.Values {
		if kv.Key.Value == key {
			return kv.Value
		}
	}
	return nil
}

// Name is the row's label, or its 1-based index when it has none.
func (w *Workload) Name(index int) string {
	if w.Label != nil {
		return w.Label.Value
	}
	return "#" + strconv.Itoa(index+1)
}

// KeyValue is one key of a workload row.
type KeyValue struct {
	Key   Str
	Value *yaml.Node
}

// DTypeSet is one element of a row's dtypes: either one dtype name, which binds the first
// input (and every input declared same_as it), or a mapping from input names to dtypes.
type DTypeSet struct {
	Pos     diag.Pos
	Single  *Str
	ByInput []KeyStr
}

// KeyStr is a key with a string value.
type KeyStr struct {
	Key   Str
	Value Str
}

// Roofline is an entry's roofline field: inline (Vars, Flops, Bytes) or func (Func).
type Roofline struct {
	Pos   diag.Pos
	Vars  []Var
	Flops *Str
	Bytes *Str
	Func  *Str
}

// Var is one entry of roofline.vars, in declaration order.
type Var struct {
	Name Str
	Expr Str
}
