package render

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/perf/report"
)

// WriteCSV writes rows as CSV with a header line; blank cells are empty.
func WriteCSV(w io.Writer, rows []report.Row) error { return writeCSV(w, columns, rows) }

// writeCSV writes items as CSV, one line per item, under a header of the columns' names.
func writeCSV[T any](w io.Writer, cols []column[T], items []T) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(cols))
	for i, c := range cols {
		rec[i] = c.name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for i := range items {
		for j, c := range cols {
			switch {
			case c.text != nil:
				rec[j] = inert(c.text(&items[i]))
			case c.count != nil:
				rec[j] = strconv.FormatInt(c.count(&items[i]), 10)
			default:
				rec[j] = ""
				if v := finite(c.num(&items[i])); !report.Blank(v) {
					rec[j] = strconv.FormatFloat(v, 'g', -1, 64)
				}
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// inert returns a text cell that a spreadsheet reads as text: one that starts with a
// formula's first character (=, +, -, @, a tab or a carriage return: a workload label or
// note from a manifest could) gets a leading apostrophe, which spreadsheets show as text
// and do not evaluate. Numeric cells are written by strconv and left as they are.
func inert(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}
