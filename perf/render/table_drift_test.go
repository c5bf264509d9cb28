package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
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

// TestTableJudgedColumn: a row whose verdict reads its judged efficiency (a same-time
// reference beside it) shows that figure and its interval in a judged column; a table whose
// rows read eff alone has none.
func TestTableJudgedColumn(t *testing.T) {
	p := reporttest.Profile(t)
	p.MixFractions = map[string]float64{"copy_cold": 0.5}
	p.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 2e11, Median: 2.5e11, Max: 5e11, N: 9}}
	sol := 4.0 / (1 << 11)
	r := reporttest.Rec("vector.fp32", 0, 4<<28, sol/0.45) // 45% of the profile
	r.RefRate, r.RefRateLow, r.RefRateHigh = 2.5e11, 2.4e11, 2.6e11
	plain := reporttest.Rec("vector.fp32", 0, 4<<28, sol/0.45)
	for _, c := range []struct {
		rec  record.Record
		want string
	}{{r, `(?m)^op .* eff +spread +judged +bound .*\nOp .* 45\.0% +90\.0% 86\.5-93\.7% +memory-bound +at ceiling`}, {plain, ""}} {
		pr := report.NewPricer(p, nil, "")
		var table bytes.Buffer
		if err := WriteTable(&table, pr, pr.PriceAll([]record.Record{c.rec})); err != nil {
			t.Fatal(err)
		}
		if c.want == "" {
			if strings.Contains(table.String(), "judged") {
				t.Errorf("a judged column without a judged row:\n%s", table.String())
			}
		} else if !regexp.MustCompile(c.want).MatchString(table.String()) {
			t.Errorf("table lacks %s:\n%s", c.want, table.String())
		}
	}
}
