package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/audit"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// TestReportChartAuditAndFamilies: -audit draws the achieved intensity of the audited rows;
// op families come from the module's manifests (AddFwd is elementwise, GemmFwd gemm); a bad
// audit file is named at its line and column.
func TestReportChartAuditAndFamilies(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o666)
	var recs []record.Record
	for i, w := range []string{"a", "b", "c", "d", "e", "f"} {
		recs = append(recs, labRecord(w, int64(1_200_000_000>>i), 3e-3/float64(int(1)<<i)))
		g := labRecord(w, int64(1_200_000_000>>i), 6e-3/float64(int(1)<<i))
		g.Op, g.Flops = "GemmFwd", g.Bytes*4
		recs = append(recs, g)
	}
	records := writeBenchRecords(t, dir, "new.txt", recs...)
	res := audit.Result{Rows: []audit.Row{
		{Op: "AddFwd", Workload: "a", DType: "float32", Side: "total", Formula: 1_200_000_000, Measured: 2_400_000_000, Ratio: 2, Launches: 1, Verdict: audit.Warn},
		{Op: "AddFwd", Workload: "b", DType: "float32", Side: "reads", Formula: 400_000_000, Measured: 400_000_000, Ratio: 1, Launches: 1, Verdict: audit.Pass},
	}}
	data, _ := json.MarshalIndent(res, "", "  ")
	auditFile := filepath.Join(dir, "audit.json")
	os.WriteFile(auditFile, data, 0o666)
	svg := filepath.Join(dir, "chart.svg")

	code, _, errs := runReportCmd(t, "-profile", prof, "-audit", auditFile, "-svg", svg, records)
	if code != 0 || !strings.Contains(errs, "no total traffic for AddFwd/b/float32 (audited on the reads side only)") {
		t.Fatalf("exit %d, stderr %q; want 0 and a note on the read-side row", code, errs)
	}
	chart, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(chart), `class="achieved"`); n != 1 || !strings.Contains(string(chart), "2.0× bytes") {
		t.Errorf("%d achieved points, want AddFwd/a's at 2.0× bytes", n)
	}
	// Two families, two shapes: AddFwd's differ from GemmFwd's.
	shape := map[string]string{}
	for _, m := range regexp.MustCompile(`<path class="point" d="M[-0-9.]+ [-0-9.]+([^"]*)"[^>]*><title>([A-Za-z]+)/`).FindAllStringSubmatch(string(chart), -1) {
		shape[m[2]] = m[1]
	}
	if len(shape) != 2 || shape["AddFwd"] == shape["GemmFwd"] || !strings.Contains(string(chart), "family elementwise") || !strings.Contains(string(chart), "family gemm") {
		t.Errorf("shapes %v: want one per family, and the legend naming elementwise and gemm", shape)
	}

	os.WriteFile(auditFile, []byte("{\n  \"rows\": [\n    {\"op\": 3}\n  ]\n}\n"), 0o666)
	if code, _, errs := runReportCmd(t, "-profile", prof, "-audit", auditFile, "-svg", svg, records); code != 1 || !strings.Contains(errs, auditFile+":3:") {
		t.Errorf("bad audit file: exit %d, stderr %q; want 1 and its line", code, errs)
	}
	if code, _, _ := runReportCmd(t, "-profile", prof, "-audit", auditFile, "-svg", auditFile, records); code != 2 {
		t.Errorf("-svg over the -audit file: exit %d, want 2", code)
	}
}

// TestReportAuditMarksRows: -audit, with or without a chart, marks the rows whose formula the
// audit judged: a FAIL is a formula error, never at ceiling, whatever its timing (AddFwd/a
// runs at its ceiling), and the report exits 1; a PASS row keeps its verdict; an ERROR row
// judged nothing; stderr counts the audited rows.
func TestReportAuditMarksRows(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o666)
	var recs []record.Record
	for i, w := range []string{"a", "b", "c"} {
		// 92% of the profile's effective 1e12 B/s.
		recs = append(recs, labRecord(w, int64(1_200_000_000>>i), 1.3e-3/float64(int(1)<<i)))
	}
	records := writeBenchRecords(t, dir, "new.txt", recs...)
	price := func() map[string]string {
		t.Helper()
		code, out, errs := runReportCmd(t, "-profile", prof, "-json", records)
		if code != 0 {
			t.Fatalf("without -audit: exit %d %s", code, errs)
		}
		return verdictsOf(t, out)
	}
	before := price()
	if before["AddFwd/a/float32"] != string(report.AtCeiling) {
		t.Fatalf("AddFwd/a reads %q without the audit; the test needs it at ceiling", before["AddFwd/a/float32"])
	}
	res := audit.Result{Rows: []audit.Row{
		{Op: "AddFwd", Workload: "a", DType: "float32", Side: "total", Formula: 1_200_000_000, Measured: 400_000_000, Ratio: 0.33, Launches: 1, Verdict: audit.Fail, Note: "the formula counts bytes it never moves (an overcount)"},
		{Op: "AddFwd", Workload: "b", DType: "float32", Side: "total", Formula: 600_000_000, Measured: 600_000_000, Ratio: 1, Launches: 1, Verdict: audit.Pass},
		{Op: "AddFwd", Workload: "c", DType: "float32", Side: "total", Formula: 300_000_000, Verdict: audit.Error},
	}}
	data, _ := json.MarshalIndent(res, "", "  ")
	auditFile := filepath.Join(dir, "audit.json")
	os.WriteFile(auditFile, data, 0o666)
	code, out, errs := runReportCmd(t, "-profile", prof, "-audit", auditFile, "-json", records)
	if code != 1 || !strings.Contains(errs, "-audit: 2 of 3 rows audited: 1 PASS, 0 WARN, 1 FAIL") {
		t.Errorf("exit %d, stderr %q; want 1 and the count", code, errs)
	}
	got := verdictsOf(t, out)
	if got["AddFwd/a/float32"] != string(report.FormulaError) || got["AddFwd/b/float32"] != before["AddFwd/b/float32"] || got["AddFwd/c/float32"] != before["AddFwd/c/float32"] {
		t.Errorf("verdicts %v, want a formula error for a, b and c as before (%v)", got, before)
	}
	if !strings.Contains(out, "bytes audit FAIL (0.33x the formula, total side): the formula counts bytes it never moves") || !strings.Contains(out, "bytes audit PASS (1.00x") {
		t.Errorf("the rows' notes do not say the audit's verdicts:\n%s", out)
	}
	// The summaries a person reads, the text one and the pull-request comment, say how many
	// ranked rows were audited.
	md := filepath.Join(dir, "summary.md")
	_, out, _ = runReportCmd(t, "-profile", prof, "-audit", auditFile, "-summary", "-md", md, records)
	comment, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`bytes audit: 2 of [0-9]+ ranked rows audited \(1 PASS, 0 WARN, 1 FAIL; a FAIL row reads formula error\)`)
	if !line.MatchString(out) || !line.Match(comment) {
		t.Errorf("a summary lacks the audit line %s:\n%s\n%s", line, out, comment)
	}
}

// verdictsOf reads op/workload/dtype -> verdict from report -json output.
func verdictsOf(t *testing.T, out string) map[string]string {
	t.Helper()
	var doc struct {
		Rows []struct {
			Op, Workload, DType, Verdict string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	m := map[string]string{}
	for _, r := range doc.Rows {
		m[r.Op+"/"+r.Workload+"/"+r.DType] = r.Verdict
	}
	return m
}
