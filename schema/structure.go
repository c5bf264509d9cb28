package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/ropgen/ropgen/diag"
)

// Compiled is a JSON Schema ready to check YAML files: the manifest schema, or any other
// (device profiles use it). It keeps the schema's JSON to look up the keywords (type,
// required, properties, enum, errorMessage) a validation error refers to, so that findings
// speak the author's language ("unknown key", "must be a string, not a list") rather than
// the validator's.
type Compiled struct {
	// Entries says that a document's top-level keys name entries, as op names do in a
	// manifest: a finding below one names it as its Op, and its Field is the path below it.
	Entries bool

	schema *jsonschema.Schema
	raw    map[string]any
}

// Compile compiles the JSON Schema data (draft 2020-12 unless its $schema says otherwise).
// url names it in errors; its $refs must be local ("#/$defs/...").
func Compile(url string, data []byte) (*Compiled, error) {
	var raw map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // numbers reach the validator as written
	if err := d.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	raw = inlineRefs(raw, raw, nil).(map[string]any)
	flat, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(url, bytes.NewReader(flat)); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Compiled{schema: s, raw: raw}, nil
}

// inlineRefs returns v with each local $ref replaced by a copy of the schema it names, when
// its siblings are annotations only: the sibling annotations win, as keywordSchema lets a use
// site's errorMessage win through a $ref. jsonschema/v5 validates a value once for a $ref and
// again for its target, each time with a fresh set of the object's keys; inlined, the
// manifest schema costs a third fewer allocations and findings stay the same. A $ref stays
// when its target is itself being inlined (a cycle), is not an object, or is not local;
// open holds the $refs being inlined.
func inlineRefs(v any, root map[string]any, open []string) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = inlineRefs(e, root, open)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = inlineRefs(e, root, open)
		}
		ref, ok := v["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") || slices.Contains(open, ref) {
			return out
		}
		for k := range v {
			if !annotations[k] {
				return out
			}
		}
		target, ok := resolveRef(root, ref).(map[string]any)
		if !ok {
			return out
		}
		merged := inlineRefs(target, root, append(open[:len(open):len(open)], ref)).(map[string]any)
		delete(out, "$ref")
		maps.Copy(merged, out)
		return merged
	}
	return v
}

// annotations are the keywords beside a $ref that inlineRefs may merge into its target.
var annotations = map[string]bool{"$ref": true, "$comment": true, "title": true, "description": true, "errorMessage": true}

// Check converts root, a YAML tree read from file, to the JSON value encoding/json would
// decode from the same document, and validates that against the schema. Every finding is at
// the file:line:col of the node it is about: YAML with no faithful JSON form (aliases,
// duplicate, merge and non-scalar keys, timestamps, non-finite numbers) and each failed leaf
// of the schema, one per missing or unknown key. A value refused by the conversion is not
// reported again by the schema. The value is only fit for use when there are no findings;
// integers in it are int64 or uint64, other numbers float64.
func (s *Compiled) Check(file string, root *yaml.Node) (any, diag.Findings) {
	c := &converter{file: file, refused: map[*yaml.Node]bool{}}
	var v any
	if s.Entries && root.Kind == yaml.MappingNode {
		v = c.mapping(root, true)
	} else {
		v = c.value(root)
	}
	err := s.schema.Validate(v)
	var verr *jsonschema.ValidationError
	switch {
	case errors.As(err, &verr):
		s.findings(c, root, verr)
	case err != nil:
		// Not a validation error: the converter produced a value the validator cannot
		// handle. Report it rather than let the document through unchecked.
		c.errorf(root, "schema check failed: %v", err)
	}
	return v, c.fs
}

// Lookup returns the node at path (mapping keys and list indices, as strings) below root, or
// nil when there is none: checks beyond the schema use it to place their findings.
func Lookup(root *yaml.Node, path ...string) *yaml.Node {
	n := root
	for _, tok := range path {
		if _, n = child(n, tok); n == nil {
			return nil
		}
	}
	return n
}

// child returns the node one path step names below n and, in a mapping, its key. It finds
// what the converter kept: the first of duplicate keys, never a merge key.
func child(n *yaml.Node, tok string) (key, val *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Tag != "!!merge" && k.Value == tok {
				return k, n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
			return nil, n.Content[i]
		}
	}
	return nil, nil
}

// converter turns YAML nodes into JSON values and collects the findings of one Check.
type converter struct {
	file    string
	op      string // the entry being converted, for a schema with Entries
	path    []step // the path below the entry or root to the value being converted
	fs      diag.Findings
	refused map[*yaml.Node]bool // nodes with a finding, which the schema must not report again
}

