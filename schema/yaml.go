package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ropgen/ropgen/diag"
)

// ParseDocument parses a YAML file that must hold exactly one non-empty document of at most
// limit bytes, and returns the document's root node. kind names the file in findings
// ("manifest", "profile"). Manifests and device profiles share it.
func ParseDocument(name string, data []byte, limit int, kind string) (*yaml.Node, diag.Findings) {
	emptyMsg := "file is empty: a " + kind + " file holds a YAML mapping"
	at := func(line, col int, format string, args ...any) diag.Findings {
		return diag.Findings{{Pos: diag.Pos{File: name, Line: line, Col: col}, Msg: fmt.Sprintf(format, args...)}}
	}
	if len(data) > limit {
		return nil, at(1, 1, "file is %.1f MiB; a %s file may be at most %d MiB", float64(len(data))/(1<<20), kind, limit>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, at(1, 1, "%s", emptyMsg)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err == io.EOF { // only comments
		return nil, at(1, 1, "%s", emptyMsg)
	} else if err != nil {
		return nil, yamlError(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, at(extra.Line, extra.Column, "a %s file holds one YAML document; found a second one", kind)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, at(1, 1, "%s", emptyMsg)
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, at(root.Line, root.Column, "%s", emptyMsg)
	}
	return root, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlError(name string, err error) diag.Findings {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return diag.Findings{{Pos: diag.Pos{File: name, Line: line}, Msg: "YAML syntax: " + m[2]}}
	}
	return diag.Findings{{Pos: diag.Pos{File: name}, Msg: "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")}}
}

// KindName names a node's kind for error messages.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		}
		return "a scalar"
	}
	return "an alias"
}

// Int64 decodes an integer scalar (tag !!int), in any YAML integer syntax, as
// yaml.Node.Decode into an int64 does. A plain decimal, nearly every integer in a manifest,
// skips Decode, which builds a decoder on each call; YAML reads it as strconv does in base 10.
func Int64(n *yaml.Node) (int64, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, false
	}
	if plainDecimal(n.Value) {
		if v, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			return v, true
		}
	}
	var v int64
	return v, n.Decode(&v) == nil
}

// plainDecimal reports whether s is 0 or a decimal without leading zeros, signed or not:
// text on which YAML's base-prefixed reading (0x1F, 0o17, 017, 1_000) agrees with base 10.
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "0" {
		return true
	}
	if s == "" || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
