package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// implRecs are two cases timed by ropgen (no impl key: its own) and by torch; torch is 4x
// slower on case a, every sample apart, and about as fast on case b, samples overlapping.
func implRecs() []record.Record {
	mk := func(impl, workload string, secs, lo, hi float64) record.Record {
		r := reporttest.Rec("vector.fp32", 0, 1<<30, secs)
		r.Impl, r.Workload, r.MinSeconds, r.MaxSeconds = impl, workload, lo, hi
		return r
	}
	return []record.Record{
		mk("torch", "a", 0.04, 0.035, 0.05),
		mk("", "a", 0.01, 0.009, 0.012),
		mk("", "b", 0.01, 0.009, 0.012),
		mk("torch", "b", 0.011, 0.01, 0.013),
	}
}

func TestSideBySide(t *testing.T) {
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	_, rows := report.PriceRun(p, implRecs())
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4: two implementations never pool", len(rows))
	}
	s := SideBySide(rows)
	if s == nil || len(s.Impls) != 2 || s.Impls[0] != "ropgen" || len(s.Sides) != 2 {
		t.Fatalf("sides %+v: want ropgen first (the base of the ratios), then torch, over 2 cases", s)
	}
	qa, qb := s.Sides[0].RatioOf(1), s.Sides[1].RatioOf(1)
	tLo, tHi, oLo, oHi := 0.035, 0.05, 0.009, 0.012 // variables: the quotients rounded as at run time
	if qa.Ratio != 4 || !qa.Apart || qa.Low != tLo/oHi || qa.High != tHi/oLo {
		t.Errorf("case a: %+v, want torch 4x, apart, range 0.035/0.012 to 0.05/0.009", qa)
	}
	if qb.Apart {
		t.Errorf("case b: %+v: its samples overlap", qb)
	}
	if both, base, other, overlap := s.Tally(1); both != 2 || base != 1 || other != 0 || overlap != 1 {
		t.Errorf("tally %d %d %d %d, want 2 in both, ropgen faster on 1, overlap 1", both, base, other, overlap)
	}

	var txt bytes.Buffer
	if err := WriteTable(&txt, p, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"implementations side by side", "torch/ropgen", "4.00x (2.92-5.56)",
		"torch against ropgen: 2 cases in both; ropgen faster on 1, torch faster on 0"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, txt.String())
		}
	}
	if !strings.HasPrefix(strings.Split(txt.String(), "\n")[1], "impl ") {
		t.Errorf("the main table has no impl column:\n%s", txt.String())
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, p, rows); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Impls []string `json:"impls"`
		Sides []struct {
			Workload string `json:"workload"`
			Impls    []struct {
				Impl  string `json:"impl"`
				Ratio *struct {
					Ratio float64 `json:"ratio"`
					Apart bool    `json:"apart"`
				} `json:"time_ratio"`
			} `json:"impls"`
		} `json:"side_by_side"`
		Rows []struct {
			Impl string `json:"impl"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, js.String())
	}
	if len(doc.Sides) != 2 || doc.Sides[0].Impls[1].Ratio == nil || doc.Sides[0].Impls[1].Ratio.Ratio != 4 || doc.Sides[0].Impls[0].Ratio != nil {
		t.Errorf("side_by_side: %+v", doc.Sides)
	}
	if doc.Rows[0].Impl != "torch" || doc.Rows[1].Impl != "ropgen" {
		t.Errorf("rows' impl: %+v", doc.Rows)
	}
}

// One implementation: no side-by-side table, no impl column; the output is as before.
func TestOneImplementationNoSides(t *testing.T) {
	p, rows := sampleRows(t)
	if SideBySide(rows) != nil {
		t.Fatal("sides of one implementation")
	}
	var txt bytes.Buffer
	if err := WriteTable(&txt, p, rows); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(txt.String(), "side by side") || strings.Contains(txt.String(), "impl ") {
		t.Errorf("one implementation shown as several:\n%s", txt.String())
	}
}

// -base of one implementation against a run of another compares nothing as drift: no row
// pairs across implementations, and the summary says why.
func TestCompareAcrossImplementations(t *testing.T) {
	recs := implRecs()
	var ours, theirs []record.Record
	for _, r := range recs {
		if r.Impl == "" {
			ours = append(ours, r)
		} else {
			theirs = append(theirs, r)
		}
	}
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	os, or := report.PriceRun(p, ours)
	ns, nr := report.PriceRun(p, theirs)
	c := Compare(os, ns, or, nr, DefaultCompare)
	n := Tally(c.Deltas)
	if n[Unchanged]+n[Faster]+n[Slower] != 0 || n[Added] != 2 || n[Removed] != 2 {
		t.Errorf("tally %v: rows of two implementations paired", n)
	}
	if !strings.Contains(c.Summary(), "the base timed ropgen, the new run torch") {
		t.Errorf("summary does not say the runs are different implementations: %s", c.Summary())
	}
	var txt bytes.Buffer
	if err := WriteCompare(&txt, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "torch: Op/a/float32") || !strings.Contains(txt.String(), "ropgen: Op/a/float32") {
		t.Errorf("the table does not name each row's implementation:\n%s", txt.String())
	}
	same := Compare(os, os, or, or, DefaultCompare)
	if same.Impls != "" {
		t.Errorf("same implementation: %q", same.Impls)
	}
}

// The markdown and HTML summaries say how the implementations compare.
func TestSidesInDocuments(t *testing.T) {
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	sampled, rows := report.PriceRun(p, implRecs())
	doc := &Document{Pricer: p, Rows: rows, Sampled: sampled}
	var md, html bytes.Buffer
	if err := WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, doc); err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	if err := WriteSummary(&sum, p, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "torch: Op/a/float32") || !strings.Contains(sum.String(), "ropgen: Op/a/float32") {
		t.Errorf("the summary's ranking does not name each row's implementation:\n%s", sum.String())
	}
	const want = "torch against ropgen: 2 cases in both; ropgen faster on 1"
	for name, out := range map[string]string{"markdown": strings.ReplaceAll(md.String(), `\`, ""), "html": html.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", name, want, out)
		}
	}
}
