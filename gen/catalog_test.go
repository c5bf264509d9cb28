package gen

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

// The catalog's directories, from this package's directory.
const (
	catalogManifests = "../manifest"
	catalogOps       = "../ops"
	catalogFormulas  = "../perf/formulas"
)

func generateCatalog(tb testing.TB) *Output {
	tb.Helper()
	cat, fs := manifest.Config{FormulasDir: catalogFormulas}.Load(catalogManifests)
	if len(fs) > 0 {
		tb.Fatalf("catalog does not validate:\n%v", fs)
	}
	b, err := LoadBinding(catalogOps, catalogFormulas)
	if err != nil {
		tb.Fatal(err)
	}
	out, fs := Generate(Config{Catalog: cat, Binding: b})
	if len(fs) > 0 {
		tb.Fatalf("catalog does not generate:\n%v", fs)
	}
	return out
}

// TestCatalogGeneratedIsCurrent regenerates the catalog in memory: the checked-in generated
// files must be exactly what the generator writes now.
func TestCatalogGeneratedIsCurrent(t *testing.T) {
	out := generateCatalog(t)
	for name, want := range out.Files {
		got, err := os.ReadFile(filepath.Join(catalogOps, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("stale generated files: ops/%s differs from the generator's output; run go generate ./ops", name)
		}
	}
}

// TestGeneratedIsFormatted: the generator prints gofmt's layout itself (no go/format pass),
// so every file it writes must be what format.Source makes of it: the catalog's, the golden
// cases', and a synthetic catalog of every shape the benchmark uses.
func TestGeneratedIsFormatted(t *testing.T) {
	outs := map[string]*Output{"catalog": generateCatalog(t)}
	file, fs := manifest.Parse("synthetic.yaml", syntheticManifest(30))
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	cat, fs := manifest.Decode([]*manifest.File{file})
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	out, fs := Generate(Config{Catalog: cat, Package: "ops", FormulasImport: "github.com/ropgen/ropgen/perf/formulas"})
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	outs["synthetic"] = out
	for what, out := range outs {
		for name, src := range out.Files {
			checkFormatted(t, what+" "+name, src)
		}
	}
}

// checkFormatted fails unless src is gofmt'ed, showing the first line that differs.
func checkFormatted(t *testing.T, what string, src []byte) {
	t.Helper()
	want, err := format.Source(src)
	if err != nil {
		t.Fatalf("%s does not parse: %v", what, err)
	}
	if bytes.Equal(want, src) {
		return
	}
	got, exp := bytes.Split(src, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range min(len(got), len(exp)) {
		if !bytes.Equal(got[i], exp[i]) {
			t.Errorf("%s is not gofmt'ed: line %d is\n\t%q\ngofmt writes\n\t%q", what, i+1, got[i], exp[i])
			return
		}
	}
	t.Errorf("%s is not gofmt'ed: %d lines, gofmt writes %d", what, len(got), len(exp))
}

// TestGeneratedCitesNoSpec: the generated file is read by the users of the op package, who
// do not have the roofline spec ropgen was built from: its comments say what they mean in
// their own words.
func TestGeneratedCitesNoSpec(t *testing.T) {
	for name, src := range generateCatalog(t).Files {
		for i, line := range bytes.Split(src, []byte("\n")) {
			if bytes.Contains(line, []byte("spec §")) || bytes.Contains(line, []byte("spec \u00a7")) {
				t.Errorf("ops/%s:%d cites the spec: %s", name, i+1, line)
			}
		}
	}
}

func BenchmarkGenerateCatalog(b *testing.B) {
	var ops int
	for b.Loop() {
		ops = len(generateCatalog(b).Generated)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/float64(ops), "ms/entry")
}
