package render

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

func TestTable(t *testing.T) {
	pr, rows := sampleRows(t)
	var buf bytes.Buffer
	if err := WriteTable(&buf, pr, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// Header line, column header, one line per row, verdict counts, latency floor.
	if len(lines) != len(rows)+4 || !strings.HasPrefix(lines[len(lines)-1], "latency floor 954ns (the profile's latency_floor)") || !strings.HasPrefix(lines[0], `device "Test Device": profile test (test.yaml), effective ceilings`) {
		t.Fatalf("table:\n%s", buf.String())
	}
	// Aligned: the "eff" header ends where the efficiency cell ends, counted in runes (the
	// row holds a µ).
	row := []rune(lines[2])
	end := strings.Index(lines[1], " eff") + len(" eff")
	if got := string(row[end-len("50.0%") : end]); got != "50.0%" || !strings.Contains(string(row), "µs") {
		t.Errorf("efficiency not aligned under its header (%q):\n%s", got, buf.String())
	}
	if !strings.Contains(lines[2], "1.95ms") || !strings.HasPrefix(lines[len(lines)-2], "4 rows: 0 at ceiling") {
		t.Errorf("table:\n%s", buf.String())
	}
}

// TestNoInfInOutputs: whatever a row holds, the JSON document stays JSON and the CSV and the
// table print no "Inf" or "NaN" (issue 11 item 7: report -json once printed +Inf).
func TestNoInfInOutputs(t *testing.T) {
	pr, rows := sampleRows(t)
	rows[0].Efficiency, rows[0].ByteRate, rows[0].EffHigh, rows[0].MemoryTime = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(1)
	var js, cs, tb bytes.Buffer
	if err := WriteJSON(&js, pr, rows); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Errorf("not JSON: %v\n%s", err, js.String())
	}
	if err := WriteCSV(&cs, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&tb, pr, rows); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"json": js.String(), "csv": cs.String(), "table": tb.String()} {
		if strings.Contains(out, "Inf") || strings.Contains(out, "NaN") {
			t.Errorf("%s output holds Inf or NaN:\n%s", name, out)
		}
	}
}

// TestCacheCellSameRoof: a row whose cache level is no faster than DRAM says so in the cache
// column instead of repeating the SOL time.
func TestCacheCellSameRoof(t *testing.T) {
	p, rows := wordsRows(t, hostWords) // the L3 runs at the DRAM ceiling
	var table bytes.Buffer
	if err := WriteTable(&table, p, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "L3 = sol") {
		t.Errorf("table:\n%s", table.String())
	}
}

// TestNoProfileOnce: records no profile prices get one message that says how to calibrate
// the host, on the device line, and not the error again in every row's note.
func TestNoProfileOnce(t *testing.T) {
	recs := []record.Record{
		{Device: "cpu: Lab CPU", Op: "AddFwd", Workload: "a", DType: "float32", Roof: "vector.fp32", Flops: 1, Bytes: 8, Seconds: 1, Iters: 1},
		{Device: "cpu: Lab CPU", Op: "AddFwd", Workload: "b", DType: "float32", Roof: "vector.fp32", Flops: 1, Bytes: 8, Seconds: 1, Iters: 1},
	}
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	rows := p.PriceAll(recs)
	var sum, table bytes.Buffer
	if err := WriteSummary(&sum, p, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, p, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "no row to rank") {
		t.Errorf("summary:\n%s", sum.String())
	}
	for _, out := range []string{sum.String(), table.String()} {
		if strings.Count(out, "ropgen calibrate -o out/host.yaml") != 1 || strings.Count(out, "no device profile matches") != 1 ||
			!strings.Contains(out, "-profile host") {
			t.Errorf("output:\n%s", out)
		}
	}
}

// TestExtremeRecordsReadable: the fastest time a record may give (record.MinTime) with the
// largest counts it may hold implies rates dozens of digits long; every renderer a person
// reads prints them with an exponent (issue 23 item 9: the breach line said "32999…(300
// digits) PB/s is +Inf%").
func TestExtremeRecordsReadable(t *testing.T) {
	r := reporttest.Rec("vector.fp32", math.MaxInt64, math.MaxInt64, record.MinTime)
	r.RefRate = record.MinRefRate
	prof := reporttest.Profile(t)
	p := report.NewPricer(nil, []*profiles.Profile{prof}, "")
	sampled, rows := report.PriceRun(p, []record.Record{r})
	if rows[0].Verdict != report.FormulaError {
		t.Fatalf("verdict %q, want a formula error", rows[0].Verdict)
	}
	var tb, md, sv bytes.Buffer
	if err := WriteTable(&tb, p, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, &Document{Pricer: p, Rows: rows, Sampled: sampled}); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteSVG(&sv, &Chart{Profile: prof, Basis: p.Basis(), Rows: rows}); err != nil {
		t.Fatal(err)
	}
	long := regexp.MustCompile(`[0-9]{10,}|Inf|NaN`)
	for name, out := range map[string]string{"table": tb.String(), "note": rows[0].Note, "markdown": md.String(), "svg": sv.String()} {
		if m := long.FindString(out); m != "" {
			t.Errorf("%s holds %q:\n%s", name, m, out)
		}
	}
	if !strings.Contains(rows[0].Note, "e+") {
		t.Errorf("the breach note gives no exponent: %s", rows[0].Note)
	}
}
