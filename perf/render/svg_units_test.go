package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// unitsProfile is a host profile as calibrate writes it on a CPU with AVX512-BF16/FP16 and
// VNNI but no AMX: the matrix role of each dtype at its SIMD unit (equal numbers), int8 in
// the matrix role only.
const unitsProfile = `
device: "cpu: Test"
hbm: {theoretical: 4.0e+10, calibration: 0.5}
vector:
  fp32: {theoretical: 4.0e+11, calibration: 0.5}
  bf16: {theoretical: 8.0e+11, calibration: 0.5}
  fp16: {theoretical: 8.0e+11, calibration: 0.9}
cube:
  fp32: {theoretical: 4.0e+11, calibration: 0.5}
  bf16: {theoretical: 8.0e+11, calibration: 0.5}
  fp16: {theoretical: 8.0e+11, calibration: 0.9}
  int8: {theoretical: 1.6e+12, calibration: 0.9}
`

// The chart draws every unit's roof, the matrix and vector keys of one unit as one line in
// the host's words (RoofName: vector.<dtype>, since no matrix unit fills them); a bf16 GEMM
// is priced at cube.bf16 (no fp32 fallback, no note) and its roof drawn as used. With AMX
// (the note calibrate writes) the matrix roof is a line of its own.
func TestSVGLowPrecisionRoofs(t *testing.T) {
	prof, err := profiles.Parse("host.yaml", []byte(unitsProfile))
	if err != nil {
		t.Fatal(err)
	}
	if key, note := report.RoofFor(prof, "cube.bf16"); key != "cube.bf16" || note != "" {
		t.Errorf("RoofFor(cube.bf16) = %q, %q; want the key itself", key, note)
	}
	recs := []record.Record{{Device: "cpu: Test", Op: "GemmFwd", Workload: "w", DType: "bfloat16", Roof: "cube.bf16", Flops: 1 << 34, Bytes: 1 << 24, Seconds: 0.1, Iters: 1}}
	c := writeChart(t, prof, profiles.Effective, recs)
	roofs := c.of("roof")
	slices.Sort(roofs)
	want := []string{"vector.bf16 400 GFLOP/s", "vector.fp16 720 GFLOP/s", "vector.fp32 200 GFLOP/s", "vector.int8 1.44 TFLOP/s"}
	if strings.Join(roofs, "|") != strings.Join(want, "|") {
		t.Errorf("roof labels %q, want %q", roofs, want)
	}
	if len(c.lines["roof"]) != 1 || len(c.lines["roof unused"]) != 3 {
		t.Errorf("roof lines %d used, %d unused; want the bf16 one used and 3 faint", len(c.lines["roof"]), len(c.lines["roof unused"]))
	}
	c.checkLayout(t, false)

	amx := strings.Replace(unitsProfile, "  bf16: {theoretical: 8.0e+11, calibration: 0.5}\n  fp16: {theoretical: 8.0e+11, calibration: 0.9}\n  int8",
		"  bf16: {theoretical: 8.0e+12, calibration: 0.5, note: \"matrix role filled by the matrix unit (amx bf16)\"}\n  fp16: {theoretical: 8.0e+11, calibration: 0.9}\n  int8", 1)
	if prof, err = profiles.Parse("host.yaml", []byte(amx)); err != nil {
		t.Fatal(err)
	}
	c = writeChart(t, prof, profiles.Effective, recs)
	if roofs := c.of("roof"); !slices.Contains(roofs, "matrix.bf16 4.00 TFLOP/s") || !slices.Contains(roofs, "vector.bf16 400 GFLOP/s") {
		t.Errorf("with AMX, roof labels %q; want matrix.bf16 apart from vector.bf16", roofs)
	}
}
