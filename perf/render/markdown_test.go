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
