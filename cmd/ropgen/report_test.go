package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/record"
)

// reportProfile: 1 TB/s effective memory (of 2 theoretical), 1 TFLOP/s effective vector.fp32
// (of 2), latency floor 1 µs.
const reportProfile = `device: "Lab Device"
hbm: {theoretical: 2.0e12, calibration: 0.5}
vector:
  fp32: {theoretical: 2.0e12, calibration: 0.5}
latency_floor: 1.0e-6
`

// writeBenchRecords writes recs in benchmark format to dir/name and returns the path.
func writeBenchRecords(t *testing.T, dir, name string, recs ...record.Record) string {
	t.Helper()
	var buf bytes.Buffer
	w := record.NewBenchWriter(&buf)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

func labRecord(workload string, bytes int64, secs float64) record.Record {
	return record.Record{Device: "Lab Device", Op: "AddFwd", Workload: workload, DType: "float32", Roof: "vector.fp32",
		Flops: bytes / 12, Bytes: bytes, Seconds: secs, Iters: 10}
}

func runReportCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"report"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o666)
	// 1.2 GB at 1 TB/s is 1.2 ms of SOL time: 1.5 ms is 80%, at ceiling.
	good := writeBenchRecords(t, dir, "good.txt", labRecord("big", 1_200_000_000, 1.5e-3), labRecord("small", 1200, 0.5e-6))
	// 2.4 GB in 1 ms is 2.4 TB/s, above the 2 TB/s theoretical ceiling.
	bad := writeBenchRecords(t, dir, "bad.txt", labRecord("big", 1_200_000_000, 1.5e-3), labRecord("inflated", 2_400_000_000, 1e-3))

	t.Run("clean", func(t *testing.T) {
		code, out, errs := runReportCmd(t, "-profile", prof, good)
		if code != 0 || errs != "" {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
		if !regexp.MustCompile(` 80\.0% +memory-bound +at ceiling\n`).MatchString(out) || !strings.Contains(out, "latency-bound") {
			t.Errorf("table:\n%s", out)
		}
	})
	// Issue 23 item 12: a flag after the records was read as a records file, the prices blank.
	t.Run("flag after the records", func(t *testing.T) {
		code, out, errs := runReportCmd(t, good, "-profile", prof)
		if code != 0 || errs != "" || !regexp.MustCompile(` 80\.0% +memory-bound +at ceiling\n`).MatchString(out) {
			t.Errorf("exit %d, stderr %q, table:\n%s", code, errs, out)
		}
		if code, _, errs := runReportCmd(t, "-profile", prof, "-o", "", good); code != 2 || !strings.Contains(errs, "-o '': an empty file name") {
			t.Errorf("-o '': exit %d, stderr %q", code, errs)
		}
		// -profile '' was taken as no -profile, exit 0 (issue 40 item 20).
		if code, _, errs := runReportCmd(t, "-profile", "", good); code != 2 || !strings.Contains(errs, "-profile '': an empty file name") {
			t.Errorf("-profile '': exit %d, stderr %q", code, errs)
		}
	})
	t.Run("physics breach exits 1", func(t *testing.T) {
		code, out, errs := runReportCmd(t, "-profile", prof, bad)
		want := bad + ":7: AddFwd/inflated/float32: formula error: implied 2.40 TB/s is 120.0% of the lab theoretical HBM ceiling (2.00 TB/s)\n"
		if code != 1 || errs != want {
			t.Errorf("exit %d, stderr %q, want %q", code, errs, want)
		}
		if !strings.Contains(out, "formula error") {
			t.Errorf("the table must still be printed:\n%s", out)
		}
	})
	t.Run("no matching profile", func(t *testing.T) {
		code, out, errs := runReportCmd(t, "-csv", good)
		if code != 1 || !strings.Contains(errs, `no device profile matches "Lab Device"; available: `) || !strings.Contains(errs, "h200 (NVIDIA H200)") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) != 3 {
			t.Fatalf("csv %v:\n%s", err, out)
		}
		// Every SOL cell blank: memory_time through verdict.
		from, to := slices.Index(rows[0], "memory_time"), slices.Index(rows[0], "verdict")
		if from < 0 || to < from {
			t.Fatalf("header %v", rows[0])
		}
		for _, row := range rows[1:] {
			for j := from; j <= to; j++ {
				if row[j] != "" {
					t.Errorf("column %s = %q, want blank", rows[0][j], row[j])
				}
			}
		}
	})
	t.Run("json and svg", func(t *testing.T) {
		svg := filepath.Join(dir, "chart.svg")
		code, out, errs := runReportCmd(t, "-profile", prof, "-json", "-svg", svg, good)
		if code != 0 || errs != "" || !strings.HasPrefix(out, `{"basis":"effective","devices":[{"device":"Lab Device","profile":"lab"`) {
			t.Fatalf("exit %d, stderr %q, stdout %.200s", code, errs, out)
		}
		data, err := os.ReadFile(svg)
		if err != nil || !bytes.HasPrefix(data, []byte("<svg")) || bytes.Count(data, []byte(`class="point"`)) != 2 {
			t.Errorf("chart: %v\n%.300s", err, data)
		}
	})
	// -svg naming one of the record files (by any name) is refused, and the records stay.
	t.Run("svg over an input", func(t *testing.T) {
		before, _ := os.ReadFile(good)
		for _, svg := range []string{good, dir + "/./good.txt"} {
			code, out, errs := runReportCmd(t, "-profile", prof, "-svg", svg, good)
			after, _ := os.ReadFile(good)
			if code != 2 || !strings.Contains(errs, "refusing to write") || out != "" || !bytes.Equal(before, after) {
				t.Errorf("-svg %s: exit %d, stderr %q, records changed: %v", svg, code, errs, !bytes.Equal(before, after))
			}
		}
	})
	t.Run("what-if profile is noted", func(t *testing.T) {
		// h200 has no vector.fp32 ceiling: the rows are unpriced, and the exit status says so.
		code, _, errs := runReportCmd(t, "-profile", "h200", good)
		if code != 4 || !strings.Contains(errs, `device "Lab Device" does not match profile h200`) || !strings.Contains(errs, "2 of 2 rows unpriced (their notes say why): exit 4") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
	t.Run("unreadable record", func(t *testing.T) {
		broken := filepath.Join(dir, "broken.txt")
		os.WriteFile(broken, []byte("device: d\nroof: vector.fp32\n\nBenchmarkRoofline/op=A/workload=w/dtype=float32 1 1 sec/op\n"), 0o666)
		code, _, errs := runReportCmd(t, "-profile", prof, broken, good)
		if code != 1 || !strings.Contains(errs, broken+":4: Roofline/op=A/workload=w/dtype=float32: no roof-flops/op value") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
	for name, args := range map[string][]string{
		"json and csv":    {"-json", "-csv", good},
		"no files":        {"-profile", prof},
		"unknown profile": {"-profile", "nosuch", good},
		"unknown basis":   {"-basis", "hopeful", good},
	} {
		t.Run("usage: "+name, func(t *testing.T) {
			if code, _, errs := runReportCmd(t, args...); code != 2 || errs == "" {
				t.Errorf("exit %d, stderr %q; want 2 and a message", code, errs)
			}
		})
	}
}

// TestReportHostProfile: -profile host is the module's out/host.yaml, found from any
// directory of the module; without one it says how to calibrate. Records of a CPU no profile
// prices get one message saying the same, not one per row.
func TestReportHostProfile(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module lab\n"), 0o666)
	sub := filepath.Join(root, "pkg")
	os.MkdirAll(sub, 0o777)
	row := labRecord("big", 1_200_000_000, 1.5e-3)
	row.Device = "cpu: Lab CPU"
	recs := writeBenchRecords(t, root, "recs.txt", row, row)
	t.Chdir(sub)

	code, _, errs := runReportCmd(t, "-profile", "host", recs)
	if code != 2 || !strings.Contains(errs, "no calibrated host profile "+filepath.Join(root, "out", "host.yaml")) ||
		!strings.Contains(errs, "ropgen calibrate -o out/host.yaml") {
		t.Errorf("no host profile: exit %d, stderr %q", code, errs)
	}
	code, out, errs := runReportCmd(t, recs)
	if code != 1 || strings.Count(errs, "ropgen calibrate -o out/host.yaml") != 1 || strings.Count(out, "ropgen calibrate") != 1 ||
		!strings.Contains(errs, "-profile host") {
		t.Errorf("no profile matches: exit %d, stdout\n%s\nstderr %q", code, out, errs)
	}

	os.MkdirAll(filepath.Join(root, "out"), 0o777)
	os.WriteFile(filepath.Join(root, "out", "host.yaml"), []byte("device: \"cpu: Lab CPU\"\nhbm: {theoretical: 2.0e12, calibration: 0.5}\nvector:\n  fp32: {theoretical: 2.0e12, calibration: 0.5}\n"), 0o666)
	code, out, errs = runReportCmd(t, "-profile", "host", recs)
	if code != 0 || errs != "" || !strings.Contains(out, "profile host ("+filepath.Join(root, "out", "host.yaml")+")") {
		t.Errorf("host profile: exit %d, stdout\n%s\nstderr %q", code, out, errs)
	}
}

// TestReportSummaryAndCheck: -summary prints the short report with -o taking the table to a
// file; -check exits 3 for a profile from another boot or a drifted copy reference.
func TestReportSummaryAndCheck(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "host.yaml")
	os.WriteFile(prof, []byte(`device: "cpu: Lab CPU"
hbm:
  theoretical: 2.0e12
  calibration: 0.5
  calibration_mixes: {copy: 0.5}
  mix_spreads: {copy: {min: 0.95e12, median: 0.98e12, max: 1.0e12, n: 5}}
  spread: {min: 0.95e12, median: 0.98e12, max: 1.0e12, n: 5}
vector:
  fp32: {theoretical: 2.0e12, calibration: 0.5}
measured: {at: "2026-12-01T08:00:00Z", boot_id: "boot-a", loadavg: 0.5, cores: 2}
latency_floor: 1.0e-6
`), 0o666)
	row := labRecord("big", 1_200_000_000, 1.5e-3)
	row.Device = "cpu: Lab CPU"
	ref := func(when string, rate float64) record.Record {
		return record.Record{Device: "cpu: Lab CPU", Op: record.RefCopy, Workload: when, DType: "float64", Roof: "hbm",
			Bytes: 1 << 30, Seconds: (1 << 30) / rate, Iters: 5}
	}
	fresh := writeBenchRecords(t, dir, "fresh.txt", ref(record.RefStart, 0.99e12), row, ref(record.RefEnd, 0.98e12))
	drifted := writeBenchRecords(t, dir, "drifted.txt", ref(record.RefStart, 0.99e12), row, ref(record.RefEnd, 0.5e12))
	boot := filepath.Join(dir, "boot_id")
	t.Cleanup(func() { bootIDFile = "/proc/sys/kernel/random/boot_id" })
	bootIDFile = boot

	table := filepath.Join(dir, "report.txt")
	code, out, errs := runReportCmd(t, "-profile", prof, "-summary", "-o", table, fresh)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"  DRAM ", "spread 950 G .. 1.00 TB/s (n=5, 5.1%)", "kernels ranked by the time they lose against their roof",
		"AddFwd/big/float32", "at ceiling", "1 row: 1 at ceiling", "drift references of the run in " + fresh + ":\n  copy reference at start", "\n  copy reference at end: 980 GB/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if data, err := os.ReadFile(table); err != nil || !strings.Contains(string(data), "op      workload") {
		t.Errorf("-o table: %v\n%s", err, data)
	}

	for _, c := range []struct {
		name, boot string
		files      []string
		code       int
		want       string
	}{
		{"same boot, no records", "boot-a", nil, 0, ""},
		{"another boot", "boot-b", nil, 3, "measured on another boot"},
		{"fresh references", "boot-a", []string{fresh}, 0, "within the profile's spread"},
		{"drifted reference", "boot-a", []string{drifted}, 3, "DRIFTED"},
	} {
		os.WriteFile(boot, []byte(c.boot+"\n"), 0o666)
		code, out, errs := runReportCmd(t, append([]string{"-check", "-profile", prof}, c.files...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q", c.name, code, c.code, out, errs)
		}
	}
	// A drifted run still prices, and warns on stderr.
	if code, _, errs := runReportCmd(t, "-profile", prof, drifted); code != 0 || !strings.Contains(errs, "warning: copy reference at end") {
		t.Errorf("drifted report: exit %d, stderr %q", code, errs)
	}
}
