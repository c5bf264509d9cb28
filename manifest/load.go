package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/schema"
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
	// Src is the file's bytes, for positions inside scalars (Str.At).
	Src []byte
	src *source // Src indexed by line, shared by every Str of the file
}

// source returns f's bytes indexed by line: the one Parse built, or, for a File built by
// hand, a new one.
func (f *File) source() *source {
	if f.src == nil && f.Src != nil {
		return newSource(f.Src)
	}
	return f.src
}

// parseFile reads (within MaxFileBytes, a regular file only) and parses one manifest file.
func parseFile(name string) (*File, diag.Findings) {
	data, fs := schema.ReadFile(name, MaxFileBytes, "manifest")
	if len(fs) > 0 {
		return nil, fs
	}
	return Parse(name, data)
}

// ExpandPaths turns directories into their *.yaml entries (in name order); plain files pass
// through. A file named twice, by two spellings (a.yaml and ./a.yaml) or as a path and
// through its directory, is listed once, as first named. A directory that cannot be read is
// a finding with the reason (permission denied), not an empty directory. An entry that is
// not a regular file (a directory named x.yaml, a FIFO) stays listed: reading it refuses it.
func ExpandPaths(paths []string, fs *diag.Findings) []string {
	var out []string
	var seen []os.FileInfo
	add := func(name string, st os.FileInfo) {
		for _, prev := range seen {
			if os.SameFile(prev, st) {
				return
			}
		}
		seen = append(seen, st)
		out = append(out, name)
	}
	fail := func(name string, err error) {
		*fs = append(*fs, diag.Finding{Pos: diag.Pos{File: name}, Msg: err.Error()})
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			fail(p, err)
			continue
		}
		if !st.IsDir() {
			add(p, st)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			fail(p, err)
			continue
		}
		n := 0
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".yaml") {
				continue
			}
			name := filepath.Join(p, e.Name())
			n++
			if est, err := os.Stat(name); err != nil {
				fail(name, err)
			} else {
				add(name, est)
			}
		}
		if n == 0 {
			*fs = append(*fs, diag.Finding{Pos: diag.Pos{File: p}, Msg: "no *.yaml manifest files in directory"})
		}
	}
	return out
}

// Parse parses one manifest file. It returns nil and findings when the file is not a
// well-formed manifest document: not YAML, empty, not a mapping, too large, too deep, or
// using anchors, aliases, tags other than the plain ones, or duplicate keys.
func Parse(name string, data []byte) (*File, diag.Findings) {
	root, fs := schema.ParseDocument(name, data, MaxFileBytes, "manifest")
	if len(fs) > 0 {
		return nil, fs
	}
	if root.Kind != yaml.MappingNode {
		return nil, diag.Findings{{Pos: diag.Pos{File: name, Line: root.Line, Col: root.Column},
			Msg: "a manifest file must be a mapping from op names to entries, not " + schema.KindName(root)}}
	}
	if fs := checkTree(name, root); len(fs) > 0 {
		return nil, fs
	}
	return &File{Path: name, Root: root, Src: data, src: newSource(data)}, nil
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
	case n.Style&yaml.TaggedStyle != 0: // on a scalar, a mapping or a list alike
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
