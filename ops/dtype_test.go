package ops

import (
	"testing"

	"github.com/ropgen/ropgen/internal/dtype"
)

// TestDTypeTable ties the DType constants to dtype.Builtin, which they follow by position:
// a dtype inserted, removed or reordered in either one without the other would silently
// change every constant's name and size (and every elem_bytes). Each constant is checked by
// name against its spelled-out dtype, and the two lists must have the same length.
func TestDTypeTable(t *testing.T) {
	want := map[DType]struct {
		name string
		size int
	}{
		Float32: {"float32", 4}, Float16: {"float16", 2}, BFloat16: {"bfloat16", 2},
		Float8E4M3: {"float8_e4m3", 1}, Float8E5M2: {"float8_e5m2", 1},
		Int64: {"int64", 8}, Int32: {"int32", 4}, Int8: {"int8", 1}, Bool: {"bool", 1},
		Float64: {"float64", 8}, Int16: {"int16", 2}, Uint8: {"uint8", 1}, Float8E4M3FN: {"float8_e4m3fn", 1},
	}
	if len(want) != len(dtype.Builtin) {
		t.Fatalf("package ops has %d DType constants, dtype.Builtin has %d dtypes", len(want), len(dtype.Builtin))
	}
	for d, w := range want {
		if d.String() != w.name || d.Size() != w.size {
			t.Errorf("DType %d is %s (%d bytes), want %s (%d bytes): the constants no longer follow dtype.Builtin",
				d, d, d.Size(), w.name, w.size)
		}
		if got, err := ParseDType(w.name); err != nil || got != d {
			t.Errorf("ParseDType(%q) = %v, %v; want DType %d", w.name, got, err, d)
		}
	}
	if Float8E4M3FN != DType(len(dtype.Builtin)) {
		t.Errorf("the last constant, Float8E4M3FN, is %d; dtype.Builtin has %d entries", Float8E4M3FN, len(dtype.Builtin))
	}
}
