package gen

import (
	"bytes"
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
