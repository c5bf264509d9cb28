package bench_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
)

// fakeRegistry is a registry of a module's own: it builds ops of the testdata/eval manifest
// that each fail in a way Eval must report at its workload row.
type fakeRegistry struct{}

func (fakeRegistry) Has(name string) bool { return name != "MissingFwd" }

func (fakeRegistry) Build(c manifest.Case, _ bench.BuildOptions) (bench.Instance, error) {
	shape := c.Shapes["x"]
	switch c.Op {
	case "GoodFwd":
		return fakeInstance{&goodOp{shape}}, nil
	case "BoomFwd":
		return fakeInstance{&boomOp{shape: shape[:0]}}, nil
	case "FailsFwd":
		if len(shape) == 1 {
			return nil, errors.New("rank 1 is not supported")
		}
		return fakeInstance{&failsOp{}}, nil
	}
	return fakeInstance{struct{}{}}, nil // BareFwd: no generated methods
}

type fakeInstance struct{ op any }

func (f fakeInstance) Op() any        { return f.op }
func (f fakeInstance) Run() error     { return nil }
func (f fakeInstance) Check() error   { return nil }
func (f fakeInstance) Storage() int64 { return 0 }

// goodOp counts x read and y written, float32: the footprint (bench.Undercount).
type goodOp struct{ shape []int }

func (o *goodOp) EvalRoofline() (int64, int64, error) {
	n := int64(4)
	for _, d := range o.shape {
		n *= int64(d)
	}
	return 0, 2 * n, nil
}
func (*goodOp) ComputeRoof() string { return "vector.fp32" }

// boomOp indexes an empty shape, as an eager cond of generated code once did.
type boomOp struct{ shape []int }

func (o *boomOp) EvalRoofline() (int64, int64, error) { return int64(o.shape[0]), 0, nil }
func (*boomOp) ComputeRoof() string                   { return "vector.fp32" }

type failsOp struct{}

func (*failsOp) EvalRoofline() (int64, int64, error) { return 0, 0, errors.New("overflow in M * N") }
func (*failsOp) ComputeRoof() string                 { return "vector.fp32" }

// TestEval: every workload of every op runs through the generated roofline; each failure is
// reported at its own row, panics included, and the clean cases are counted.
func TestEval(t *testing.T) {
	const file = "testdata/eval/ops.yaml"
	_, cases, err := bench.Load(manifest.Config{}, file)
	if err != nil {
		t.Fatal(err)
	}
	clean, fs := bench.Eval(fakeRegistry{}, cases)
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	if clean != 2 || len(fs) != 8 {
		t.Errorf("%d clean, %d findings, want 2 and 8:\n%s", clean, len(fs), strings.Join(got, "\n"))
	}
	for _, w := range []string{
		file + ":25:7: BoomFwd: workloads[0]: small float32: panic: runtime error: index out of range [0] with length 0 (github.com/ropgen/ropgen/perf/bench_test.(*boomOp).EvalRoofline at ",
		file + ":26:7: BoomFwd: workloads[1]: flat float32: panic: ",
		file + ":40:7: FailsFwd: workloads[0]: small float32: EvalRoofline: overflow in M * N",
		file + ":41:7: FailsFwd: workloads[1]: flat float32: build: rank 1 is not supported",
		file + ":55:7: BareFwd: workloads[0]: small float32: " + bench.SkipNotGenerated,
		file + ":71:7: MissingFwd: workloads[1]: flat float32: " + bench.SkipNoBuilder,
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no finding %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// TestWorkList: the work list is Eval's clean cases, and a registry that is not a Shaper
// leaves the shapes the manifest row does not state (an arbitrary-rank output) null, the
// input's from its <name>_shape.
func TestWorkList(t *testing.T) {
	const file = "testdata/eval/ops.yaml"
	_, cases, err := bench.Load(manifest.Config{}, file)
	if err != nil {
		t.Fatal(err)
	}
	ws, fs := bench.WorkList(fakeRegistry{}, cases)
	if len(ws) != 2 || len(fs) != 8 {
		t.Fatalf("%d work, %d findings, want 2 and 8: %+v", len(ws), len(fs), ws)
	}
	w := ws[0]
	if w.Op != "GoodFwd" || w.Workload != "small" || w.Pos != file+":10:7" || w.Roof != "vector.fp32" ||
		len(w.Inputs) != 1 || !slices.Equal(w.Inputs[0].Shape, []int{2, 3}) || w.Inputs[0].DType != "float32" ||
		len(w.Outputs) != 1 || w.Outputs[0].Name != "y" || w.Outputs[0].Shape != nil {
		t.Errorf("%+v", w)
	}
}
