package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
)

// TestTablesThatFit: the text table abbreviates a mixed dtype label and says so; -json keeps
// it whole and gives the position as an object, as every ropgen JSON does; an anomaly's note
// says what to do.
func TestTablesThatFit(t *testing.T) {
	mixed := rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)/0.5)
	mixed.DType, mixed.Pos = "q=bfloat16,k=float8_e4m3,v=float8_e4m3", diag.Pos{File: "r.txt", Line: 7}
	fast := rec("vector.fp32", 1<<20, 1<<30, 1.0/(1<<9)/1.5) // 150% of the ceiling
	pr := NewPricer(nil, []*profiles.Profile{testProfile(t)}, "")
	rows := pr.PriceAll([]record.Record{mixed, fast})
	if rows[1].Verdict != Anomaly || rows[1].Note != NoteAnomaly {
		t.Errorf("anomaly: verdict %q note %q", rows[1].Verdict, rows[1].Note)
	}
	if rows[0].Note != "" {
		t.Errorf("a row below the ceiling got the note %q", rows[0].Note)
	}

	var tb bytes.Buffer
	if err := WriteTable(&tb, pr, rows); err != nil {
		t.Fatal(err)
	}
	out := tb.String()
	if !strings.Contains(out, "q=bf16,k=f8e4m3,v=f8e4m3 ") || strings.Contains(out, "bfloat16") || !strings.Contains(out, DTypeLegend) {
		t.Errorf("table does not abbreviate the mixed label, or does not say so:\n%s", out)
	}
	if !strings.Contains(out, "recalibrate (ropgen calibrate), or audit the bytes") {
		t.Errorf("table lacks the anomaly's note:\n%s", out)
	}
	tb.Reset()
	if err := WriteTable(&tb, pr, rows[1:]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tb.String(), DTypeLegend) {
		t.Errorf("legend printed with no label abbreviated")
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, pr, rows); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []struct {
			DType string   `json:"dtype"`
			Pos   diag.Pos `json:"pos"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if doc.Rows[0].DType != mixed.DType || doc.Rows[0].Pos != mixed.Pos {
		t.Errorf("JSON row: dtype %q pos %+v, want the full label and {r.txt 7 0}", doc.Rows[0].DType, doc.Rows[0].Pos)
	}
	if !strings.Contains(js.String(), `"pos":{"file":"r.txt","line":7,"col":0}`) {
		t.Errorf("pos is not an object {file,line,col}:\n%s", js.String())
	}
}

// TestRoofNames: a CPU's cube roofs are named for the hardware that fills them: the vector
// pipes (a profile from before the notes said, or one whose note names the SIMD unit), the
// matrix unit where its note says one fills it; a GPU's keys stay as they are.
func TestRoofNames(t *testing.T) {
	parse := func(y string) *profiles.Profile {
		p, err := profiles.Parse("host.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cpu := parse(`
device: "cpu: Test"
hbm: {theoretical: 1.0e+10, calibration: 0.5}
vector:
  fp32: {theoretical: 1.0e+11, calibration: 0.5}
  bf16: {theoretical: 2.0e+11, calibration: 0.5}
cube:
  fp32: {theoretical: 1.0e+11, calibration: 0.5, note: "matrix role filled by the fp32 FMA pipes (the vector.fp32 kernel): a CPU has no fp32 matrix unit"}
  bf16: {theoretical: 2.0e+12, calibration: 0.5, note: "matrix role filled by the matrix unit (amx_bf16 bf16). Theoretical: ..."}
  int8: {theoretical: 7.0e+11, calibration: 0.5, note: "matrix role filled by the int8 SIMD unit (the vector kernel vnni), not by a matrix unit"}
`)
	gpu := parse("device: \"Test GPU\"\nhbm: {theoretical: 1.0e+12, calibration: 0.5}\ncube:\n  bf16: {theoretical: 1.0e+15, calibration: 0.5}\n")
	for _, c := range []struct {
		prof      *profiles.Profile
		key, want string
	}{
		{cpu, "cube.fp32", "vector.fp32"}, {cpu, "cube.bf16", "matrix.bf16"}, {cpu, "cube.int8", "vector.int8"},
		{cpu, "cube.fp16", "vector.fp16"}, {cpu, "vector.fp32", "vector.fp32"}, {gpu, "cube.bf16", "cube.bf16"},
	} {
		if got := RoofName(c.prof, c.key); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.prof.Device, c.key, got, c.want)
		}
	}
	// cube.fp32 is named by vector.fp32 already; cube.int8 has no vector key to stand for it.
	if keys, aliased := ComputeKeys(cpu); strings.Join(keys, " ") != "cube.bf16 cube.int8 vector.bf16 vector.fp32" || !aliased {
		t.Errorf("ComputeKeys: %q, %v", keys, aliased)
	}
	if RateUnit("cube.int8") != "op/s" || RateUnit("vector.fp32") != "FLOP/s" {
		t.Error("RateUnit: int8 in op/s, fp32 in FLOP/s")
	}
	if !HasMatrixUnit(cpu) || !HasMatrixUnit(gpu) {
		t.Error("HasMatrixUnit: the AMX CPU and the GPU have one")
	}
}