// step is one step of a converter's path: a mapping key, or a list index. The path is only
// spelled out for a finding: most documents have none.
type step struct {
	key   string
	index int // -1 for a key
}

// field spells out the path as findings name it: signature.inputs.x, workloads[2].dtypes.
func (c *converter) field() string {
	var b strings.Builder
	for _, s := range c.path {
		switch {
		case s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		case b.Len() > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	return b.String()
}

func (c *converter) errorf(n *yaml.Node, format string, args ...any) {
	c.refused[n] = true
	c.fs = append(c.fs, diag.Finding{Pos: diag.Pos{File: c.file, Line: n.Line, Col: n.Column},
		Op: c.op, Field: c.field(), Msg: fmt.Sprintf(format, args...)})
}

// at converts n, the value path step s leads to.
func (c *converter) at(s step, n *yaml.Node) any {
	c.path = append(c.path, s)
	v := c.value(n)
	c.path = c.path[:len(c.path)-1]
	return v
}

func (c *converter) value(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(n, false)
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, e := range n.Content {
			l[i] = c.at(step{index: i}, e)
		}
		return l
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	// An alias, the only other node kind below a document: JSON is a tree.
	c.errorf(n, "YAML aliases (*%s) are not allowed; write the value out", n.Value)
	return nil
}

// mapping converts a mapping; with entries, each key names the entry below it.
func (c *converter) mapping(n *yaml.Node, entries bool) map[string]any {
	m := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if entries {
			c.op = k.Value // a refused entry key is that entry's finding: it is not decoded
		}
		name, ok := c.key(k)
		if entries {
			c.op = ""
		}
		if !ok {
			continue
		}
		// The YAML node API keeps both; a JSON decoder would silently keep the last.
		if _, dup := m[name]; dup {
			prev, _ := child(n, name)
			c.errorf(k, "duplicate key %q (first defined at line %d)", name, prev.Line)
			continue
		}
		if entries {
			c.op = name
			m[name] = c.value(v)
			c.op = ""
		} else {
			m[name] = c.at(step{key: name, index: -1}, v)
		}
	}
	return m
}

// key returns a mapping key as a JSON object key. Keys are names: a list or mapping used as a
// key, or a YAML merge key, has no JSON form.
func (c *converter) key(k *yaml.Node) (string, bool) {
	switch {
	case k.Kind != yaml.ScalarNode:
		c.errorf(k, "a key must be a name, not %s", KindName(k))
	case k.Tag == "!!merge":
		c.errorf(k, "YAML merge keys (<<) are not allowed; write the keys out")
	default:
		return k.Value, true
	}
	return "", false
}

func (c *converter) scalar(n *yaml.Node) any {
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
		if i, ok := Int64(n); ok {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
		// Only an explicit !!int tag gets here: YAML reads a plain integer beyond 64 bits as
		// a float.
		c.errorf(n, "%q does not fit in 64 bits", n.Value)
		return nil
	case "!!float":
		// JSON has no NaN or infinities, and the validator cannot compare them: a schema's
		// minimum would let NaN through, or fail on it.
		var f float64
		if n.Decode(&f) == nil {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				c.errorf(n, "%q is not a finite number", n.Value)
				return nil
			}
			return f
		}
	}
	c.errorf(n, "YAML reads %q as %s; quote it if it is a string", n.Value, strings.TrimPrefix(n.ShortTag(), "!!"))
	return nil
}

func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}

// findings adds to c's findings one per failed leaf of a validation error tree (one per key
// for required and additionalProperties), leaving out the nodes c refused.
func (s *Compiled) findings(c *converter, root *yaml.Node, e *jsonschema.ValidationError) {
	for _, cause := range e.Causes {
		s.findings(c, root, cause)
	}
	if len(e.Causes) > 0 {
		return
	}
	at := s.locate(root, e.InstanceLocation)
	if !c.refused[at.node] {
		c.fs = append(c.fs, s.leaf(c, at, e)...)
	}
}

