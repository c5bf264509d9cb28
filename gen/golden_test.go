package gen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenRoot holds one directory per case: manifest.yaml in, and either the expected
// generated files in ops/ next to the hand-written op types (a passing case: the directory
// is a real package, so the expected Go compiles and golden_exercise_test.go runs it), or,
// for a failing case named err_*, stderr.golden with the expected findings (ops/ and
// formulas/ are optional, for binding errors). The name decides, so -update never turns a
// passing case that broke into a failing one.
const goldenRoot = "../testdata/golden"

func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n++
		t.Run(d.Name(), func(t *testing.T) {
			runGoldenCase(t, filepath.Join(goldenRoot, d.Name()))
		})
	}
	if n < 30 {
		t.Errorf("only %d golden cases; the corpus should hold at least 30", n)
	}
}

func runGoldenCase(t *testing.T, dir string) {
	formulasDir := filepath.Join(dir, "formulas")
	if _, err := os.Stat(formulasDir); err != nil {
		formulasDir = ""
	}
	// Every golden manifest is valid: what a case tests is the generator's gate.
	cat, fs := manifest.Config{FormulasDir: formulasDir}.Load(filepath.Join(dir, "manifest.yaml"))
	if len(fs) > 0 {
		t.Fatalf("manifest does not validate:\n%v", fs)
	}
	cfg := Config{Catalog: cat, Package: "ops", FormulasImport: "github.com/ropgen/ropgen/perf/formulas"}
	opsDir := filepath.Join(dir, "ops")
	if _, err := os.Stat(opsDir); err == nil {
		b, err := LoadBinding(opsDir, formulasDir)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Binding = b
	}
	out, fs := Generate(cfg)
	stderrPath := filepath.Join(dir, "stderr.golden")
	if strings.HasPrefix(filepath.Base(dir), "err_") {
		if len(fs) == 0 {
			t.Fatalf("generation succeeded; %s expects findings", stderrPath)
		}
		got := strings.ReplaceAll(fs.Error()+"\n", dir+string(filepath.Separator), "")
		compareGolden(t, stderrPath, []byte(got))
		return
	}
	if len(fs) > 0 {
		t.Fatalf("unexpected findings:\n%v", fs)
	}
	for name, src := range out.Files {
		checkFormatted(t, filepath.Join(opsDir, name), src)
		compareGolden(t, filepath.Join(opsDir, name), src)
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./gen -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the generator's output (go test ./gen -update rewrites it):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first differing line of two texts with a little context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return ""
}
