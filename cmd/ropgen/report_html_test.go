package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/record"
)

// TestReportHTMLAndCompare: -html, -md and -base end to end. The base run has six records of
// two rows; the new run slows "big" by half and leaves "small" as it was.
func TestReportHTMLAndCompare(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o666)
	var old, new []record.Record
	for i := range 6 {
		jitter := 1 + (float64(i)-2.5)/100 // median 1
		// big at 96% of SOL in the base, its slowest record still above 80%: at ceiling.
		old = append(old, labRecord("big", 1_200_000_000, 1.25e-3*jitter), labRecord("small", 1_200_000_000, 3e-3*jitter))
		new = append(new, labRecord("big", 1_200_000_000, 1.875e-3*jitter), labRecord("small", 1_200_000_000, 3e-3*jitter*1.005))
	}
	oldFile := writeBenchRecords(t, dir, "old.txt", old...)
	newFile := writeBenchRecords(t, dir, "new.txt", new...)
	page, md := filepath.Join(dir, "r.html"), filepath.Join(dir, "r.md")

	code, out, errs := runReportCmd(t, "-profile", prof, "-base", oldFile, "-html", page, "-md", md, newFile)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "row ") || !strings.Contains(lines[1], "AddFwd/big/float32") ||
		!strings.Contains(lines[1], "+50.0%") || !strings.Contains(lines[1], "at ceiling → below") || !strings.Contains(lines[2], "~ (+0.5%)") ||
		!strings.HasPrefix(lines[3], "2 rows: 0 faster, 1 slower, 1 unchanged") {
		t.Errorf("comparison: six records a row are one row, big is slower, small unchanged:\n%s", out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// The chart draws big's move, slower: a base point and a red arrow.
	for _, want := range []string{"<!DOCTYPE html>", `id="deltas"`, `<svg xmlns="http://www.w3.org/2000/svg"`, "AddFwd", oldFile, newFile,
		"ropgen report -profile " + prof, `class="base-point"`, `class="arrow" d="`} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if !regexp.MustCompile(`class="arrow" d="[^"]*" stroke="#cf222e"`).Match(html) {
		t.Errorf("the chart's arrow for big, slower, is not red")
	}
	summary, _ := os.ReadFile(md)
	if !bytes.Contains(summary, []byte("Changed verdict (1 row)")) || !bytes.Contains(summary, []byte("| AddFwd/big/float32 |")) {
		t.Errorf("markdown:\n%s", summary)
	}

	// One run alone: the table has one row per row, not per record.
	code, out, _ = runReportCmd(t, "-profile", prof, newFile)
	if code != 0 || strings.Count(out, "AddFwd") != 2 {
		t.Errorf("exit %d; twelve records of two rows should be two rows:\n%s", code, out)
	}

	// No output over an input, base files included.
	for _, args := range [][]string{
		{"-profile", prof, "-base", oldFile, "-html", oldFile, newFile},
		{"-profile", prof, "-md", newFile, newFile},
		{"-profile", prof, "-base", oldFile, "-json", "-o", oldFile, newFile},
	} {
		before, _ := os.ReadFile(oldFile)
		if code, _, errs := runReportCmd(t, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2", args, code, errs)
		}
		if after, _ := os.ReadFile(oldFile); !bytes.Equal(before, after) {
			t.Errorf("%v changed a records file", args)
		}
	}
}

func TestCommandLineQuotes(t *testing.T) {
	if got := commandLine([]string{"-html", "a b.html", "it's.txt", "x"}); got != `ropgen report -html 'a b.html' 'it'\''s.txt' x` {
		t.Errorf("commandLine: %s", got)
	}
}

// TestReportCompareJSONAndCSV: -base with -json or -csv writes the compared rows: per row the
// old and new time, the change, its p-value and whether it is significant.
func TestReportCompareJSONAndCSV(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o666)
	var old, new []record.Record
	for i := range 6 {
		jitter := 1 + (float64(i)-2.5)/100
		old = append(old, labRecord("big", 1_200_000_000, 1.25e-3*jitter), labRecord("small", 1_200_000_000, 3e-3*jitter))
		new = append(new, labRecord("big", 1_200_000_000, 1.875e-3*jitter), labRecord("small", 1_200_000_000, 3e-3*jitter*1.005))
	}
	oldFile := writeBenchRecords(t, dir, "old.txt", old...)
	newFile := writeBenchRecords(t, dir, "new.txt", new...)

	code, out, errs := runReportCmd(t, "-profile", prof, "-base", oldFile, "-json", newFile)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var doc struct {
		Summary string `json:"summary"`
		Slower  int    `json:"slower"`
		Rows    []struct {
			Workload       string   `json:"workload"`
			Change         string   `json:"change"`
			Significant    bool     `json:"significant"`
			OldSeconds     float64  `json:"old_seconds"`
			NewSeconds     float64  `json:"new_seconds"`
			OldN           int      `json:"old_n"`
			Delta          float64  `json:"delta"`
			P              *float64 `json:"p"`
			OldVerdict     string   `json:"old_verdict"`
			NewVerdict     string   `json:"new_verdict"`
			NewPos         struct{ File string }
			OldEfficiency  float64 `json:"old_efficiency"`
			EfficiencyDiff float64 `json:"efficiency_delta"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-base -json is not JSON: %v\n%s", err, out)
	}
	if !strings.Contains(doc.Summary, "Mann-Whitney U") || doc.Slower != 1 || len(doc.Rows) != 2 {
		t.Fatalf("comparison document %+v, want the summary naming the test, 1 slower, 2 rows", doc)
	}
	big, small := doc.Rows[0], doc.Rows[1]
	if big.Workload != "big" || big.Change != "slower" || !big.Significant || big.OldN != 6 || big.P == nil || *big.P >= 0.05 ||
		math.Abs(big.Delta-0.5) > 1e-9 || math.Abs(big.NewSeconds/big.OldSeconds-1.5) > 1e-9 ||
		big.OldVerdict != "at ceiling" || big.NewVerdict != "below" || big.EfficiencyDiff >= 0 {
		t.Errorf("big: %+v; want slower by 50%%, significant, at ceiling → below", big)
	}
	if small.Change != "~" || small.Significant || math.Abs(small.Delta-0.005) > 1e-9 {
		t.Errorf("small: %+v; want unchanged, +0.5%%", small)
	}

	code, out, errs = runReportCmd(t, "-profile", prof, "-base", oldFile, "-csv", newFile)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	all, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(all) != 3 {
		t.Fatalf("-base -csv: %v, %d lines, want a header and 2 rows:\n%s", err, len(all), out)
	}
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	for _, k := range []string{"old_seconds", "new_seconds", "delta", "p", "significant", "change"} {
		if _, ok := col[k]; !ok {
			t.Fatalf("CSV header %v lacks %q", all[0], k)
		}
	}
	if r := all[1]; r[col["change"]] != "slower" || r[col["significant"]] != "true" || r[col["delta"]] != strconv.FormatFloat(big.Delta, 'g', -1, 64) {
		t.Errorf("CSV row %v, want big slower and significant with the JSON's delta", r)
	}
}
