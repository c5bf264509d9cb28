package benchcmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/profiles"
)

// TestWritePredictions: the header names the profile and every roof the rows meet (a roof the
// profile cannot price says why, and its rows' cells stay blank), with the ridge of each
// priced compute roof; the table has one row per prediction.
func TestWritePredictions(t *testing.T) {
	prof, err := profiles.Parse("test.yaml", []byte("device: testdev\nhbm: {theoretical: 1.0e11, calibration: 0.5}\nvector:\n  fp32: {theoretical: 1.0e12, calibration: 0.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plan := func(op, roof string, flops, bytes int64) bench.Planned {
		return bench.Planned{Case: bench.Case{Case: manifest.Case{Op: op, Label: "w"}, DType: "float32"},
			Flops: flops, Bytes: bytes, Roof: roof}
	}
	preds := []bench.Prediction{
		bench.Predict(plan("AddFwd", "vector.fp32", 1e9, 1e8), prof, profiles.Effective),
		bench.Predict(plan("GemmFwd", "cube.bf16", 1e12, 1e8), prof, profiles.Effective),
		bench.Predict(plan("SubFwd", "vector.fp32", 2e9, 1e8), prof, profiles.Effective),
	}
	var buf bytes.Buffer
	if err := writePredictions(&buf, prof, profiles.Effective, preds); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	// header, hbm, vector.fp32, cube.bf16 (each roof once, in the order met), table head, 3 rows
	if len(lines) != 8 {
		t.Fatalf("%d lines, want 8:\n%s", len(lines), buf.String())
	}
	if !strings.HasPrefix(lines[0], "profile test") || !strings.HasSuffix(lines[0], "effective ceilings") {
		t.Errorf("header %q", lines[0])
	}
	for i, want := range []string{"  hbm ", "  vector.fp32 ", "  cube.bf16 "} {
		if !strings.HasPrefix(lines[1+i], want) {
			t.Errorf("line %d %q, want it to start %q", 2+i, lines[1+i], want)
		}
	}
	// 0.5e12 FLOP/s over 0.5e11 B/s.
	if !strings.Contains(lines[2], "ridge 10.00 FLOP/B") {
		t.Errorf("vector.fp32 line %q has no ridge of 10.00 FLOP/B", lines[2])
	}
	if !strings.Contains(lines[3], "none: ") {
		t.Errorf("cube.bf16 line %q does not say why the profile cannot price it", lines[3])
	}
	if !strings.HasPrefix(lines[4], "op ") || !strings.Contains(lines[4], "attainable") {
		t.Errorf("table head %q", lines[4])
	}
	for i, op := range []string{"AddFwd", "GemmFwd", "SubFwd"} {
		if f := strings.Fields(lines[5+i]); len(f) == 0 || f[0] != op {
			t.Errorf("row %d %q, want op %s", i, lines[5+i], op)
		}
	}
	// The bound column (tabwriter aligns it under its head): AddFwd's 1e8 B at 5e10 B/s and
	// 1e9 FLOP at 5e11 FLOP/s take 2 ms each, so compute-bound (a tie goes to compute);
	// GemmFwd's roof has no ceiling, so no bound.
	col := strings.Index(lines[4], "bound")
	cell := func(row string) string {
		if len(row) <= col {
			return ""
		}
		f := strings.Fields(row[col:])
		if len(f) == 0 {
			return ""
		}
		return f[0]
	}
	if got := cell(lines[5]); got != "compute-bound" {
		t.Errorf("AddFwd bound %q, want compute-bound: %q", got, lines[5])
	}
	if got := cell(lines[6]); strings.HasSuffix(got, "-bound") {
		t.Errorf("GemmFwd states bound %q on a roof the profile cannot price: %q", got, lines[6])
	}
}

// TestPredictCubeFP64OnCPU: a float64 GEMM declares cube.fp64; a CPU profile without that key
// prices it at vector.fp64, and the header says which roof prices the rows, not "none".
func TestPredictCubeFP64OnCPU(t *testing.T) {
	prof, err := profiles.Parse("cpu.yaml", []byte("device: \"cpu: Test CPU\"\nmemory: DRAM\nhbm: {theoretical: 2.0e10, calibration: 0.5}\nvector:\n  fp64: {theoretical: 1.0e11, calibration: 0.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plan := func(flops, bytes int64) bench.Planned {
		return bench.Planned{Case: bench.Case{Case: manifest.Case{Op: "MatMulFwd", Label: "w"}, DType: "float64"},
			Flops: flops, Bytes: bytes, Roof: "cube.fp64"}
	}
	pred := bench.Predict(plan(1<<30, 1<<20), prof, profiles.Effective)
	var buf bytes.Buffer
	if err := writePredictions(&buf, prof, profiles.Effective, []bench.Prediction{pred}); err != nil {
		t.Fatal(err)
	}
	if pred.PricedRoof != "vector.fp64" || pred.Bound != "compute-bound" || !strings.Contains(buf.String(), "cube.fp64 (priced at vector.fp64) 50.0 GFLOP/s") {
		t.Errorf("priced at %q, bound %q:\n%s", pred.PricedRoof, pred.Bound, buf.String())
	}
}