func (s *Compiled) leaf(c *converter, at location, e *jsonschema.ValidationError) diag.Findings {
	kwPath := pointer(e.KeywordLocation)
	kw := ""
	if len(kwPath) > 0 {
		kw = kwPath[len(kwPath)-1]
	}
	obj, custom := s.keywordSchema(kwPath)
	finding := func(n *yaml.Node, msg string) diag.Finding {
		return diag.Finding{Pos: diag.Pos{File: c.file, Line: n.Line, Col: n.Column}, Op: at.op, Field: at.field, Msg: msg}
	}
	// Errors about a name (propertyNames) or a key that must go (not) are about the key: the
	// instance the schema saw is the key's text.
	keyOrNode := at.node
	if at.key != nil && (slices.Contains(kwPath, "propertyNames") || kw == "not") {
		keyOrNode = at.key
	}
	switch kw {
	case "type":
		got := KindName(at.node)
		if at.node.Kind == yaml.ScalarNode && at.node.Tag != "!!null" {
			got += fmt.Sprintf(" (%s)", Excerpt(at.node.Value))
		}
		if outOfFloatRange(at.node) {
			// YAML reads a number beyond float64 (1e309) as a string; say so.
			got = fmt.Sprintf("%s, which is beyond the range of a number (about ±1.8e308)", at.node.Value)
		}
		return diag.Findings{finding(at.node, fmt.Sprintf("must be %s, not %s", typeNames(obj["type"]), got))}
	case "required":
		var fs diag.Findings
		pos := at.node
		if at.key != nil {
			pos = at.key
		}
		for _, r := range stringList(obj["required"]) {
			if _, v := child(at.node, r); v == nil {
				msg := fmt.Sprintf("missing required key %q", r)
				if custom != "" {
					msg += " (" + custom + ")"
				}
				fs = append(fs, finding(pos, msg))
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
		var fs diag.Findings
		for i := 0; i+1 < len(at.node.Content); i += 2 {
			k := at.node.Content[i]
			if _, ok := props[k.Value]; !ok && !c.refused[k] {
				fs = append(fs, finding(k, fmt.Sprintf("unknown key %q (known: %s)", k.Value, strings.Join(known, ", "))))
			}
		}
		return fs
	case "enum":
		var alts []string
		for _, v := range obj["enum"].([]any) {
			alts = append(alts, fmt.Sprintf("%q", v))
		}
		want := strings.Join(alts, " or ")
		if len(alts) > 2 {
			want = "one of " + strings.Join(alts, ", ")
		}
		return diag.Findings{finding(keyOrNode, fmt.Sprintf("must be %s, not %q", want, Excerpt(keyOrNode.Value)))}
	}
	msg := custom
	if msg == "" {
		msg = e.Message
	}
	return diag.Findings{finding(keyOrNode, msg)}
}

// keywordSchema follows a keyword location (the path through the schema, $ref steps
// included) to the schema object holding the failed keyword. It also returns the
// errorMessage that applies: the one of that object or of an object that reached it through
// $ref, the outermost winning, so a use site can say more than the shared definition.
func (s *Compiled) keywordSchema(path []string) (map[string]any, string) {
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
				cur = resolveRef(s.raw, ref)
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

// resolveRef resolves a local reference such as "#/$defs/text" in root.
func resolveRef(root map[string]any, ref string) any {
	var cur any = root
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
	op    string     // the entry, for a schema with Entries
	field string     // the path below the entry or root: signature.inputs.x, workloads[2].dtypes
	node  *yaml.Node // the value
	key   *yaml.Node // its key, when the value is in a mapping
}

// locate resolves a JSON pointer into the YAML tree below root. Every pointer the validator
// reports names a value converted from that tree, so each step finds its node; were one not
// to, the finding would stay at the deepest node found rather than be lost.
func (s *Compiled) locate(root *yaml.Node, ptr string) location {
	loc := location{node: root}
	for i, tok := range pointer(ptr) {
		inList := loc.node.Kind == yaml.SequenceNode
		key, val := child(loc.node, tok)
		if val == nil {
			break
		}
		loc.key, loc.node = key, val
		switch {
		case inList:
			loc.field += "[" + tok + "]"
		case i == 0 && s.Entries:
			loc.op = tok
		default:
			loc.field = join(loc.field, tok)
		}
	}
	return loc
}

// outOfFloatRange reports whether n is a plain scalar that is a number too large for a
// float64: YAML resolves it to a string.
func outOfFloatRange(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	_, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	return errors.Is(err, strconv.ErrRange)
}

// typeNames names JSON Schema types as authors of YAML files know them.
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

// maxExcerpt is the most runes of a value a finding quotes.
const maxExcerpt = 60

// Excerpt is s as a finding quotes a value from the file: its first line, at most maxExcerpt
// runes, with "..." where it was cut. A file that is not what it should be (a profile path
// that points at /etc/passwd, say) reads as one long string, and a finding must point at it,
// not print it.
func Excerpt(s string) string {
	line, _, cut := strings.Cut(s, "\n")
	if r := []rune(line); len(r) > maxExcerpt {
		line, cut = string(r[:maxExcerpt]), true
	}
	if cut {
		line += "..."
	}
	return line
}
