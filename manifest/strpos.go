package manifest

import (
	"bytes"
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
	i, ok := sourceOffset(s.src, p.Line, p.Col)
	if !ok {
		return p
	}
	switch {
	case s.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		nl := bytes.IndexByte(s.src[i:], '\n') // the content starts on the line after | or >
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
			if i >= len(s.src) {
				return s.Pos // not found: a value YAML built otherwise; the scalar's start
			}
			b := s.src[i]
			if double && b == '\\' && i+1 < len(s.src) {
				n, ch := escape(s.src[i+1:])
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
		if double && s.src[i] == '\\' {
			n, _ := escape(s.src[i+1:])
			i += n + 1
		} else if single && c == '\'' {
			i += 2 // '' is one quote
		} else {
			i++
		}
	}
	return bytePos(s.Pos.File, s.src, i)
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

// sourceOffset converts YAML's 1-based line and character column to a byte offset.
func sourceOffset(src []byte, line, col int) (int, bool) {
	i := 0
	for l := 1; l < line; l++ {
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 {
			return 0, false
		}
		i += nl + 1
	}
	for c := 1; c < col; c++ {
		if i >= len(src) || src[i] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(src[i:])
		i += size
	}
	return i, true
}

// bytePos is the position of byte offset i: its line, and its byte column.
func bytePos(file string, src []byte, i int) diag.Pos {
	i = min(i, len(src))
	line := 1 + bytes.Count(src[:i], []byte{'\n'})
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	return diag.Pos{File: file, Line: line, Col: i - start + 1}
}
