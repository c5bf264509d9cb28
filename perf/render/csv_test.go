package render

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/ropgen/ropgen/perf/report"
)

// csvOf is rows written by WriteCSV and read back.
func csvOf(t *testing.T, rows []report.Row) [][]string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// header maps the column names of a CSV's first line to their indexes.
func header(all [][]string) map[string]int {
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	return col
}

func TestCSV(t *testing.T) {
	_, rows := sampleRows(t)
	all := csvOf(t, rows)
	if len(all) != len(rows)+1 || len(all[0]) != len(columns) {
		t.Fatalf("%d lines of %d fields, want %d of %d", len(all), len(all[0]), len(rows)+1, len(columns))
	}
	col := header(all)
	first := all[1]
	if first[col["efficiency"]] != "0.5" || first[col["bound"]] != "memory-bound" || first[col["memory_time"]] != "0.001953125" {
		t.Errorf("first row %v", first)
	}
	if all[2][col["workload"]] != "prefill, \"big\"" || all[2][col["compute_time"]] != "" || all[2][col["sol_time"]] != "" {
		t.Errorf("second row %v: quoted workload and blank cells", all[2])
	}
	if all[3][col["seconds"]] != "" || all[3][col["flops"]] != "1152921504606846977" {
		t.Errorf("third row %v: blank time, exact flops", all[3])
	}
}

// TestCSVInertText checks that a text cell a spreadsheet would evaluate as a formula is
// written as text, and that numbers, negative ones included, are not touched.
func TestCSVInertText(t *testing.T) {
	_, rows := sampleRows(t)
	rows[0].Rec.Workload = "=HYPERLINK(\"http://x\")"
	rows[1].Rec.Workload = "-1+1"
	all := csvOf(t, rows)
	col := header(all)
	if got := all[1][col["workload"]]; got != "'=HYPERLINK(\"http://x\")" {
		t.Errorf("formula workload written as %q", got)
	}
	if got := all[2][col["workload"]]; got != "'-1+1" {
		t.Errorf("workload -1+1 written as %q", got)
	}
	if got := all[3][col["workload"]]; got != "decode" {
		t.Errorf("plain workload written as %q", got)
	}
	for _, c := range inertCases {
		if got := inert(c[0]); got != c[1] {
			t.Errorf("inert(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

var inertCases = [][2]string{{"", ""}, {"@SUM(A1)", "'@SUM(A1)"}, {"+1", "'+1"}, {"\tx", "'\tx"}, {"a=b", "a=b"}}
