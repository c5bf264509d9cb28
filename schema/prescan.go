package schema

import (
	"fmt"
	"unicode/utf8"
)

// MaxNesting is the deepest nesting of collections ParseDocument lets reach the YAML parser:
// no manifest, profile or configuration is nested more than a few levels, and yaml.v3 spends
// gigabytes on a document of 100,000 nested [ before it gives up at 10,000 levels. Manifests
// check their own, tighter limit on the parsed tree.
const MaxNesting = 64

// prescan reads data as the YAML scanner will, without building anything, and returns the
// first thing the parser must never see, with its line and (1-based, in characters) column:
// a character YAML does not allow (a NUL, another control character, invalid UTF-8: yaml.v3
// says only "control characters are not allowed", with no position), or collections nested
// deeper than MaxNesting, counted from flow brackets and from block nesting (indentation, and
// compact "- - x" or "? x" indicators on one line). It errs towards counting too much only
// where a document would be far past any real one.
func prescan(data []byte) (line, col int, msg string) {
	var (
		stack     []int // the indentation of each open block collection
		flow      int   // open [ and {
		quote     byte  // the quote of the scalar being read, or 0
		lineNo    = 1
		colNo     = 0 // of the character being read
		indent    = 0 // of the current line's content
		atStart   = true
		prev      = byte('\n') // the previous character of the line, '\n' at its start
		tokStart  = true       // the next character starts a token
		blockAt   = -1         // a block scalar's parent indentation, while its lines are read
		pendBlock = false      // a | or > on this line: the lines after it are its text
	)
	if line, col, msg := checkChars(data); msg != "" {
		return line, col, msg
	}
	depth := func() int { return len(stack) + flow }
	deep := func() (int, int, string) {
		return lineNo, colNo, fmt.Sprintf("YAML nested deeper than %d levels: refused before parsing", MaxNesting)
	}
	for i := 0; i < len(data); {
		_, size := utf8.DecodeRune(data[i:])
		c := data[i]
		colNo++
		i += size
		if c == '\n' {
			if pendBlock {
				blockAt, pendBlock = indent, false
			}
			lineNo, colNo, atStart, prev, tokStart = lineNo+1, 0, true, '\n', true
			continue
		}
		if atStart && quote == 0 {
			if c == ' ' {
				continue
			}
			// The first character of the line's content.
			atStart = false
			indent = colNo - 1
			if c == '\r' || c == '#' {
				atStart = c == '\r'
				if c == '#' {
					i = skipLine(data, i)
				}
				continue
			}
			if blockAt >= 0 {
				if indent > blockAt {
					i = skipLine(data, i) // a line of the block scalar's text
					continue
				}
				blockAt = -1
			}
			if flow == 0 {
				for len(stack) > 0 && stack[len(stack)-1] > indent {
					stack = stack[:len(stack)-1]
				}
				if len(stack) == 0 || stack[len(stack)-1] < indent {
					stack = append(stack, indent)
				}
				if depth() > MaxNesting {
					return deep()
				}
			}
		}
		switch {
		case quote == '"':
			if c == '\\' && i < len(data) && data[i] != '\n' {
				i++ // the escaped character
				colNo++
			} else if c == '"' {
				quote = 0
			}
		case quote == '\'':
			if c == '\'' {
				if i < len(data) && data[i] == '\'' {
					i++ // '' is a quote inside the scalar
					colNo++
				} else {
					quote = 0
				}
			}
		case c == '#' && (prev == ' ' || prev == '\t'):
			i = skipLine(data, i)
		case tokStart && (c == '"' || c == '\''):
			quote = c
		case c == '[' || c == '{':
			if tokStart || flow > 0 {
				flow++
				if depth() > MaxNesting {
					return deep()
				}
			}
		case (c == ']' || c == '}') && flow > 0:
			flow--
		case flow == 0 && tokStart && (c == '-' || c == '?') && (i == len(data) || data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'):
			// A compact block collection on the line: "- - x" nests a list in a list.
			stack = append(stack, colNo)
			if depth() > MaxNesting {
				return deep()
			}
		case flow == 0 && tokStart && (c == '|' || c == '>'):
			pendBlock = true
		}
		prev = c
		tokStart = c == ' ' || c == '\t' || (flow > 0 && (c == '[' || c == '{' || c == ',' || c == ':'))
	}
	return 0, 0, ""
}

// checkChars returns the first character YAML does not allow in data, with its line and
// column: invalid UTF-8, a NUL, a C0 control but tab, line feed and carriage return, DEL, a
// C1 control but NEL, U+FFFE, U+FFFF.
func checkChars(data []byte) (line, col int, msg string) {
	line, col = 1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		col++
		switch {
		case r == utf8.RuneError && size == 1:
			return line, col, fmt.Sprintf("invalid UTF-8 (byte 0x%02x): a YAML file is UTF-8 text", data[i])
		case r == 0:
			return line, col, "a NUL byte (U+0000) is not allowed in YAML"
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f, r >= 0x80 && r <= 0x9f && r != 0x85, r == 0xfffe, r == 0xffff:
			return line, col, fmt.Sprintf("control character U+%04X is not allowed in YAML", r)
		case r == '\n':
			line, col = line+1, 0
		}
		i += size
	}
	return 0, 0, ""
}

// skipLine returns the index of the line break that ends the line data[i] is on, or len(data).
func skipLine(data []byte, i int) int {
	for i < len(data) && data[i] != '\n' {
		i++
	}
	return i
}
