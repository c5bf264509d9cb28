package ops

import (
	"strings"
	"testing"

	"ropgen/manifest"
)

// kcase is a hand-written case for kernel tests: shapes of the inputs (and of fixed-rank
// outputs), one dtype for every tensor unless dtypes overrides it, and the params.
type kcase struct {
	op     string
	label  string
	shapes map[string][]int
	dims   map[string]int
	params map[string]any
	dtype  string
	dtypes map[string]string
	// outputs names the outputs, for their dtypes.
	outputs []string
}

func (k kcase) Case() manifest.Case {
	dts := map[string]string{}
	for name := range k.shapes {
		dts[name] = k.dtype
	}
	for _, name := range k.outputs {
		dts[name] = k.dtype
	}
	for name, dt := range k.dtypes {
		dts[name] = dt
	}
	return manifest.Case{Op: k.op, Label: k.label, Shapes: k.shapes, Dims: k.dims, Params: k.params, DTypes: dts}
}

// checkKernel builds the case and compares the kernel with the reference.
func checkKernel(t *testing.T, k kcase) {
	t.Helper()
	in, err := Build(k.Case(), BuildOptions{Seed: 1})
	if err != nil {
		t.Fatalf("%s %s: Build: %v", k.op, k.label, err)
	}
	if err := in.Check(); err != nil {
		t.Errorf("%v", err)
	}
}

// buildErr builds the case and returns the error text, failing when Build succeeds.
func buildErr(t *testing.T, k kcase) string {
	t.Helper()
	_, err := Build(k.Case(), BuildOptions{Seed: 1})
	if err == nil {
		t.Fatalf("%s %s: Build succeeded, want an error", k.op, k.label)
	}
	return err.Error()
}

func TestBuildUnknownOp(t *testing.T) {
	_, err := Build(manifest.Case{Op: "NoSuchOp"}, BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "NoSuchOp has no Go implementation") {
		t.Fatalf("err = %v", err)
	}
}

func TestBuildMeta(t *testing.T) {
	k := kcase{op: "ReluFwd", label: "big", shapes: map[string][]int{"x": {128256, 8192}}, dtype: "bfloat16", outputs: []string{"y"}}
	in, err := Build(k.Case(), BuildOptions{Meta: true})
	if err != nil {
		t.Fatal(err)
	}
	if !in.Inputs[0].T.IsMeta() || !in.Outputs[0].T.IsMeta() {
		t.Fatalf("meta build made data")
	}
	if got := in.Op.(*ReluFwd).XShape; len(got) != 2 || got[0] != 128256 {
		t.Fatalf("XShape = %v, want the bound input shape", got)
	}
	if err := in.Run(); err == nil || !strings.Contains(err.Error(), "meta tensor") {
		t.Fatalf("Run on a meta instance: err = %v, want a meta-tensor refusal", err)
	}
}

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		k    kcase
		want string
	}{
		{kcase{op: "ReluFwd", shapes: map[string][]int{"x": {4}}, dtype: "int8", outputs: []string{"y"}}, "dtype int8 not supported"},
		{kcase{op: "ReluFwd", shapes: map[string][]int{"x": {4, 0}}, dtype: "float32", outputs: []string{"y"}}, "dims must be positive"},
		{kcase{op: "ReluFwd", shapes: map[string][]int{"x": {4}}, dtype: "float32"}, "no dtype for tensor y"},
		{kcase{op: "LeakyReluFwd", shapes: map[string][]int{"x": {4}}, dtype: "float32", outputs: []string{"y"}}, "param negative_slope missing"},
		{kcase{op: "LeakyReluFwd", shapes: map[string][]int{"x": {4}}, dtype: "float32", outputs: []string{"y"},
			params: map[string]any{"negative_slope": 1}}, "param negative_slope is int, want float64"},
	}
	for _, c := range cases {
		if got := buildErr(t, c.k); !strings.Contains(got, c.want) {
			t.Errorf("%s: error %q does not say %q", c.k.op, got, c.want)
		}
	}
}
