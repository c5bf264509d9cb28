package render

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// rendered is every renderer's output for one run whose every text from the data (device,
// profile name, op, workload, dtype, file names, commit, command line) carries one payload.
type rendered struct {
	md, mdCompare, html, svg, table, compareTable string
	csv, compareCSV                               string
	rows                                          []report.Row
	deltas                                        []Delta
}

// renderAll prices a small run and a base run whose names all carry payload and renders
// them every way the report can: an at-ceiling row, an anomaly, a zero-FLOP row (the
// bandwidth view) and, against the base, a row that changed verdict and one that got slower.
func renderAll(t testing.TB, payload string) rendered {
	t.Helper()
	prof := *reporttest.Profile(t)
	prof.Name, prof.Device = payload, payload
	mk := func(op string, flops, bytes int64, secs float64) record.Record {
		r := reporttest.Rec("vector.fp32", flops, bytes, secs)
		r.Device, r.Op, r.Workload, r.DType = payload, "Op"+payload+op, payload, payload
		r.Pos.File, r.Pos.Line = payload, 1
		return r
	}
	sol := 1.0 / (1 << 9) // 2^30 bytes at 2^39 B/s
	var old, new []record.Record
	for range 6 {
		old = append(old, mk("A", 1<<20, 1<<30, sol/0.5), mk("B", 1<<20, 1<<30, sol/0.9), mk("C", 0, 1<<30, sol/0.5), mk("D", 1<<20, 1<<30, sol/0.5))
		new = append(new, mk("A", 1<<20, 1<<30, sol/0.95), mk("B", 1<<20, 1<<30, sol/1.5), mk("C", 0, 1<<30, sol/0.5), mk("D", 1<<20, 1<<30, sol/0.25))
	}
	p := report.NewPricer(&prof, nil, "")
	sampled, rows := report.PriceRun(p, new)
	oldSampled, oldRows := report.PriceRun(report.NewPricer(&prof, nil, ""), old)
	cmp := Compare(oldSampled, sampled, oldRows, rows, DefaultCompare)
	meta := Meta{Command: "ropgen report " + payload, Commit: payload, Date: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Files: []string{payload, payload + ".txt"}, BaseFiles: []string{payload}}
	var out rendered
	out.rows, out.deltas = rows, cmp.Deltas
	write := func(f func(io.Writer) error) string {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out.svg = write(func(w io.Writer) error {
		_, err := WriteSVG(w, &Chart{Profile: &prof, Basis: p.Basis(), Rows: rows, Meta: &meta, Comparison: cmp,
			Family: func(string) string { return payload }})
		return err
	})
	doc := &Document{Meta: meta, Pricer: p, Rows: rows, Sampled: sampled, Chart: []byte(out.svg)}
	out.md = write(func(w io.Writer) error { return WriteMarkdown(w, doc) })
	out.html = write(func(w io.Writer) error { return WriteHTML(w, doc) })
	doc.Comparison = cmp
	out.mdCompare = write(func(w io.Writer) error { return WriteMarkdown(w, doc) })
	out.html += write(func(w io.Writer) error { return WriteHTML(w, doc) })
	out.table = write(func(w io.Writer) error { return WriteTable(w, p, rows) })
	out.compareTable = write(func(w io.Writer) error { return WriteCompare(w, cmp) })
	out.csv = write(func(w io.Writer) error { return WriteCSV(w, rows) })
	out.compareCSV = write(func(w io.Writer) error { return WriteCompareCSV(w, cmp) })
	return out
}

// mdMarkup is what is left of a markdown text once every backslash escape is taken out: the
// characters that can still open or close markup, and the line breaks, counted.
func mdMarkup(md string) map[string]int {
	n := map[string]int{}
	rs := []rune(md)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\\' && i+1 < len(rs) && rs[i+1] < 128 && strings.ContainsRune(mdSpecial, rs[i+1]):
			i++
		case r == '\n' || r == '\r' || (r < 128 && strings.ContainsRune(mdSpecial, r)):
			n[string(r)]++
		}
	}
	return n
}

// htmlShape is the elements and attributes of an HTML page, counted by name.
func htmlShape(t testing.TB, page string) (elems map[string]int, attrs map[string]bool) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	elems, attrs = map[string]int{}, map[string]bool{}
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode {
			elems[n.Data]++
			for _, a := range n.Attr {
				attrs[a.Namespace+":"+a.Key] = true
			}
		}
	}
	return elems, attrs
}

// svgShape is the elements and attributes of an SVG document, which must be well-formed XML.
func svgShape(t testing.TB, doc string) (elems, attrs map[string]bool) {
	t.Helper()
	elems, attrs = map[string]bool{}, map[string]bool{}
	dec := xml.NewDecoder(strings.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return elems, attrs
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			elems[se.Name.Local] = true
			for _, a := range se.Attr {
				attrs[a.Name.Local] = true
			}
		}
	}
}

// subset fails when got has a key that want has not: markup the data made.
func subset[V any](t testing.TB, what string, got, want map[string]V) {
	t.Helper()
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %q that a plain name does not make (have %v)", what, k, slices.Sorted(maps.Keys(want)))
		}
	}
}

// checkEscaped compares the output of a run whose names carry payload with the output of
// the same run with a plain name: whatever the payload, it adds no markup to any renderer's
// output. Markdown keeps the same unescaped markup characters and lines; HTML and SVG the
// same elements and attributes (and the same number of scripts); CSV the same records and
// fields, each name read back as written; the text tables the same lines and no control
// characters.
func checkEscaped(t testing.TB, payload string) {
	t.Helper()
	got, plain := renderAll(t, payload), renderAll(t, "x")
	for _, c := range []struct{ name, got, plain string }{{"-md", got.md, plain.md}, {"-md -base", got.mdCompare, plain.mdCompare}} {
		if g, p := mdMarkup(c.got), mdMarkup(c.plain); !maps.Equal(g, p) {
			t.Errorf("%s: markup characters %v, a plain name gives %v:\n%s", c.name, g, p, c.got)
		}
	}
	ge, ga := htmlShape(t, got.html)
	pe, pa := htmlShape(t, plain.html)
	subset(t, "-html element", ge, pe)
	subset(t, "-html attribute", ga, pa)
	if ge["script"] != pe["script"] {
		t.Errorf("-html: %d scripts, a plain name gives %d", ge["script"], pe["script"])
	}
	se, sa := svgShape(t, got.svg)
	spe, spa := svgShape(t, plain.svg)
	subset(t, "-svg element", se, spe)
	subset(t, "-svg attribute", sa, spa)

	// encoding/csv reads a quoted CR LF back as LF: the one change a round trip makes.
	crlf := strings.NewReplacer("\r\n", "\n")
	for _, c := range []struct {
		name, out string
		ops       []string
	}{
		{"-csv", got.csv, rowOps(got.rows)},
		{"-csv -base", got.compareCSV, deltaOps(got.deltas)},
	} {
		recs, err := csv.NewReader(strings.NewReader(c.out)).ReadAll()
		if err != nil || len(recs) != len(c.ops)+1 {
			t.Errorf("%s: %v, %d records for %d rows:\n%s", c.name, err, len(recs), len(c.ops), c.out)
			continue
		}
		op := slices.Index(recs[0], "op")
		for i, r := range recs[1:] {
			if len(r) != len(recs[0]) || r[op] != crlf.Replace(c.ops[i]) {
				t.Errorf("%s: record %d is %q, want %d fields, op %q", c.name, i+1, r, len(recs[0]), c.ops[i])
			}
		}
	}
	for _, c := range []struct{ name, got, plain string }{{"table", got.table, plain.table}, {"compare table", got.compareTable, plain.compareTable}} {
		if g, p := strings.Count(c.got, "\n"), strings.Count(c.plain, "\n"); g != p {
			t.Errorf("%s: %d lines, a plain name gives %d:\n%s", c.name, g, p, c.got)
		}
		if i := strings.IndexFunc(c.got, func(r rune) bool { return r != '\n' && isControl(r) }); i >= 0 {
			t.Errorf("%s: a control character from the data (%q) reaches the terminal:\n%q", c.name, c.got[i:min(i+4, len(c.got))], c.got)
		}
	}
}

func rowOps(rows []report.Row) []string {
	ops := make([]string, len(rows))
	for i := range rows {
		ops[i] = rows[i].Rec.Op
	}
	return ops
}

func deltaOps(ds []Delta) []string {
	ops := make([]string, len(ds))
	for i := range ds {
		if ds[i].New != nil {
			ops[i] = ds[i].New.Op
		} else {
			ops[i] = ds[i].Old.Op
		}
	}
	return ops
}

// escapeCases are names a hostile records file can carry: each breaks out of some renderer's
// context when not escaped.
var escapeCases = []string{
	"dev`<img src=x onerror=alert(1)>`",
	"[ok](javascript:alert(1))",
	"![x](http://x/y.png)",
	"<script>alert(1)</script>",
	"a|b|c",
	"line\nbreak\r\n| x | y |",
	"**bold** _em_ ~~del~~ $x^2$ &amp; &#x3c;",
	"https://example.com www.example.com a@b.example",
	`\|\`,
	"\x1b[31mred\x1b[0m\x00\x7f\u2028",
	"Gemm\u200bFwd\u202e1.5\u2066",
	"\xff\xfe invalid utf-8",
	"\"quoted\",field",
	"]]><!-- --> <![CDATA[",
	"",
}

func TestRenderersEscapeData(t *testing.T) {
	for _, p := range escapeCases {
		t.Run(fmt.Sprintf("%q", p), func(t *testing.T) { checkEscaped(t, p) })
	}
	// The markdown cases of issue 23, as a reader of the PR comment would see them.
	md := renderAll(t, "dev`<img src=x onerror=alert(1)>`").md
	if !strings.Contains(md, "dev\\`\\<img src=x onerror=alert\\(1\\)\\>\\`") || strings.Count(md, "<img") != strings.Count(md, "\\<img") {
		t.Errorf("a device name with a backtick leaves its code span:\n%s", md)
	}
	md = renderAll(t, "[ok](javascript:alert(1))").md
	if strings.Contains(md, "[ok](") {
		t.Errorf("a name is a live link:\n%s", md)
	}
	// A bidirectional override reversed the rest of a table row in a terminal, numbers
	// included, and a zero-width space hid in a name (issue 40 item 7): the text tables
	// show them escaped, as control characters are. (Records refuse them: record.Check.)
	for _, table := range []string{renderAll(t, "Gemm\u200bFwd\u202e").table, renderAll(t, "Gemm\u200bFwd\u202e").compareTable} {
		if strings.ContainsAny(table, "\u200b\u202e") || !strings.Contains(table, `Gemm\u200bFwd\u202e`) {
			t.Errorf("invisible formatting characters reach the terminal raw:\n%q", table)
		}
	}
}

func FuzzRenderersEscapeData(f *testing.F) {
	for _, p := range escapeCases {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		if len(payload) > 200 {
			return // longer names only make longer cells
		}
		checkEscaped(t, payload)
	})
}
