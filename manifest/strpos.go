package manifest

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/ropgen/ropgen/diag"
	"go.yaml.in/yaml/v3"
)

// At returns the file position of byte offset off within the string's value, for any YAML
// scalar style: plain or quoted, on one line or folded over several, literal (|) or folded
// (>) blocks, escapes included. It aligns the value with the scalar's source text: each
// non-blank byte of the value is found, in order, in the source, past the indentation,
// line breaks, quotes and escapes that YAML removes. Columns count bytes from 1, as Go
// tools count them (YAML's own columns count characters). Without the source (a Str built
// by hand), it assumes a single-line scalar.
func (s Str) At(off int) diag.Pos {
	p := s.Pos
	if p.Line == 0 {
		return p
	}
	quoted := s.style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	if s.src == nil {
		if quoted {
			p.Col++
		}
		p.Col += off
		return p
	}
	i, ok := s.src.offset(p.Line, p.Col)
	if !ok {
		return p
	}
	src := s.src.b
	switch {
	case s.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		nl := bytes.IndexByte(src[i:], '\n') // the content starts on the line after | or >
		if nl < 0 {
			return p
		}
		i += nl + 1
	case quoted:
		i++
	}
	double := s.style&yaml.DoubleQuotedStyle != 0
	single := s.style&yaml.SingleQuotedStyle != 0
	off = min(max(off, 0), len(s.Value))
	for k := 0; k <= off && k < len(s.Value); k++ {
		c := s.Value[k]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue // folded, indented or escaped: not a byte to find
		}
		for {
			if i >= len(src) {
				return s.Pos // not found: a value YAML built otherwise; the scalar's start
			}
			b := src[i]
			if double && b == '\\' && i+1 < len(src) {
				n, ch := escape(src[i+1:])
				if ch == c || ch == 0 { // the escape is the byte (or one we do not decode)
					break
				}
				i += n + 1
				continue
			}
			if b == c {
				break
			}
			i++
		}
		if k == off {
			break
		}
		if double && src[i] == '\\' {
			n, _ := escape(src[i+1:])
			i += n + 1
		} else if single && c == '\'' {
			i += 2 // '' is one quote
		} else {
			i++
		}
	}
	return s.src.pos(s.Pos.File, i)
}

// escape decodes the double-quoted escape after a backslash: its length and the byte it
// stands for (0 for one that is not a single printable byte: \x, \u, \U, a line
// continuation stands for nothing, a ' ' for ' ').
func escape(b []byte) (n int, ch byte) {
	if len(b) == 0 {
		return 0, 0
	}
	switch b[0] {
	case 'n':
		return 1, '\n'
	case 't':
		return 1, '\t'
	case 'r':
		return 1, '\r'
	case '\n':
		return 1, ' '
	case 'x':
		return min(3, len(b)), 0
	case 'u':
		return min(5, len(b)), 0
	case 'U':
		return min(9, len(b)), 0
	}
	return 1, b[0]
}

// source is a manifest file's bytes with the offset of each line's start, built once per
// file, so that a position inside a scalar costs a binary search, not a scan from the
// file's start (which made positions quadratic in the file's size).
type source struct {
	b      []byte
	starts []int // starts[l-1] is the offset of line l
}

func newSource(b []byte) *source {
	starts := []int{0}
	for i := 0; ; {
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
		starts = append(starts, i)
	}
	return &source{b: b, starts: starts}
}

// offset converts YAML's 1-based line and character column to a byte offset.
func (s *source) offset(line, col int) (int, bool) {
	if line < 1 || line > len(s.starts) {
		return 0, false
	}
	i := s.starts[line-1]
	for c := 1; c < col; c++ {
		if i >= len(s.b) || s.b[i] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(s.b[i:])
		i += size
	}
	return i, true
}

// pos is the position of byte offset i: its line, and its byte column (bytePos, by the
// index).
func (s *source) pos(file string, i int) diag.Pos {
	i = min(i, len(s.b))
	line, found := slices.BinarySearch(s.starts, i)
	if found {
		line++ // i starts line line+1; otherwise it lies inside line `line`
	}
	return diag.Pos{File: file, Line: line, Col: i - s.starts[line-1] + 1}
}
