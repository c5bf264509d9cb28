package record

import (
	"maps"
	"testing"
)

func TestDTypeLabelRoundTrip(t *testing.T) {
	inputs := []string{"a", "s"}
	// One row with two sets sharing the first input's dtype, another with a set of its own.
	fp8f32 := map[string]string{"a": "float8_e4m3", "s": "float32"}
	fp8bf16 := map[string]string{"a": "float8_e4m3", "s": "bfloat16"}
	bf16 := map[string]string{"a": "bfloat16", "s": "bfloat16"}
	row := []map[string]string{fp8f32, fp8bf16, bf16}
	for _, c := range []struct {
		set  map[string]string
		want string
	}{
		{fp8f32, "a=float8_e4m3,s=float32"},
		{fp8bf16, "a=float8_e4m3,s=bfloat16"},
		{bf16, "bfloat16"},
	} {
		got := DTypeLabel(inputs, c.set, row)
		if got != c.want {
			t.Errorf("DTypeLabel(%v) = %q, want %q", c.set, got, c.want)
		}
		back, err := ParseDType(got, "a")
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range back {
			if c.set[k] != v {
				t.Errorf("ParseDType(%q) = %v, does not select %v", got, back, c.set)
			}
		}
	}
	if got, _ := ParseDType("float32", "x"); !maps.Equal(got, map[string]string{"x": "float32"}) {
		t.Errorf("bare label: %v", got)
	}
	for _, bad := range []string{"a=", "=f32", "a=f32,,s=f32", "a=float16,a=bfloat16"} {
		if _, err := ParseDType(bad, "a"); err == nil {
			t.Errorf("ParseDType(%q): no error", bad)
		}
	}
}
