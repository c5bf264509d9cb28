package bench_test

import (
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
)

// footprintRegistry builds the ops of testdata/eval/footprint.yaml with their formulas
// computed as the manifest writes them, and says every tensor's shape (bench.Shaper), as
// both registries in this repository do.
type footprintRegistry struct{}

func (footprintRegistry) Has(string) bool { return true }

// footprintCounts are the formulas of testdata/eval/footprint.yaml on its rows, by op and
// first dtype, as the generated methods would return them.
var footprintCounts = map[string]int64{
	"AddFwd float32": 6291456, "AddFwd float64": 12582912, // 3 × 512 × 1024 × elem_bytes
	"AddThirdFwd float32": 2097152, "AddThirdFwd float64": 4194304, // a third of that
	"GatherFwd int64": 4160, "GatherUnmarkedFwd int64": 4160, // ids, the 8 rows read, y
}

func (footprintRegistry) Build(c manifest.Case, _ bench.BuildOptions) (bench.Instance, error) {
	first := c.DTypes["x"]
	if first == "" {
		first = c.DTypes["ids"]
	}
	shapes := map[string][]int{"z": c.Shapes["x"]}
	for k, v := range c.Shapes {
		shapes[k] = v
	}
	return shaperInstance{fakeInstance{&countOp{footprintCounts[c.Op+" "+first]}}, shapes}, nil
}

type shaperInstance struct {
	fakeInstance
	shapes map[string][]int
}

func (s shaperInstance) Shapes() map[string][]int { return s.shapes }

type countOp struct{ bytes int64 }

func (o *countOp) EvalRoofline() (int64, int64, error) { return 0, o.bytes, nil }
func (*countOp) ComputeRoof() string                   { return "vector.fp32" }

// TestFootprintCheck: a formula counting a third of its tensors' stored footprint is found
// with no measurement, at the bytes formula, for float32 and float64 alike (elem_bytes is the
// dtype's); a correct one is clean; a gather that reads part of its table is clean when the
// signature marks the table partial, and found when it does not.
func TestFootprintCheck(t *testing.T) {
	const file = "testdata/eval/footprint.yaml"
	_, cases, err := bench.Load(manifest.Config{}, file)
	if err != nil {
		t.Fatal(err)
	}
	clean, fs := bench.Eval(footprintRegistry{}, cases)
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	if clean != 3 || len(fs) != 3 {
		t.Errorf("%d clean, %d findings, want 3 and 3:\n%s", clean, len(fs), strings.Join(got, "\n"))
	}
	for _, w := range []string{
		file + ":36:12: AddThirdFwd: roofline.bytes: cpu float32 (the row at " + file + ":31:7): the formula counts 2097152 bytes, 0.333 of what its tensors take as stored (x 2097152 + y 2097152 + z 2097152 = 6291456 bytes): an undercount",
		file + ":36:12: AddThirdFwd: roofline.bytes: cpu float64 (the row at " + file + ":31:7): the formula counts 4194304 bytes, 0.333 of",
		file + ":66:12: GatherUnmarkedFwd: roofline.bytes: cpu int64 (the row at " + file + ":63:7): the formula counts 4160 bytes, 0.000162 of what its tensors take as stored (ids 64 + table 25600000 + y 2048",
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no finding %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	ws, _ := bench.WorkList(footprintRegistry{}, cases)
	if len(ws) != 3 {
		t.Errorf("the work list has %d cases, want the 3 clean ones", len(ws))
	}
}
