package manifest

import (
	"fmt"

	"github.com/ropgen/ropgen/internal/dtype"
)

// DTypeSpec is one dtype a manifest may name, with its storage size in bytes.
type DTypeSpec = dtype.Spec

// DTypes is the dtypes a manifest may name: ropgen's own (internal/dtype's table, the one
// package ops numbers its DType values after) followed by the module's own (ropgen.yaml's,
// SetDTypes). The capacity stops at the builtin ones, so that SetDTypes never writes into
// that table.
var DTypes = dtype.Builtin[:len(dtype.Builtin):len(dtype.Builtin)]

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
	DTypes = append(dtype.Builtin[:builtin:builtin], extra...)
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
