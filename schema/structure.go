package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"ropgen/manifest"
)

// checkFile validates every op entry of f against the manifest schema. It returns the
// findings, each at the YAML position of the value (or key) it is about, and the names of the
// entries that have any.
func checkFile(f *manifest.File) (manifest.Findings, map[string]bool) {
	c := &converter{file: f.Path}
	doc := map[string]any{}
	manifest.EachEntry(f, func(key, val *yaml.Node) {
		c.op = key.Value
		if v, ok := c.key(key, ""); ok {
			doc[v] = c.value(val, "")
		}
	})
	fs := c.fs
	var verr *jsonschema.ValidationError
	if err := loadSchema().schema.Validate(doc); errors.As(err, &verr) {
		fs = append(fs, loadSchema().findings(f, verr)...)
	} else if err != nil {
		// Not a validation error: the converter produced a value the validator cannot
		// handle. Report it rather than let the entry through unchecked.
		fs = append(fs, manifest.Finding{Pos: manifest.Pos{File: f.Path, Line: f.Root.Line, Col: f.Root.Column}, Msg: "schema check failed: " + err.Error()})
	}
	bad := map[string]bool{}
	for _, x := range fs {
		bad[x.Op] = true
	}
	return fs, bad
}

// converter turns YAML nodes into the JSON values the schema validates: what encoding/json
// would decode from the same document. Values JSON has no form for are findings.
type converter struct {
	file string
	op   string
	fs   manifest.Findings
}

func (c *converter) errorf(n *yaml.Node, field, format string, args ...any) {
	c.fs = append(c.fs, manifest.Finding{Pos: manifest.Pos{File: c.file, Line: n.Line, Col: n.Column},
		Op: c.op, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (c *converter) value(n *yaml.Node, field string) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if name, ok := c.key(k, field); ok {
				m[name] = c.value(v, join(field, name))
			}
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, e := range n.Content {
			l[i] = c.value(e, fmt.Sprintf("%s[%d]", field, i))
		}
		return l
	case yaml.ScalarNode:
		return c.scalar(n, field)
	}
	// manifest.Parse refuses aliases, the only other node kind below a document.
	c.errorf(n, field, "unexpected YAML %s", manifest.KindName(n))
	return nil
}

// key returns a mapping key as a JSON object key. Keys are names: a list or mapping used as a
// key, or a YAML merge key, has no place in a manifest.
func (c *converter) key(k *yaml.Node, field string) (string, bool) {
	switch {
	case k.Kind != yaml.ScalarNode:
		c.errorf(k, field, "a key must be a name, not %s", manifest.KindName(k))
	case k.Tag == "!!merge":
		c.errorf(k, field, "YAML merge keys (<<) are not allowed in manifests")
	default:
		return k.Value, true
	}
	return "", false
}

func (c *converter) scalar(n *yaml.Node, field string) any {
	switch n.Tag {
	case "!!str":
		return n.Value
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
		// An integer beyond 64 bits: the schema checks no integer's value, only its type.
		return json.Number(n.Value)
	case "!!float":
		// NaN and the infinities pass through: the schema has no keyword that compares numbers
		// (minimum, enum of numbers, integer), the only ones that would trip on them.
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	}
	// A timestamp, say: reported here, and passed on as the string it looks like so that
	// the schema does not report it a second time where a string belongs.
	c.errorf(n, field, "YAML reads %q as %s; quote it if it is a string", n.Value, strings.TrimPrefix(n.ShortTag(), "!!"))
	return n.Value
}

func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}

// findings turns a validation error tree into findings: one per failed leaf keyword, or per
// key for required and additionalProperties.
func (s *compiled) findings(f *manifest.File, verr *jsonschema.ValidationError) manifest.Findings {
	var fs manifest.Findings
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			fs = append(fs, s.leaf(f, e)...)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(verr)
	return fs
}

