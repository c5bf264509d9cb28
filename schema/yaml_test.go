package schema

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestInt64 checks Int64 against yaml.Node.Decode on every YAML integer syntax, plain
// decimals (its fast path) and the others, in and out of range.
func TestInt64(t *testing.T) {
	for _, src := range []string{"0", "-0", "7", "-42", "+5", "017", "0o17", "0x1F", "-0x1F", "0b101", "1_000",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
		"!!int 12", "1.5", "abc", "[1]"} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		n := doc.Content[0]
		var want int64
		wantOK := n.Kind == yaml.ScalarNode && n.Tag == "!!int" && n.Decode(&want) == nil
		if got, ok := Int64(n); got != want || ok != wantOK {
			t.Errorf("Int64(%s) = %d, %t; Decode gives %d, %t", src, got, ok, want, wantOK)
		}
	}
}
