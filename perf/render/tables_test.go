package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// TestTablesThatFit: the text table abbreviates a mixed dtype label and says so; -json keeps
// it whole and gives the position as an object, as every ropgen JSON does; an anomaly's note
// says what to do.
func TestTablesThatFit(t *testing.T) {
	mixed := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)/0.5)
	mixed.DType, mixed.Pos = "q=bfloat16,k=float8_e4m3,v=float8_e4m3", diag.Pos{File: "r.txt", Line: 7}
	fast := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)/1.5) // 150% of the ceiling
	pr := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	rows := pr.PriceAll([]record.Record{mixed, fast})
	if rows[1].Verdict != report.Anomaly || rows[1].Note != report.NoteAnomaly {
		t.Errorf("anomaly: verdict %q note %q", rows[1].Verdict, rows[1].Note)
	}
	if rows[0].Note != "" {
		t.Errorf("a row below the ceiling got the note %q", rows[0].Note)
	}

	var tb bytes.Buffer
	if err := WriteTable(&tb, pr, rows); err != nil {
		t.Fatal(err)
	}
	out := tb.String()
	if !strings.Contains(out, "q=bf16,k=f8e4m3,v=f8e4m3 ") || strings.Contains(out, "bfloat16") || !strings.Contains(out, report.DTypeLegend) {
		t.Errorf("table does not abbreviate the mixed label, or does not say so:\n%s", out)
	}
	if !strings.Contains(out, "recalibrate (ropgen calibrate), or audit the bytes") {
		t.Errorf("table lacks the anomaly's note:\n%s", out)
	}
	tb.Reset()
	if err := WriteTable(&tb, pr, rows[1:]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tb.String(), report.DTypeLegend) {
		t.Errorf("legend printed with no label abbreviated")
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, pr, rows); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []struct {
			DType string   `json:"dtype"`
			Pos   diag.Pos `json:"pos"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if doc.Rows[0].DType != mixed.DType || doc.Rows[0].Pos != mixed.Pos {
		t.Errorf("JSON row: dtype %q pos %+v, want the full label and {r.txt 7 0}", doc.Rows[0].DType, doc.Rows[0].Pos)
	}
	if !strings.Contains(js.String(), `"pos":{"file":"r.txt","line":7,"col":0}`) {
		t.Errorf("pos is not an object {file,line,col}:\n%s", js.String())
	}
}