func (s *compiled) leaf(f *manifest.File, e *jsonschema.ValidationError) manifest.Findings {
	at := locate(f, e.InstanceLocation)
	kwPath := pointer(e.KeywordLocation)
	kw := ""
	if len(kwPath) > 0 {
		kw = kwPath[len(kwPath)-1]
	}
	obj, custom := s.keywordSchema(kwPath)
	finding := func(n *yaml.Node, field, msg string) manifest.Finding {
		return manifest.Finding{Pos: manifest.Pos{File: f.Path, Line: n.Line, Col: n.Column}, Op: at.op, Field: field, Msg: msg}
	}
	// Errors about a name (propertyNames) or a key that must go (not) point at the key.
	keyOrNode := at.node
	if at.key != nil && (slices.Contains(kwPath, "propertyNames") || kw == "not") {
		keyOrNode = at.key
	}
	switch kw {
	case "type":
		got := manifest.KindName(at.node)
		if at.node.Kind == yaml.ScalarNode && at.node.Tag != "!!null" {
			got += fmt.Sprintf(" (%s)", at.node.Value)
		}
		return manifest.Findings{finding(at.node, at.field, fmt.Sprintf("must be %s, not %s", typeNames(obj["type"]), got))}
	case "required":
		var fs manifest.Findings
		pos := at.node
		if at.key != nil {
			pos = at.key
		}
		for _, r := range stringList(obj["required"]) {
			if mappingValue(at.node, r) == nil {
				msg := fmt.Sprintf("missing required key %q", r)
				if custom != "" {
					msg += " (" + custom + ")"
				}
				fs = append(fs, finding(pos, at.field, msg))
			}
		}
		return fs
	case "additionalProperties":
		props, _ := obj["properties"].(map[string]any)
		known := make([]string, 0, len(props))
		for k := range props {
			known = append(known, k)
		}
		slices.Sort(known)
		var fs manifest.Findings
		for i := 0; i+1 < len(at.node.Content); i += 2 {
			k := at.node.Content[i]
			if _, ok := props[k.Value]; !ok {
				fs = append(fs, finding(k, at.field, fmt.Sprintf("unknown key %q (known: %s)", k.Value, strings.Join(known, ", "))))
			}
		}
		return fs
	case "enum":
		var alts []string
		for _, v := range obj["enum"].([]any) {
			alts = append(alts, fmt.Sprintf("%q", v))
		}
		return manifest.Findings{finding(at.node, at.field, fmt.Sprintf("must be %s, not %q", strings.Join(alts, " or "), at.node.Value))}
	}
	msg := custom
	if msg == "" {
		msg = e.Message
	}
	return manifest.Findings{finding(keyOrNode, at.field, msg)}
}

// keywordSchema follows a keyword location (the path through the schema, $ref steps
// included) to the schema object holding the failed keyword. It also returns the
// errorMessage that applies: the one of that object or of an object that reached it through
// $ref, the outermost winning, so a use site can say more than the shared definition.
func (s *compiled) keywordSchema(path []string) (map[string]any, string) {
	type step struct {
		obj    map[string]any
		viaRef bool
	}
	stack := []step{{obj: s.raw}}
	var cur any = s.raw
	for _, tok := range path[:max(len(path)-1, 0)] {
		viaRef := false
		switch v := cur.(type) {
		case map[string]any:
			if tok == "$ref" {
				ref, _ := v["$ref"].(string)
				cur = s.resolveRef(ref)
				viaRef = true
			} else {
				cur = v[tok]
			}
		case []any:
			i, _ := strconv.Atoi(tok)
			if i >= 0 && i < len(v) {
				cur = v[i]
			} else {
				cur = nil
			}
		}
		if obj, ok := cur.(map[string]any); ok {
			stack = append(stack, step{obj: obj, viaRef: viaRef})
		}
	}
	obj := stack[len(stack)-1].obj
	msg := ""
	for i := len(stack) - 1; i >= 0; i-- {
		if m, ok := stack[i].obj["errorMessage"].(string); ok {
			msg = m
		}
		if !stack[i].viaRef {
			break
		}
	}
	return obj, msg
}

// resolveRef resolves a local reference such as "#/$defs/text".
func (s *compiled) resolveRef(ref string) any {
	var cur any = s.raw
	_, frag, _ := strings.Cut(ref, "#")
	for _, tok := range pointer(frag) {
		m, _ := cur.(map[string]any)
		cur = m[tok]
	}
	return cur
}

// pointer splits a JSON pointer as jsonschema/v5 writes it (each token escaped, then
// URL-path-escaped) into its tokens.
func pointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

// location is a JSON instance location resolved in the YAML tree.
type location struct {
	op    string
	field string     // the path below the op: signature.inputs.x, workloads[2].dtypes
	node  *yaml.Node // the value
	key   *yaml.Node // its key, when the value is in a mapping
}

// locate resolves a JSON pointer into the file's YAML tree. Every pointer the validator
// reports names a value converted from that tree, so each step finds its node.
func locate(f *manifest.File, ptr string) location {
	loc := location{node: f.Root}
	for i, tok := range pointer(ptr) {
		switch loc.node.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(loc.node.Content); j += 2 {
				if k := loc.node.Content[j]; k.Value == tok && k.Kind == yaml.ScalarNode {
					loc.key, loc.node = k, loc.node.Content[j+1]
					break
				}
			}
			if i == 0 {
				loc.op = tok
			} else {
				loc.field = join(loc.field, tok)
			}
		case yaml.SequenceNode:
			if n, err := strconv.Atoi(tok); err == nil && n >= 0 && n < len(loc.node.Content) {
				loc.key, loc.node = nil, loc.node.Content[n]
			}
			loc.field += "[" + tok + "]"
		}
	}
	return loc
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// typeNames names JSON Schema types as manifest authors know them.
func typeNames(t any) string {
	names := map[string]string{"string": "a string", "object": "a mapping", "array": "a list",
		"boolean": "true or false", "integer": "an integer", "number": "a number", "null": "null"}
	var out []string
	for _, s := range stringList(t) {
		out = append(out, names[s])
	}
	return strings.Join(out, " or ")
}

// stringList reads a schema keyword that is a string or a list of strings.
func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
