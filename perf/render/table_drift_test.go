package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// TestTableDriftedRows: the table says how many rows a drifted run priced under drift,
// with or without PriceDrifted, and leaves none unpriced for it.
func TestTableDriftedRows(t *testing.T) {
	row := func(file string) record.Record {
		r := reporttest.Rec("hbm", 0, 1<<30, 1e-1)
		r.Device, r.Pos = "cpu: Test CPU", diag.Pos{File: file, Line: 2}
		return r
	}
	recs := []record.Record{
		reporttest.CopyRef("cpu: Test CPU", "drifted.txt", record.RefEnd, 20e9),
		reporttest.CopyRef("cpu: Test CPU", "steady.txt", record.RefEnd, 38e9),
		row("drifted.txt"), row("drifted.txt"), row("steady.txt"),
	}
	for priceDrifted, want := range map[bool]string{
		false: "2 rows priced under drift",
		true:  "2 rows priced under drift",
	} {
		pr := report.NewPricer(reporttest.NoisyProfile(t), nil, "")
		pr.PriceDrifted = priceDrifted
		rows := pr.PriceAll(recs)
		var table bytes.Buffer
		if err := WriteTable(&table, pr, rows); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(table.String(), want) || strings.Contains(table.String(), "unpriced:") || !strings.Contains(table.String(), "0 unpriced") {
			t.Errorf("PriceDrifted %v: no %q in the table:\n%s", priceDrifted, want, table.String())
		}
	}
}
