package manifest

import "fmt"

// DTypeSpec is one dtype a manifest may name, with its storage size in bytes.
type DTypeSpec struct {
	Name string
	Size int
}

// DTypes is the single table of dtypes: the validator checks names against it and package
// ops numbers its DType values after it. New builtin dtypes go at the end (an ops.DType is
// its position here); a module's own dtypes (ropgen.yaml) follow them (SetDTypes).
var DTypes = []DTypeSpec{
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

// builtin is how many of DTypes are ropgen's own; the rest are the module's (SetDTypes).
var builtin = len(DTypes)

// BuiltinDType returns the builtin dtype named name (not one of the module's).
func BuiltinDType(name string) (DTypeSpec, bool) {
	for _, d := range DTypes[:builtin] {
		if d.Name == name {
			return d, true
		}
	}
	return DTypeSpec{}, false
}

// SetDTypes makes extra the module's own dtypes (ropgen.yaml's dtypes), after the builtin
// ones in DTypes, replacing those set before: manifests may name them and elem_bytes gets
// their size. Call it before loading a catalog; SetDTypes() drops them. A builtin name, a
// name given twice or a size below 1 is an error, and then the table is left as it was.
func SetDTypes(extra ...DTypeSpec) error {
	seen := map[string]bool{}
	for _, s := range extra {
		switch _, builtin := BuiltinDType(s.Name); {
		case builtin:
			return fmt.Errorf("dtype %s is builtin", s.Name)
		case seen[s.Name]:
			return fmt.Errorf("dtype %s given twice", s.Name)
		case s.Size < 1:
			return fmt.Errorf("dtype %s: size %d", s.Name, s.Size)
		}
		seen[s.Name] = true
	}
	DTypes = append(DTypes[:builtin:builtin], extra...)
	return nil
}

// LookupDType returns the dtype named name: a builtin one or one of the module's.
func LookupDType(name string) (DTypeSpec, bool) {
	for _, d := range DTypes {
		if d.Name == name {
			return d, true
		}
	}
	return DTypeSpec{}, false
}
