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
)

// TestReportChartAuditAndFamilies: -audit draws the achieved intensity of the audited rows;
// op families come from the module's manifests (AddFwd is elementwise, GemmFwd gemm); a bad
// audit file is named at its line and column; -audit without a chart is bad usage.
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
	if code, _, errs := runReportCmd(t, "-profile", prof, "-audit", auditFile, records); code != 2 || !strings.Contains(errs, "-svg") {
		t.Errorf("-audit alone: exit %d, stderr %q; want 2", code, errs)
	}
	if code, _, _ := runReportCmd(t, "-profile", prof, "-audit", auditFile, "-svg", auditFile, records); code != 2 {
		t.Errorf("-svg over the -audit file: exit %d, want 2", code)
	}
}
