package gen

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

// shapeBuiltinManifest declares a shape with a builtin call in it: its dims are M and K
// (max is the builtin), for validation and generation alike.
const shapeBuiltinManifest = `PadFwd:
  family: layout
  status: implemented
  signature:
    inputs:
      x: {dtype: "float32", shape: "[M, max(K, 2)]"}
    outputs:
      y: {dtype: "same_as(x)", shape: "[M, K]"}
  workloads:
    - {M: 3, K: 1, dtypes: [float32]}
  roofline:
    flops: "M * K"
    bytes: "(M * max(K, 2) + M * K) * elem_bytes"
`

// TestDimsOneDefinition checks that the generator binds exactly the dims the manifest model
// defines: a shape `[M, max(K, 2)]` validates, generates, and the generated method reads the
// fields M and K and type-checks against an op struct that has them.
func TestDimsOneDefinition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(path, []byte(shapeBuiltinManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, fs := manifest.Load(path)
	if len(fs) > 0 {
		t.Fatalf("validate: %v", fs)
	}
	op := cat.Op("PadFwd")
	if got := op.Dims(); !slices.Equal(got, []string{"M", "K"}) {
		t.Fatalf("Dims() = %v, want [M K]", got)
	}
	out, fs := Generate(Config{Catalog: cat, Package: "ops", FormulasImport: "github.com/ropgen/ropgen/perf/formulas"})
	if len(fs) > 0 {
		t.Fatalf("generate: %v", fs)
	}
	// Type-check the generated files with the op type they bind to.
	fset := token.NewFileSet()
	files := []*ast.File{mustParse(t, fset, "ops.go", `package ops
type DType int
func (DType) Size() int { return 4 }
type PadFwd struct { XShape []int; M, K int; DType DType }
`)}
	for name, src := range out.Files {
		files = append(files, mustParse(t, fset, name, string(src)))
		if strings.Contains(string(src), "op.Max") {
			t.Errorf("%s binds max as a dim:\n%s", name, src)
		}
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("ops", fset, files, nil); err != nil {
		for name, src := range out.Files {
			t.Logf("%s:\n%s", name, src)
		}
		t.Fatalf("generated code does not type-check: %v", err)
	}
}

func mustParse(t *testing.T, fset *token.FileSet, name, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}
