// Package diag holds the positions and findings every ropgen package reports problems with, in
// go vet style (file:line:col: op: field: message). It depends on nothing of ropgen's.
package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in an input file (a manifest, a profile, a record file). Line and Col are 1-based; zero means unknown.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Finding is one problem found in an input, reported in go vet style:
// manifest/norm.yaml:41:12: RMSNormFwd: roofline.flops: undefined: N
type Finding struct {
	Pos   Pos    `json:"pos"`
	Op    string `json:"op,omitempty"`
	Field string `json:"field,omitempty"`
	Msg   string `json:"msg"`
}

func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Pos.String())
	b.WriteString(": ")
	if f.Op != "" {
		b.WriteString(f.Op)
		b.WriteString(": ")
	}
	if f.Field != "" {
		b.WriteString(f.Field)
		b.WriteString(": ")
	}
	b.WriteString(f.Msg)
	return b.String()
}

// Findings is a list of findings; as an error it prints one finding per line.
type Findings []Finding

func (fs Findings) Error() string {
	lines := make([]string, len(fs))
	for i, f := range fs {
		lines[i] = f.String()
	}
	return strings.Join(lines, "\n")
}

// Sort orders findings by file, line, column, then text, and drops exact duplicates.
func (fs Findings) Sort() Findings {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.String(), b.String()),
		)
	})
	return slices.Compact(fs)
}

// Err returns fs as an error, or nil when there are no findings.
func (fs Findings) Err() error {
	if len(fs) == 0 {
		return nil
	}
	return fs
}
