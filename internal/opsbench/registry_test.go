package opsbench

import (
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
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
	in, err := Build(k.Case(), bench.BuildOptions{Seed: 1})
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
	_, err := Build(k.Case(), bench.BuildOptions{Seed: 1})
	if err == nil {
		t.Fatalf("%s %s: Build succeeded, want an error", k.op, k.label)
	}
	return err.Error()
}

func TestBuildUnknownOp(t *testing.T) {
	_, err := Build(manifest.Case{Op: "NoSuchOp"}, bench.BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "NoSuchOp has no Go implementation") {
		t.Fatalf("err = %v", err)
	}
}

func TestBuildMeta(t *testing.T) {
	k := kcase{op: "ReluFwd", label: "big", shapes: map[string][]int{"x": {128256, 8192}}, dtype: "bfloat16", outputs: []string{"y"}}
	in, err := Build(k.Case(), bench.BuildOptions{Meta: true})
	if err != nil {
		t.Fatal(err)
	}
	if !in.Inputs[0].T.IsMeta() || !in.Outputs[0].T.IsMeta() {
		t.Fatalf("meta build made data")
	}
	if got := in.Op.(*ops.ReluFwd).XShape; len(got) != 2 || got[0] != 128256 {
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

// catalog loads the manifests and resolves every implemented op's cases.
func catalog(t testing.TB) (*manifest.Catalog, map[string][]manifest.Case) {
	t.Helper()
	cat, fs := manifest.Load("../../manifest")
	if len(fs) > 0 {
		t.Fatalf("manifests:\n%v", fs)
	}
	cases := map[string][]manifest.Case{}
	for _, op := range cat.Ops {
		if !op.Implemented() {
			continue
		}
		cs, fs := op.Cases()
		if len(fs) > 0 {
			t.Fatalf("%s cases:\n%v", op.Name, fs)
		}
		cases[op.Name] = cs
	}
	return cat, cases
}

// TestRegistryMatchesCatalog: every implemented entry has a builder and every builder an
// implemented entry, so the benchmark layer and the oracle reach the whole catalog.
func TestRegistryMatchesCatalog(t *testing.T) {
	_, cases := catalog(t)
	for name := range cases {
		if _, ok := builders[name]; !ok {
			t.Errorf("%s is implemented in the manifest but has no builder: register one in its kernel file", name)
		}
	}
	for _, name := range Registered() {
		if _, ok := cases[name]; !ok {
			t.Errorf("%s has a builder but no implemented manifest entry", name)
		}
	}
}

// TestCatalogBuildsMeta builds every workload × dtype of the catalog as meta tensors: the
// constructors accept the manifest's params and dtypes, the op's output shapes agree with
// the declared ones, and nothing is allocated for the large real shapes.
func TestCatalogBuildsMeta(t *testing.T) {
	_, cases := catalog(t)
	for _, cs := range cases {
		for _, c := range cs {
			if _, err := Build(c, bench.BuildOptions{Meta: true}); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
}

// maxCheckStorage bounds the tensors TestCatalogKernels runs: the small cpu-* rows, not the
// bandwidth rows, whose plain references take seconds each on a small machine: the test
// must stay short wherever it runs.
const maxCheckStorage = 8 << 20

// TestCatalogKernels runs kernel against reference on every small cpu-* workload × dtype.
func TestCatalogKernels(t *testing.T) {
	_, cases := catalog(t)
	ran := map[string]int{}
	for name, cs := range cases {
		for _, c := range cs {
			if !strings.HasPrefix(c.Label, "cpu-") {
				continue
			}
			meta, err := Build(c, bench.BuildOptions{Meta: true})
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			if (Instance{meta}).Storage() > maxCheckStorage {
				continue
			}
			in, err := Build(c, bench.BuildOptions{Seed: 7})
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			if err := in.Check(); err != nil {
				t.Errorf("%v", err)
			}
			ran[name]++
		}
	}
	for name := range cases {
		if ran[name] == 0 {
			t.Errorf("%s: no cpu-* workload under %d MiB to check the kernel on; add one", name, maxCheckStorage>>20)
		}
	}
}
