package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/audit"
	"github.com/ropgen/ropgen/perf/record"
)

const ncuDir = "../../testdata/ncu"

// writeRecords writes records as JSON lines and returns the file.
func writeRecords(t *testing.T, recs ...record.Record) string {
	t.Helper()
	var buf bytes.Buffer
	w := record.NewJSONWriter(&buf)
	for _, r := range recs {
		r.Device, r.Roof = "NVIDIA H200", "vector.fp32"
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

var (
	relu = record.Record{Op: "ReluFwd", Workload: "mid", DType: "float32", Bytes: 2 * 4194304}
	gemm = record.Record{Op: "GemmFwd", Workload: "llama3-8b-decode-oproj", DType: "bfloat16", Bytes: (4096 + 4096*4096 + 4096) * 2}
)

func TestAuditCommandNCU(t *testing.T) {
	recs := writeRecords(t, relu, gemm)
	code, out, errs := runCmd("audit", "-records", recs, "-ncu", filepath.Join(ncuDir, "details.csv"))
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
	}
	for _, want := range []string{"ReluFwd", "8388608", "8389632", "1.0001", "PASS", "2 rows: 2 PASS, 0 WARN, 0 FAIL, 0 ERROR"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The fill kernel ran outside every range, and the softmax call has no record here.
	if !strings.Contains(errs, `note: measured call "SoftmaxFwd:decode:bfloat16" (2 kernel launches) matches no record`) ||
		!strings.Contains(errs, "FillFunctor") {
		t.Errorf("stderr lacks the unclaimed calls:\n%s", errs)
	}

	overcount := relu
	overcount.Bytes *= 2
	recs = writeRecords(t, overcount, gemm)
	code, out, _ = runCmd("audit", "-records", recs, "-ncu", filepath.Join(ncuDir, "raw.csv"), "-json")
	if code != 1 {
		t.Errorf("2x overcount: exit %d, want 1", code)
	}
	var res audit.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out)
	}
	if len(res.Rows) != 2 || res.Rows[0].Verdict != audit.Fail || res.Rows[1].Verdict != audit.Pass {
		t.Errorf("-json rows = %+v, want FAIL then PASS", res.Rows)
	}
}

func TestAuditCommandErrors(t *testing.T) {
	recs := writeRecords(t, record.Record{Op: "AddFwd", Workload: "mid", DType: "float32", Bytes: 3 * 4194304})
	code, out, _ := runCmd("audit", "-records", recs, "-ncu", filepath.Join(ncuDir, "missing.csv"))
	if code != 1 || !strings.Contains(out, "ERROR") || !strings.Contains(out, "dram__bytes_write.sum is n/a") {
		t.Errorf("missing metric: exit %d, want 1 with an ERROR row:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"audit", "-ncu", "x.csv"},
		{"audit", "-records", recs},
		{"audit", "-records", recs, "-ncu", "x.csv", "-cachegrind", "d"},
		{"audit", "-records", recs, "-ncu", "x.csv", "-eps", "1.5"},
		{"audit", "-records", recs, "-ncu", "x.csv", "extra"},
	} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if code, _, errs := runCmd("audit", "-records", recs, "-ncu", "no/such.csv"); code != 1 || !strings.Contains(errs, "no/such.csv") {
		t.Errorf("unreadable ncu file: exit %d, stderr %q", code, errs)
	}
	// An empty records file printed "0 rows" and exited 0, where report exits 1 (issue 40
	// item 15).
	empty := filepath.Join(t.TempDir(), "empty.txt")
	os.WriteFile(empty, nil, 0o666)
	if code, out, errs := runCmd("audit", "-records", empty, "-ncu", filepath.Join(ncuDir, "details.csv")); code != 1 || !strings.Contains(errs, "no records to audit in "+empty) || out != "" {
		t.Errorf("empty records: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// The read side takes the output sizes from the catalog's manifest: GemmFwd's c is [M, N],
// declared, so the formula's reads are its bytes minus 1 × 4096 bfloat16.
func TestAuditCommandReads(t *testing.T) {
	recs := writeRecords(t, gemm)
	raw := filepath.Join(ncuDir, "raw_reads.csv")
	if code, out, _ := runCmd("audit", "-records", recs, "-ncu", raw); code != 1 || !strings.Contains(out, "ERROR") {
		t.Errorf("total side without a write column: exit %d, want 1 with ERROR:\n%s", code, out)
	}
	code, out, errs := runCmd("audit", "-records", recs, "-ncu", raw, "-reads", "-manifests", "../../manifest")
	if code != 0 {
		t.Fatalf("read side: exit %d, want 0\n%s%s", code, out, errs)
	}
	want := strings.Fields("GemmFwd llama3-8b-decode-oproj bfloat16 reads 33562624 33566720 1.0001 PASS")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "GemmFwd") {
			if got := strings.Fields(line); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("row %q, want %q", got, want)
			}
			return
		}
	}
	t.Errorf("no GemmFwd row:\n%s", out)
}
