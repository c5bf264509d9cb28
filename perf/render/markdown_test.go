package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

func markdown(t *testing.T, d *Document) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestMarkdownOneRun(t *testing.T) {
	d := testDocument(t)
	md := markdown(t, d)
	for _, want := range []string{VerdictCounts(d.Rows), "To look at (2 rows)", "| ReluFwd/w/float32 | 150.0% | anomaly |", "commit abc123", `records new\.txt`} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "AddFwd") {
		t.Errorf("an at-ceiling row is listed as needing a look:\n%s", md)
	}
}

func TestMarkdownComparison(t *testing.T) {
	// 60 rows at 50% efficiency; in the new run row 3 reaches the ceiling and rows 40..59 are
	// 1.5x slower: one verdict change, 20 slower rows of which the list shows MarkdownRows.
	// (Most rows stay put, so their scatter, the drift, is nil.)
	var old, new []record.Record
	for i := range 60 {
		for range 6 {
			r := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)/0.5)
			r.Op = fmt.Sprintf("Op%02d", i)
			old = append(old, r)
			switch {
			case i == 3:
				r.Seconds = 1.0 / (1 << 9) / 0.9
			case i >= 40:
				r.Seconds *= 1.5
			}
			new = append(new, r)
		}
	}
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	o, n := report.Group(old), report.Group(new)
	rows := p.PriceAll(report.Records(n))
	d := &Document{Pricer: p, Rows: rows, Sampled: n,
		Comparison: Compare(o, n, p.PriceAll(report.Records(o)), rows, DefaultCompare), Meta: Meta{Files: []string{"new.txt"}, BaseFiles: []string{"old.txt"}}}
	md := markdown(t, d)
	for _, want := range []string{"Changed verdict (1 row)", "| Op03/w/float32 |", "below → at ceiling", "Slower, same verdict (20 rows)",
		"… and 5 more", `against old\.txt`, "1 faster, 20 slower"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Op05") {
		t.Errorf("an unchanged row is listed:\n%s", md)
	}
	// A PR comment is read at a glance.
	if lines := strings.Count(md, "\n"); lines > 40 {
		t.Errorf("markdown summary of 60 rows is %d lines", lines)
	}
}

// judgedRuns prices one row twice, as TestTableJudgedColumn does: at 45% of the profile
// alone (below), and with a same-time reference that found the machine at half its best, so
// its judged efficiency, 90%, decides its verdict (at ceiling).
func judgedRuns(t *testing.T) (pr *report.Pricer, o, n []report.Sampled, oldRows, rows []report.Row) {
	t.Helper()
	p := reporttest.Profile(t)
	p.MixFractions = map[string]float64{"copy_cold": 0.5}
	p.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 2e11, Median: 2.5e11, Max: 5e11, N: 9}}
	sol := 4.0 / (1 << 11)
	plain := reporttest.Rec("vector.fp32", 0, 4<<28, sol/0.45)
	judged := plain
	judged.RefRate, judged.RefRateLow, judged.RefRateHigh = 2.5e11, 2.4e11, 2.6e11
	pr = report.NewPricer(p, nil, "")
	o, n = report.Group([]record.Record{plain}), report.Group([]record.Record{judged})
	oldRows, rows = pr.PriceAll(report.Records(o)), pr.PriceAll(report.Records(n))
	if oldRows[0].Verdict != report.Below || rows[0].Verdict != report.AtCeiling {
		t.Fatalf("verdicts %q and %q, want below and at ceiling", oldRows[0].Verdict, rows[0].Verdict)
	}
	return pr, o, n, oldRows, rows
}

// TestMarkdownJudged: a row whose verdict reads its judged efficiency (a same-time reference
// timed beside it) shows that figure and its interval beside its eff, as the text table
// does (TestTableJudgedColumn), so "45%" never stands alone beside "at ceiling".
func TestMarkdownJudged(t *testing.T) {
	pr, o, n, oldRows, rows := judgedRuns(t)
	d := &Document{Pricer: pr, Rows: rows, Sampled: n, Comparison: Compare(o, n, oldRows, rows, DefaultCompare)}
	md := markdown(t, d)
	if !strings.Contains(md, "| eff | judged | verdict |") || !strings.Contains(md, "| 45.0% → 45.0% | 90.0% 86.5-93.7% | below → at ceiling |") {
		t.Errorf("the changed row does not show its judged efficiency:\n%s", md)
	}
	// Without a comparison, a formula error judged the same way lists it in the rows to look at.
	rows[0].Verdict = report.FormulaError
	md = markdown(t, &Document{Pricer: pr, Rows: rows, Sampled: n})
	if !strings.Contains(md, "| row | eff | judged | verdict | note |") || !strings.Contains(md, "| 45.0% | 90.0% 86.5-93.7% | formula error |") {
		t.Errorf("the row to look at does not show its judged efficiency:\n%s", md)
	}
	// A row judged by its eff alone has no judged column.
	d = &Document{Pricer: pr, Rows: oldRows, Sampled: o, Comparison: Compare(n, o, rows, oldRows, DefaultCompare)}
	if md := markdown(t, d); strings.Contains(md, "| judged |") {
		t.Errorf("a judged column without a judged row:\n%s", md)
	}
}

// TestMarkdownAuditLine: the summary says what the text summary ends with: how many ranked
// rows the bytes audit judged when one was read (-audit), and that no rate check convicts an
// undercount (docs/report.md).
func TestMarkdownAuditLine(t *testing.T) {
	d := testDocument(t)
	md := markdown(t, d)
	if strings.Contains(md, "bytes audit:") || !strings.Contains(md, "no rate check catches bytes counted too low") {
		t.Errorf("without -audit: want no audit line and the physics line:\n%s", md)
	}
	ranked := Rank(d.Rows)
	ranked[0].Audit = "FAIL"
	d.AuditFile = "audit.json"
	md = markdown(t, d)
	want := fmt.Sprintf("bytes audit: 1 of %d ranked rows audited (0 PASS, 0 WARN, 1 FAIL; a FAIL row reads formula error); the others' formulas were never checked", len(ranked))
	if !strings.Contains(md, want) || !strings.Contains(md, `bytes audit audit\.json`) {
		t.Errorf("markdown lacks %q and the audit file:\n%s", want, md)
	}
	// The HTML page says it under its counts.
	if doc, _ := renderHTML(t, d); !strings.Contains(text(byID(t, doc, "audit")), want) {
		t.Errorf("the HTML page lacks %q", want)
	}
	// An audit that judged none of the ranked rows says so too.
	ranked[0].Audit = ""
	if md := markdown(t, d); !strings.Contains(md, fmt.Sprintf("bytes audit: 0 of %d ranked rows audited", len(ranked))) {
		t.Errorf("an audit that matched no row is not said:\n%s", md)
	}
	// The text summary says it where a row was audited.
	ranked[0].Audit = "PASS"
	var sum bytes.Buffer
	if err := WriteSummary(&sum, d.Pricer, d.Rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), fmt.Sprintf("bytes audit: 1 of %d ranked rows audited (1 PASS, 0 WARN, 0 FAIL", len(ranked))) {
		t.Errorf("summary lacks the audit line:\n%s", sum.String())
	}
}
