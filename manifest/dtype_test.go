package manifest

import (
	"slices"
	"testing"

	"github.com/ropgen/ropgen/internal/dtype"
)

// TestSetDTypes: a module's dtypes become known with their sizes and replace those set
// before; a builtin name, a name twice or a size below 1 is refused and changes nothing.
func TestSetDTypes(t *testing.T) {
	t.Cleanup(func() { SetDTypes() })
	if _, ok := LookupDType("uint4x2"); ok {
		t.Fatal("uint4x2 is known before it is set")
	}
	if err := SetDTypes(DTypeSpec{Name: "uint4x2", Size: 1}, DTypeSpec{Name: "mx9", Size: 2}); err != nil {
		t.Fatal(err)
	}
	if d, ok := LookupDType("mx9"); !ok || d.Size != 2 {
		t.Errorf("mx9: %v %v", d, ok)
	}
	if _, ok := BuiltinDType("mx9"); ok {
		t.Error("a module's dtype counts as builtin")
	}
	if err := SetDTypes(DTypeSpec{Name: "mx9", Size: 2}); err != nil {
		t.Fatal(err)
	}
	if _, ok := LookupDType("uint4x2"); ok {
		t.Error("uint4x2 survives a SetDTypes without it")
	}
	n := len(DTypes)
	for _, bad := range [][]DTypeSpec{{{Name: "float32", Size: 4}}, {{Name: "newone", Size: 1}, {Name: "newone", Size: 2}}, {{Name: "zero", Size: 0}}} {
		if err := SetDTypes(bad...); err == nil || len(DTypes) != n {
			t.Errorf("SetDTypes(%v): %v, %d dtypes (want an error and %d)", bad, err, len(DTypes), n)
		}
	}
	if d, ok := BuiltinDType("float8_e4m3fn"); !ok || d.Size != 1 {
		t.Errorf("float8_e4m3fn (PyTorch's spelling) is not builtin: %v", d)
	}
}

// TestDTypesAreTheTable: the builtin dtypes are internal/dtype's table itself, the one package
// ops numbers its DType after, and a module's dtypes never write into it.
func TestDTypesAreTheTable(t *testing.T) {
	t.Cleanup(func() { SetDTypes() })
	if err := SetDTypes(DTypeSpec{Name: "mx9", Size: 2}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(DTypes[:builtin], dtype.Builtin[:]) {
		t.Errorf("builtin dtypes %v, the table has %v", DTypes[:builtin], dtype.Builtin)
	}
	if err := SetDTypes(); err != nil {
		t.Fatal(err)
	}
	if len(DTypes) != len(dtype.Builtin) || &DTypes[0] != &dtype.Builtin[0] {
		t.Errorf("without the module's dtypes, DTypes is not the table: %v", DTypes)
	}
}
