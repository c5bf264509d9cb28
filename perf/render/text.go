package render

import (
	"bufio"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// writeAligned writes cells as columns two spaces apart, right-aligning where right says.
func writeAligned(bw *bufio.Writer, cells [][]string, right []bool) {
	width := make([]int, len(cells[0]))
	for _, row := range cells {
		for j, c := range row {
			c = plainText(c)
			row[j] = c
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	for _, row := range cells {
		var line strings.Builder
		for j, c := range row {
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(c))
			if j > 0 {
				line.WriteString("  ")
			}
			if right[j] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		bw.WriteString(strings.TrimRight(line.String(), " "))
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

// isControl reports whether r ends a line or moves the cursor where it is printed.
func isControl(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }
