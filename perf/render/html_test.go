package render

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// node helpers over a parsed page.

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, c string) bool {
	v, _ := attr(n, "class")
	for f := range strings.FieldsSeq(v) {
		if f == c {
			return true
		}
	}
	return false
}

// find returns every element below n (n included) for which ok holds, in document order.
func find(n *html.Node, ok func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && ok(d) {
			out = append(out, d)
		}
	}
	if n.Type == html.ElementNode && ok(n) {
		out = append([]*html.Node{n}, out...)
	}
	return out
}

func byID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	ns := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == id })
	if len(ns) != 1 {
		t.Fatalf("%d elements with id %q, want 1", len(ns), id)
	}
	return ns[0]
}

func tag(name string) func(*html.Node) bool { return func(n *html.Node) bool { return n.Data == name } }

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// testDocument: an at-ceiling row measured three times, an anomaly, a zero-FLOP copy at 50%
// of the HBM ceiling, a mixed-dtype row, and a row whose note would be markup if unescaped.
func testDocument(t *testing.T) *Document {
	t.Helper()
	mk := func(op, dtype string, flops, bytes int64, secs float64) record.Record {
		r := reporttest.Rec("vector.fp32", flops, bytes, secs)
		r.Op, r.DType = op, dtype
		r.Pos.File, r.Pos.Line = "new.txt", 1
		return r
	}
	// 2^30 bytes at 2^39 B/s: 2^-9 s of SOL time.
	recs := []record.Record{
		mk("AddFwd", "float32", 1<<20, 1<<30, 1.0/(1<<9)/0.9),
		mk("AddFwd", "float32", 1<<20, 1<<30, 1.0/(1<<9)/0.85),
		mk("AddFwd", "float32", 1<<20, 1<<30, 1.0/(1<<9)/0.95),
		mk("ReluFwd", "float32", 1<<20, 1<<30, 1.0/(1<<9)/1.5),
		mk("CopyFwd", "float32", 0, 1<<30, 1.0/(1<<9)*2),
		mk("ConcatFwd", "float32", 0, 1<<30, 1.0/(1<<9)/1.25),
		mk("AttnFwd", "q=bfloat16,k=float8_e4m3", 1<<20, 1<<30, 1.0/(1<<9)*4),
		mk("<script>alert(1)</script>", "float32", 0, 0, 1e-3),
	}
	// One record with its slowest and fastest sample: a row of one record has a spread too.
	recs[3].MinSeconds, recs[3].MaxSeconds = 1.0/(1<<9)/1.6, 1.0/(1<<9)/1.4
	sampled := report.Group(recs)
	prof := reporttest.Profile(t)
	p := report.NewPricer(nil, []*profiles.Profile{prof}, "")
	rows := p.PriceAll(report.Records(sampled))
	var svg bytes.Buffer
	if _, err := WriteSVG(&svg, &Chart{Profile: prof, Basis: p.Basis(), Rows: rows}); err != nil {
		t.Fatal(err)
	}
	return &Document{
		Meta: Meta{Command: "ropgen report -html out.html new.txt", Commit: "abc123", Date: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
			Files: []string{"new.txt"}},
		Pricer: p, Rows: rows, Sampled: sampled, Chart: svg.Bytes(),
	}
}

func renderHTML(t *testing.T, d *Document) (*html.Node, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, d); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, buf.String()
}

func TestHTMLSelfContained(t *testing.T) {
	doc, page := renderHTML(t, testDocument(t))
	// Nothing is fetched: no element names another resource, and scripts and styles are inline.
	for _, n := range find(doc, func(*html.Node) bool { return true }) {
		for _, k := range []string{"src", "href", "xlink:href"} {
			if v, ok := attr(n, k); ok {
				t.Errorf("<%s %s=%q>: the page must not load anything", n.Data, k, v)
			}
		}
		if n.Data == "link" || n.Data == "img" || n.Data == "iframe" {
			t.Errorf("<%s> element in a self-contained page", n.Data)
		}
	}
	if n := len(find(doc, tag("script"))); n != 1 {
		t.Errorf("%d scripts, want the one inline script", n)
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("page names a URL")
	}
	// The note of the row named like markup is text, not a script.
	for _, s := range find(doc, tag("script")) {
		if strings.Contains(text(s), "alert(1)") {
			t.Errorf("a row's name became a script")
		}
	}
	if !strings.Contains(text(doc), "<script>alert(1)</script>") {
		t.Errorf("the row named like markup is missing from the page's text")
	}
}

func TestHTMLTable(t *testing.T) {
	d := testDocument(t)
	doc, _ := renderHTML(t, d)
	table := byID(t, doc, "rows")
	heads := find(table, tag("th"))
	col := map[string]int{}
	for i, h := range heads {
		col[text(h)] = i
	}
	for _, want := range []string{"op", "dtype", "time", "spread", "n", "eff", "verdict", "note"} {
		if _, ok := col[want]; !ok {
			t.Fatalf("no %q column in %v", want, col)
		}
	}
	trs := find(find(table, tag("tbody"))[0], tag("tr"))
	if len(trs) != len(d.Rows) {
		t.Fatalf("%d table rows, want %d (three AddFwd records are one row)", len(trs), len(d.Rows))
	}
	cells := func(tr *html.Node) []*html.Node { return find(tr, tag("td")) }
	byOp := map[string][]*html.Node{}
	for _, tr := range trs {
		cs := cells(tr)
		if len(cs) != len(heads) {
			t.Fatalf("row with %d cells under %d headers", len(cs), len(heads))
		}
		byOp[text(cs[0])] = cs
	}
	add := byOp["AddFwd"]
	if text(add[col["n"]]) != "3" || text(add[col["verdict"]]) != "at ceiling" {
		t.Errorf("AddFwd: n %q verdict %q, want 3 and at ceiling", text(add[col["n"]]), text(add[col["verdict"]]))
	}
	// Its spread, as the text table's: the efficiency of its slowest and of its fastest
	// sample; hovering it gives its records' spread: 1/0.85 .. 1/0.95 around 1/0.9 ticks of
	// 2^-9 s.
	if got := text(add[col["spread"]]); got != "85-95%" {
		t.Errorf("AddFwd spread %q, want 85-95%%", got)
	}
	want := 50 * (1/0.85 - 1/0.95) / (1 / 0.9)
	if got, _ := attr(add[col["spread"]], "title"); !strings.HasPrefix(got, "the 3 records' medians: ±"+strconv.FormatFloat(want, 'f', 0, 64)+"%") {
		t.Errorf("AddFwd spread's title %q, want ±%.0f%% over 3 records", got, want)
	}
	// A row of one record has its samples' spread too (issue 42: the column was empty for
	// every row of a run with -count 1).
	if got := text(byOp["ReluFwd"][col["spread"]]); got != "140-160%" {
		t.Errorf("ReluFwd spread %q, want 140-160%%", got)
	}
	if k, _ := attr(add[col["eff"]], "data-k"); k != strconv.FormatFloat(0.9, 'g', 6, 64) {
		t.Errorf("AddFwd efficiency sort key %q, want the median's 0.9", k)
	}
	attn := byOp["AttnFwd"]
	if got, _ := attr(attn[col["dtype"]], "title"); got != "q=bfloat16,k=float8_e4m3" || text(attn[col["dtype"]]) != "q=bf16,k=f8e4m3" {
		t.Errorf("mixed dtype cell %q title %q: want the short label, the full one on hover", text(attn[col["dtype"]]), got)
	}
	if relu := byOp["ReluFwd"]; text(relu[col["verdict"]]) != "anomaly" {
		t.Errorf("ReluFwd verdict %q, want anomaly", text(relu[col["verdict"]]))
	}
	for _, id := range []string{"filter", "verdict", "counts"} {
		byID(t, doc, id)
	}
	if n := len(find(byID(t, doc, "verdict"), tag("option"))); n != 9 {
		t.Errorf("%d verdict filter options, want any, none and the seven verdicts", n)
	}
}

func TestHTMLChartAndBandwidth(t *testing.T) {
	d := testDocument(t)
	doc, _ := renderHTML(t, d)
	chart := byID(t, doc, "chart")
	svgs := find(chart, tag("svg"))
	if len(svgs) != 1 {
		t.Fatalf("%d inline SVG charts, want 1", len(svgs))
	}
	pts := find(svgs[0], func(n *html.Node) bool { return hasClass(n, "point") })
	plottable := 0
	for i := range d.Rows {
		if Plottable(&d.Rows[i]) {
			plottable++
		}
	}
	if len(pts) != plottable || plottable != 3 {
		t.Errorf("%d points for %d plottable rows, want 3", len(pts), plottable)
	}
	for _, p := range pts {
		if ts := find(p, tag("title")); len(ts) != 1 || !strings.Contains(text(ts[0]), "efficiency") {
			t.Errorf("point without a tooltip")
		}
	}
	// The copy and the concat do no arithmetic: bars at 50% and 125% of the HBM ceiling, on a
	// scale to 130%.
	bars := find(byID(t, doc, "bars"), func(n *html.Node) bool { return hasClass(n, "bar") })
	if len(bars) != 2 {
		t.Fatalf("%d bandwidth bars, want the copy's and the concat's", len(bars))
	}
	style, _ := attr(bars[0], "style")
	ceil := find(byID(t, doc, "bars"), func(n *html.Node) bool { return hasClass(n, "ceiling") })
	cstyle, _ := attr(ceil[0], "style")
	bw, cw := percentIn(t, style), percentIn(t, cstyle)
	if bw/cw < 0.499 || bw/cw > 0.501 || cw < 76.9 || cw > 77 {
		t.Errorf("copy bar %v%% against the ceiling line at %v%%: want half of it, the line at 100/130", bw, cw)
	}
	if !strings.Contains(text(byID(t, doc, "bandwidth").Parent), "50.0%") {
		t.Errorf("bandwidth view does not print the copy's 50.0%% of the ceiling")
	}
	// The unpriced row is on neither chart, and is named.
	// Every row with no point is named with why: the copy and the concat are in the bandwidth
	// view, the zero-byte row on neither.
	unplotted := text(byID(t, doc, "unplotted"))
	for _, want := range []string{report.NoteZeroBytes + ": <script>alert(1)</script>/w/float32", "zero FLOPs: no arithmetic intensity (the HTML report's bandwidth view shows their byte rates): CopyFwd/w/float32, ConcatFwd/w/float32", "3 of 6 rows"} {
		if !strings.Contains(unplotted, want) {
			t.Errorf("unplotted rows %q lack %q", unplotted, want)
		}
	}
}

func percentIn(t *testing.T, style string) float64 {
	t.Helper()
	_, v, _ := strings.Cut(style, ":")
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
	if err != nil {
		t.Fatalf("style %q: %v", style, err)
	}
	return f
}

func TestHTMLMeta(t *testing.T) {
	d := testDocument(t)
	doc, _ := renderHTML(t, d)
	meta := text(byID(t, doc, "meta"))
	for _, want := range []string{"Test Device", "test", "effective ceilings", "not measured (datasheet values)", "new.txt", "abc123",
		"2026-12-01 09:00:00 UTC", "ropgen report -html out.html new.txt"} {
		if !strings.Contains(meta, want) {
			t.Errorf("run metadata lacks %q:\n%s", want, meta)
		}
	}
	// A calibrated profile shows when, and the spread of its HBM ceiling.
	prof := reporttest.Profile(t)
	prof.Measured.At = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	prof.HBM.Spread = profiles.Spread{Min: 0.9 * reporttest.HBMEff, Median: 0.95 * reporttest.HBMEff, Max: reporttest.HBMEff, N: 5}
	p := report.NewPricer(prof, nil, "")
	d.Pricer, d.Rows = p, p.PriceAll(report.Records(d.Sampled))
	doc, _ = renderHTML(t, d)
	meta = text(byID(t, doc, "meta"))
	for _, want := range []string{"2026-11-30 08:00 UTC", "n=5", "±5.3%"} {
		if !strings.Contains(meta, want) {
			t.Errorf("calibrated profile's metadata lacks %q:\n%s", want, meta)
		}
	}
}

func TestHTMLWithoutChart(t *testing.T) {
	d := testDocument(t)
	d.Chart, d.ChartNote = nil, "records are priced against profiles a and b"
	doc, _ := renderHTML(t, d)
	if got := text(byID(t, doc, "chart")); !strings.Contains(got, d.ChartNote) {
		t.Errorf("chart placeholder %q does not say why", got)
	}
	d.Sampled = d.Sampled[:1]
	if err := WriteHTML(&bytes.Buffer{}, d); err == nil {
		t.Errorf("a document whose samples do not match its rows was rendered")
	}
}

// TestHTMLHostWords: on a CPU profile the page (its text and the inline chart) says DRAM and
// the vector pipes, never HBM or cube, and ranks the rows by lost time with what would move
// each; on a GPU profile with a matrix unit it says HBM and cube.
func TestHTMLHostWords(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want, not  []string
	}{
		{"cpu", hostWords, []string{"DRAM ceiling", "no matrix unit", "vector.fp32 2.20 TFLOP/s",
			"compute-bound at 12% of vector.fp32", "memory-bound at 50% of DRAM"}, []string{"cube", "HBM", "hbm"}},
		{"gpu", gpuWords, []string{"HBM ceiling", "cube.fp32 35.2 TFLOP/s", "compute-bound at 0.8% of cube.fp32", "memory-bound at 50% of HBM"},
			[]string{"no matrix unit", "DRAM ceiling"}},
	} {
		p, rows := wordsRows(t, c.yaml)
		var svg bytes.Buffer
		if _, err := WriteSVG(&svg, &Chart{Profile: rows[0].Profile, Basis: p.Basis(), Rows: rows}); err != nil {
			t.Fatal(err)
		}
		doc, _ := renderHTML(t, &Document{Pricer: p, Rows: rows, Chart: svg.Bytes()})
		page := text(doc)
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: page lacks %q:\n%s", c.name, w, page)
			}
		}
		for _, w := range c.not {
			if strings.Contains(page, w) {
				t.Errorf("%s: page says %q:\n%s", c.name, w, page)
			}
		}
		ranked := find(byID(t, doc, "ranked-rows"), tag("tr"))
		if len(ranked) != 3 || !strings.Contains(text(ranked[1]), "GemmFwd") {
			t.Errorf("%s: ranked table rows %d", c.name, len(ranked))
		}
	}
}

// TestHTMLRecordColumn: the record column gives the file's base name and line, the full path
// on hover: a CI workspace's path, nowrap, pushed the rows table past a 1280-pixel window and
// cut the column (issue 42).
func TestHTMLRecordColumn(t *testing.T) {
	d := testDocument(t)
	d.Rows[0].Rec.Pos.File = "/home/runner/work/project/project/out/benchmarks/new.txt"
	doc, _ := renderHTML(t, d)
	tr := find(find(byID(t, doc, "rows"), tag("tbody"))[0], tag("tr"))[0]
	pos := find(tr, func(n *html.Node) bool { return hasClass(n, "pos") })
	if len(pos) != 1 {
		t.Fatalf("%d record cells in the first row", len(pos))
	}
	if title, _ := attr(pos[0], "title"); text(pos[0]) != "new.txt:1" || title != d.Rows[0].Rec.Pos.String() {
		t.Errorf("record cell %q title %q, want new.txt:1 and the full position", text(pos[0]), title)
	}
}

// TestHTMLJudgedColumn: the rows table shows the judged efficiency and its interval where
// it decides a row's verdict, as the text table does; no such column without such a row.
func TestHTMLJudgedColumn(t *testing.T) {
	pr, o, n, oldRows, rows := judgedRuns(t)
	for _, c := range []struct {
		rows    []report.Row
		sampled []report.Sampled
		want    string
	}{{rows, n, "90.0% 86.5-93.7%"}, {oldRows, o, ""}} {
		doc, _ := renderHTML(t, &Document{Pricer: pr, Rows: c.rows, Sampled: c.sampled})
		table := byID(t, doc, "rows")
		col := -1
		for i, h := range find(table, tag("th")) {
			if text(h) == "judged" {
				col = i
			}
		}
		switch {
		case c.want == "" && col >= 0:
			t.Errorf("a judged column without a judged row")
		case c.want != "" && col < 0:
			t.Errorf("no judged column for a row whose verdict reads it")
		case c.want != "":
			tr := find(find(table, tag("tbody"))[0], tag("tr"))[0]
			if got := text(find(tr, tag("td"))[col]); got != c.want {
				t.Errorf("judged cell %q, want %q", got, c.want)
			}
		}
		// The ranked table too, as the text summary's, with the legend.
		ranked := byID(t, doc, "ranked-rows")
		has := strings.Contains(text(find(ranked, tag("thead"))[0]), "judged")
		if has != (c.want != "") || has && !strings.Contains(text(ranked), c.want) {
			t.Errorf("ranked table %q: want a judged column %q only for the judged row", text(ranked), c.want)
		}
	}
}
