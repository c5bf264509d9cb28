package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	goccy "github.com/goccy/go-yaml"
	goccyparser "github.com/goccy/go-yaml/parser"
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
		return nil, tooLarge(name, int64(len(data)), int64(limit), kind)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, at(1, 1, "%s", emptyMsg)
	}
	if line, col, msg := prescan(data); msg != "" {
		return nil, at(line, col, "%s", msg)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err == io.EOF { // only comments
		return nil, at(1, 1, "%s", emptyMsg)
	} else if err != nil {
		return nil, yamlError(name, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, at(extra.Line, extra.Column, "a %s file holds one YAML document; found a second one", kind)
	} else if err != io.EOF { // a broken document after --- or ... is still part of the file
		return nil, yamlError(name, data, err)
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

// ReadFile reads the file at name for ParseDocument: a regular file of at most limit bytes,
// read through the limit, so a huge file or a device (/dev/zero) never loads whole and a FIFO
// never blocks the reader. kind names the file in findings ("manifest", "profile").
func ReadFile(name string, limit int64, kind string) ([]byte, diag.Findings) {
	fail := func(msg string) ([]byte, diag.Findings) {
		return nil, diag.Findings{{Pos: diag.Pos{File: name}, Msg: msg}}
	}
	st, err := os.Stat(name)
	if err != nil {
		return fail(err.Error())
	}
	if !st.Mode().IsRegular() {
		return fail(fmt.Sprintf("not a regular file (%s): a %s file is a plain file", fileKind(st.Mode()), kind))
	}
	if st.Size() > limit {
		return nil, tooLarge(name, st.Size(), limit, kind)
	}
	f, err := os.Open(name)
	if err != nil {
		return fail(err.Error())
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return fail(err.Error())
	}
	if int64(len(data)) > limit { // it grew since the Stat
		return nil, tooLarge(name, int64(len(data)), limit, kind)
	}
	return data, nil
}

func tooLarge(name string, size, limit int64, kind string) diag.Findings {
	return diag.Findings{{Pos: diag.Pos{File: name, Line: 1, Col: 1},
		Msg: fmt.Sprintf("file is %.1f MiB; a %s file may be at most %d MiB", float64(size)/(1<<20), kind, limit>>20)}}
}

// fileKind names what a non-regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are yaml.v3's parser-level problems, by construct they are about (empty:
// none). yaml.v3 prints a parser error's line 0-based, and it is the line of the construct
// the problem is in (its context), not of the problem; a scanner error's line is 1-based.
var parserProblems = map[string]string{
	"did not find expected ',' or ']'":       "[ list",
	"did not find expected ',' or '}'":       "{ mapping",
	"did not find expected '-' indicator":    "list",
	"did not find expected key":              "mapping",
	"did not find expected node content":     "",
	"did not find expected <document start>": "",
	"did not find expected <stream-start>":   "",
	"found duplicate %TAG directive":         "",
	"found duplicate %YAML directive":        "",
	"found incompatible YAML document":       "",
	"found undefined tag handle":             "",
}

// yamlError turns yaml.v3's syntax error in data into a finding at the problem's true line
// and column. yaml.v3 gives a line only, and for parser errors the (0-based) line of the
// enclosing construct; the position of the offending token comes from a second parser
// (github.com/goccy/go-yaml), asked only once yaml.v3 has refused the document. The message
// stays yaml.v3's, and the construct's line is added when it is another line.
func yamlError(name string, data []byte, err error) diag.Findings {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	construct, isParser := parserProblems[msg]
	if isParser {
		line++ // 0-based; no line at all means the first
	}
	pos := diag.Pos{File: name, Line: line}
	// A scanner error's line is yaml.v3's own and exact: the other parser may only add the
	// column, when it agrees on the line. One is not: a tab in the indentation of a plain
	// scalar's next line is reported at the scalar's line, so the tab is looked up.
	if l, c, ok := indentTab(data, line); ok && strings.Contains(msg, "tab character") {
		pos.Line, pos.Col = l, c
	} else if l, c, ok := locateSyntaxError(data); ok && (isParser || line == 0 || l == line) {
		pos.Line, pos.Col = l, c
	}
	msg = "YAML syntax: " + msg
	if isParser && construct != "" && line != 0 && line < pos.Line {
		msg += fmt.Sprintf(" (in the %s that starts at line %d)", construct, line)
	}
	return diag.Findings{{Pos: pos, Msg: msg}}
}

// indentTab returns the line and column of the first tab in the indentation of a line at
// or after line from.
func indentTab(data []byte, from int) (line, col int, ok bool) {
	for n, l := range bytes.Split(data, []byte("\n")) {
		if n+1 < from {
			continue
		}
		for i, c := range l {
			if c == '\t' {
				return n + 1, i + 1, true
			}
			if c != ' ' {
				break
			}
		}
	}
	return 0, 0, false
}

// locateSyntaxError returns where goccy/go-yaml's parser finds data malformed, if it does.
func locateSyntaxError(data []byte) (line, col int, ok bool) {
	defer func() {
		if recover() != nil { // a position oracle only: its failure must not be ours
			line, col, ok = 0, 0, false
		}
	}()
	_, err := goccyparser.ParseBytes(data, 0)
	var se *goccy.SyntaxError
	if !errors.As(err, &se) || se.Token == nil || se.Token.Position == nil || se.Token.Position.Line < 1 {
		return 0, 0, false
	}
	return se.Token.Position.Line, max(se.Token.Position.Column, 1), true
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
