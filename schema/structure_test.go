package schema

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// testSchema has the numeric and name keywords the manifest schema lacks, so the conversion
// rules that matter to other schemas (device profiles) are tested here, on Check itself.
const testSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["n"],
  "properties": {
    "n": {"type": "number", "minimum": 0},
    "tags": {"type": "array", "items": {"type": "string"}},
    "units": {"type": "object", "propertyNames": {"enum": ["a", "b", "c"]}}
  }
}`

func checkText(t *testing.T, text string) (any, *yaml.Node, []string) {
	t.Helper()
	s, err := Compile("test.schema.json", []byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	v, fs := s.Check("t.yaml", doc.Content[0])
	var lines []string
	for _, f := range fs.Sort() {
		lines = append(lines, f.String())
	}
	return v, doc.Content[0], lines
}

// TestCheck checks the findings of Check without Entries: fields from the root, no op, and
// a value the conversion refuses reported once (a NaN reaching "minimum" would crash the
// validator).
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"clean", "n: 1\ntags: [x]\nunits: {a: 1}\n", nil},
		{"nan under minimum", "n: .nan\n", []string{`t.yaml:1:4: n: ".nan" is not a finite number`}},
		{"timestamp where a number belongs", "n: 2024-01-01\n", []string{`t.yaml:1:4: n: YAML reads "2024-01-01" as timestamp; quote it if it is a string`}},
		{"beyond float64", "n: 1e309\n", []string{`t.yaml:1:4: n: must be a number, not 1e309, which is beyond the range of a number (about ±1.8e308)`}},
		{"quoted big number is a string", "n: '1e309'\n", []string{`t.yaml:1:4: n: must be a number, not a string (1e309)`}},
		{"minimum", "n: -1\n", []string{`t.yaml:1:4: n: must be >= 0 but found -1`}},
		{"name not in enum", "n: 1\nunits: {a: 1, d: 2}\n", []string{`t.yaml:2:15: units.d: must be one of "a", "b", "c", not "d"`}},
		{"duplicate key", "n: 1\nn: 2\n", []string{`t.yaml:2:1: duplicate key "n" (first defined at line 1)`}},
		{"alias", "n: 1\ntags: &t [x]\nunits: {a: *t}\n", []string{`t.yaml:3:12: units.a: YAML aliases (*t) are not allowed; write the value out`}},
		{"wrong type in a list", "n: 1\ntags: [x, 2]\n", []string{`t.yaml:2:11: tags[1]: must be a string, not an integer (2)`}},
		{"missing and unknown", "m: 1\n", []string{`t.yaml:1:1: missing required key "n"`, `t.yaml:1:1: unknown key "m" (known: n, tags, units)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, got := checkText(t, tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestCheckValue checks the converted value (integers stay integers) and that Lookup finds
// the nodes it came from.
func TestCheckValue(t *testing.T) {
	v, root, fs := checkText(t, "n: 3\ntags: [x, 'y']\nunits: {b: 1.5}\n")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	want := map[string]any{"n": int64(3), "tags": []any{"x", "y"}, "units": map[string]any{"b": 1.5}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("value = %#v, want %#v", v, want)
	}
	if n := Lookup(root, "tags", "1"); n == nil || n.Line != 2 || n.Column != 11 {
		t.Errorf("Lookup(tags, 1) = %v, want the node at 2:11", n)
	}
	if n := Lookup(root, "units", "b"); n == nil || n.Value != "1.5" {
		t.Errorf("Lookup(units, b) = %v", n)
	}
	for _, path := range [][]string{{"tags", "2"}, {"units", "a"}, {"n", "x"}} {
		if n := Lookup(root, path...); n != nil {
			t.Errorf("Lookup(%v) = %v, want nil", path, n)
		}
	}
}
