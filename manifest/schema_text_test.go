package manifest

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSchemaDescribesEveryField: every property, definition and list item of the manifest
// schema has a description of its own or through its $ref, so an editor's hover says what a
// field is for, and no description reads like an implementation note.
func TestSchemaDescribesEveryField(t *testing.T) {
	var s map[string]any
	data, err := os.ReadFile("manifest.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	defs := s["$defs"].(map[string]any)
	described := func(v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["description"]; ok {
			return true
		}
		ref, _ := m["$ref"].(string)
		d, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		_, has := d["description"]
		return ok && has
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if d, ok := m["description"].(string); ok {
			for _, bad := range []string{"TrimSpace", "the loader", "the schema and"} {
				if strings.Contains(d, bad) {
					t.Errorf("%s: description reads like an implementation note: %q", path, d)
				}
			}
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for k, p := range props {
				if !described(p) {
					t.Errorf("%s.%s has no description", path, k)
				}
				walk(path+"."+k, p)
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if it, ok := m[k].(map[string]any); ok {
				if k == "items" && !described(it) {
					t.Errorf("%s[] has no description", path)
				}
				walk(path+"."+k, it)
			}
		}
	}
	for name, d := range defs {
		if name != "notWithFunc" && !described(d) {
			t.Errorf("$defs.%s has no description", name)
		}
		walk(name, d)
	}
}

// TestSchemaSuggestions: the completion lists of dtype names and param types in
// the schema are the model's tables, so an editor never suggests what validate refuses.
func TestSchemaSuggestions(t *testing.T) {
	var s struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	data, _ := os.ReadFile("manifest.schema.json")
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	enum := func(def string, path ...string) []string {
		var v any
		json.Unmarshal(s.Defs[def], &v)
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		var out []string
		for _, b := range v.(map[string]any)["anyOf"].([]any) {
			if e, ok := b.(map[string]any)["enum"].([]any); ok {
				for _, x := range e {
					out = append(out, x.(string))
				}
			}
		}
		return out
	}
	var names []string
	for _, d := range DTypes {
		names = append(names, d.Name)
	}
	if got := enum("dtypeName"); !slices.Equal(got, names) {
		t.Errorf("dtypeName suggests %v, the model has %v", got, names)
	}
	if got := enum("param", "properties", "type"); !slices.Equal(got, ParamTypes) {
		t.Errorf("param type suggests %v, the model has %v", got, ParamTypes)
	}
	for _, p := range [][]string{{"input", "properties", "dtype"}, {"output", "properties", "dtype"}} {
		got := enum(p[0], p[1:]...)
		if !slices.Equal(got[:len(names)], names) {
			t.Errorf("%s suggests %v, want the dtype names first", strings.Join(p, "."), got)
		}
		for _, u := range got[len(names):] {
			for tok := range strings.SplitSeq(u, "|") {
				if tok = strings.TrimSpace(tok); !slices.Contains(names, tok) && !strings.HasPrefix(tok, "same_as(") {
					t.Errorf("%s suggests %q, which has %q", p[0], u, tok)
				}
			}
		}
	}
}
