package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/diag"
	"go.yaml.in/yaml/v3"
)

// Limits on a manifest file. A catalog file is tens of kilobytes; these stop a broken or
// hostile file long before it costs real time or memory.
const (
	MaxFileBytes = 4 << 20
	MaxDepth     = 32
)

// File is one parsed manifest file.
type File struct {
	Path string
	// Root is the top-level mapping: op names to entries.
	Root *yaml.Node
}

// Load parses and decodes the manifest files at paths (files, or directories whose *.yaml
// files are read in name order) into a catalog. It reports every finding it can: a file that
// does not parse contributes its syntax error and nothing else, an op whose entry is malformed
// contributes its errors and is left out of the catalog.
func Load(paths ...string) (*Catalog, diag.Findings) {
	files, fs := ParseFiles(paths...)
	cat, dfs := Decode(files)
	return cat, append(fs, dfs...).Sort()
}

// ParseFiles reads and parses the manifest files at paths; see Load.
func ParseFiles(paths ...string) ([]*File, diag.Findings) {
	var fs diag.Findings
	var files []*File
	for _, name := range ExpandPaths(paths, &fs) {
		data, err := os.ReadFile(name)
		if err != nil {
			fs = append(fs, diag.Finding{Pos: diag.Pos{File: name}, Msg: err.Error()})
			continue
		}
		f, pfs := Parse(name, data)
		fs = append(fs, pfs...)
		if f != nil {
			files = append(files, f)
		}
	}
	return files, fs
}

// ExpandPaths turns directories into their *.yaml files (sorted); plain files pass through.
func ExpandPaths(paths []string, fs *diag.Findings) []string {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			*fs = append(*fs, diag.Finding{Pos: diag.Pos{File: p}, Msg: err.Error()})
			continue
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
		if len(matches) == 0 {
			*fs = append(*fs, diag.Finding{Pos: diag.Pos{File: p}, Msg: "no *.yaml manifest files in directory"})
		}
		slices.Sort(matches)
		out = append(out, matches...)
	}
	return out
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse parses one manifest file. It returns nil and findings when the file is not a
// well-formed manifest document: not YAML, empty, not a mapping, too large, too deep, or
// using anchors, aliases, tags other than the plain ones, or duplicate keys.
func Parse(name string, data []byte) (*File, diag.Findings) {
	root, fs := ParseDocument(name, data, MaxFileBytes, "manifest")
	if len(fs) > 0 {
		return nil, fs
	}
	if root.Kind != yaml.MappingNode {
		return nil, diag.Findings{{Pos: diag.Pos{File: name, Line: root.Line, Col: root.Column},
			Msg: "a manifest file must be a mapping from op names to entries, not " + KindName(root)}}
	}
	if fs := checkTree(name, root); len(fs) > 0 {
		return nil, fs
	}
	return &File{Path: name, Root: root}, nil
}

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

// treeChecker rejects what a manifest never needs and a hostile file uses: anchors and
// aliases (the "billion laughs" blow-up), custom tags, excessive nesting, and duplicate keys,
// which YAML's node API would otherwise let through silently. Anchors and aliases are
// reported once per file, at the first one, with a count: a blow-up file has hundreds.
type treeChecker struct {
	name             string
	fs               diag.Findings
	anchors, aliases []diag.Finding
}

func checkTree(name string, root *yaml.Node) diag.Findings {
	c := &treeChecker{name: name}
	c.walk(root, 0)
	for _, group := range [][]diag.Finding{c.anchors, c.aliases} {
		if len(group) == 0 {
			continue
		}
		first := group[0]
		if n := len(group) - 1; n > 0 {
			first.Msg += fmt.Sprintf(" (%d more in this file)", n)
		}
		c.fs = append(c.fs, first)
	}
	return c.fs
}

func (c *treeChecker) walk(n *yaml.Node, depth int) {
	pos := diag.Pos{File: c.name, Line: n.Line, Col: n.Column}
	switch {
	case depth > MaxDepth:
		c.fs = append(c.fs, diag.Finding{Pos: pos, Msg: fmt.Sprintf("YAML nested deeper than %d levels", MaxDepth)})
		return
	case n.Kind == yaml.AliasNode:
		c.aliases = append(c.aliases, diag.Finding{Pos: pos, Msg: "YAML aliases (*" + n.Value + ") are not allowed in manifests; write the value out"})
		return
	case n.Anchor != "":
		c.anchors = append(c.anchors, diag.Finding{Pos: pos, Msg: "YAML anchors (&" + n.Anchor + ") are not allowed in manifests"})
	case n.Kind == yaml.ScalarNode && n.Style&yaml.TaggedStyle != 0:
		c.fs = append(c.fs, diag.Finding{Pos: pos, Msg: "YAML tags (" + n.Tag + ") are not allowed in manifests"})
	}
	if n.Kind == yaml.MappingNode {
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if prev, ok := seen[k.Value]; ok && k.Kind == yaml.ScalarNode {
				c.fs = append(c.fs, diag.Finding{Pos: diag.Pos{File: c.name, Line: k.Line, Col: k.Column},
					Msg: fmt.Sprintf("duplicate key %q (first defined at line %d)", k.Value, prev.Line)})
			} else {
				seen[k.Value] = k
			}
		}
	}
	for _, child := range n.Content {
		c.walk(child, depth+1)
	}
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

// ModuleRoot is the nearest directory holding go.mod, from the working directory up: where
// the catalog's default paths (manifest/, ops/, perf/formulas/) are resolved.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod found above the working directory")
		}
		dir = parent
	}
}
