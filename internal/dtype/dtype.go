// Package dtype is the one table of ropgen's tensor element types and their storage sizes.
// The manifest model checks dtype names against it (and adds a module's own after it), and
// package ops numbers its DType constants after it. It imports nothing, so that the op
// catalog reads the table without the manifest model and its YAML, schema and expression
// libraries.
package dtype

// Spec is one dtype: the name a manifest spells and its storage size in bytes.
type Spec struct {
	Name string
	Size int
}

// Builtin is ropgen's own dtypes. New ones go at the end: an ops.DType is its index here
// plus one, so a dtype moved or removed renumbers every constant after it. An array, so
// that an indexed read needs no bounds check beyond the index's own.
var Builtin = [...]Spec{
	{"float32", 4},
	{"float16", 2},
	{"bfloat16", 2},
	{"float8_e4m3", 1},
	{"float8_e5m2", 1},
	{"int64", 8},
	{"int32", 4},
	{"int8", 1},
	{"bool", 1},
	{"float64", 8},
	{"int16", 2},
	{"uint8", 1},
	// PyTorch's spelling of the OCP E4M3 format (finite: no infinities), as the Python
	// kernel libraries write it; a dtype of its own here, so a manifest says what it means.
	{"float8_e4m3fn", 1},
}
