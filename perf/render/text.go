package render

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// writeAligned writes cells as columns two spaces apart, right-aligning where right says.
func writeAligned(bw *bufio.Writer, cells [][]string, right []bool) {
	writeColumns(bw, len(cells), func(i int, _ []string) []string { return cells[i] }, right)
}

// writeColumns is writeAligned over n rows that row makes on demand (into dst, which it may
// reuse), twice each: once for the column widths, once to write them. A table of a million
// rows is never held as cells: they would cost several times the rows themselves.
func writeColumns(bw *bufio.Writer, n int, row func(i int, dst []string) []string, right []bool) {
	width := make([]int, len(right))
	var buf []string
	for i := range n {
		buf = row(i, buf[:0])
		for j, c := range buf {
			width[j] = max(width[j], utf8.RuneCountInString(plainText(c)))
		}
	}
	var line []byte
	for i := range n {
		buf = row(i, buf[:0])
		line = line[:0]
		for j, c := range buf {
			c = plainText(c)
			if j > 0 {
				line = append(line, "  "...)
			}
			pad := width[j] - utf8.RuneCountInString(c)
			if !right[j] {
				line = append(line, c...)
			}
			for range pad {
				line = append(line, ' ')
			}
			if right[j] {
				line = append(line, c...)
			}
		}
		bw.Write(bytes.TrimRight(line, " "))
		bw.WriteByte('\n')
	}
}

// plainText makes s, text from the data, one line of terminal text: a line break or any
// other control character (an escape sequence's ESC, say) is written as Go would quote it,
// and invalid UTF-8 is U+FFFD.
func plainText(s string) string {
	if !strings.ContainsFunc(s, isControl) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl reports whether r ends a line or moves the cursor where it is printed, or is an
// invisible formatting character (Unicode Cf: a bidirectional override reverses the rest of
// the line, numbers included; a zero-width space hides in a name).
func isControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}
