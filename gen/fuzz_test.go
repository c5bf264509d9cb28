package gen

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

// fuzzManifest is an op with one of each kind of name; the fuzzer writes its flops.
const fuzzManifest = `Op:
  family: test
  status: implemented
  signature:
    inputs:
      x: {dtype: "float32"}
      a: {dtype: "float32", shape: "[M, K]"}
      bias: {dtype: "float32", shape: "[K]", optional: true}
    outputs:
      y: {dtype: "float32"}
    params:
      dim: {type: int, default: -1}
      causal: {type: bool, default: false}
  workloads:
    - {x_shape: [2, 8], M: 2, K: 8, dtypes: [float32]}
  roofline:
    vars:
      N: "x.shape[normdim(dim, x.ndim)]"
    flops: %s
    bytes: "N * elem_bytes"
`

var sourceImporter = sync.OnceValue(func() types.Importer {
	return importer.ForCompiler(token.NewFileSet(), "source", nil)
})

// FuzzGate feeds any string to the gate as a formula. It must never panic; whatever it
// accepts must emit a package that type-checks and whose arithmetic layer reads only the
// names the gate allows.
func FuzzGate(f *testing.F) {
	for _, s := range []string{"2 * M * K", "M * K // 2", "cond(bias != nil, N, 0)", "x.shape[0]",
		"cdiv(M, 128) * floordiv(K, 2)", "M ** 2", "func() int { return 1 }()", "M if causal else K",
		"log2(M) + clog2(K) + abs(0 - M) + min(M, K) + max(M, N)", "cond(causal, 1, 0)", "[]int{1}[0]",
		"M / 2", "math.Ceil(M)", "0.5 * M", "(M", "elem_bytes * M * N", "-M + +K", "!causal", "M &^ K", "((N + M)) * ((K))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, formula string) {
		if strings.ContainsAny(formula, "\n\r") {
			return // a formula is one YAML scalar line
		}
		file, fs := manifest.Parse("fuzz.yaml", []byte(strings.Replace(fuzzManifest, "%s", strconv.Quote(formula), 1)))
		if len(fs) > 0 {
			return // not a formula the YAML layer lets through
		}
		cat, fs := manifest.Decode([]*manifest.File{file})
		if len(fs) > 0 || len(cat.Ops) != 1 {
			return
		}
		out, fs := Generate(Config{Catalog: cat, Package: "p", FormulasImport: "p/formulas"})
		if len(fs) > 0 {
			for _, f := range fs {
				if f.Pos.Line == 0 {
					t.Fatalf("finding without a position: %v", f)
				}
			}
			return
		}
		checkEmitted(t, formula, out)
	})
}

func checkEmitted(t *testing.T, formula string, out *Output) {
	checkFormatted(t, "formula "+strconv.Quote(formula)+": "+File, out.Files[File])
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{File} {
		f, err := parser.ParseFile(fset, name, out.Files[name], 0)
		if err != nil {
			t.Fatalf("formula %q: %s does not parse: %v", formula, name, err)
		}
		files = append(files, f)
	}
	// The op type the generated methods bind to.
	typ, err := parser.ParseFile(fset, "op.go", "package p\ntype DType int\nfunc (d DType) Size() int { return 4 }\n"+
		"type Op struct { XShape, BiasShape []int; M, K, Dim int; Causal bool; DType DType; roofline rooflineCache }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, typ)
	conf := types.Config{Importer: sourceImporter()}
	if _, err := conf.Check("p", fset, files, nil); err != nil {
		t.Fatalf("formula %q was accepted but the emitted code does not type-check: %v\n%s", formula, err, out.Files[File])
	}
	// The arithmetic layer is the right-hand side of rooflineFlops and rooflineBytes, on the
	// verbatim path and on the checked one: it may read the vars, the dims, the params, the
	// optional input (bias != nil) and elem_bytes, call arithmetic-layer helpers (by their
	// formula names, the method's locals, or their Go names) and the checked operations, and
	// nothing else (not x, not op, not a vars-layer helper).
	allowed := map[string]bool{"true": true, "false": true, "nil": true, "N": true, "M": true, "K": true,
		"dim": true, "causal": true, "bias": true, "elem_bytes": true,
		"rooflineAdd": true, "rooflineSub": true, "rooflineMul": true, "rooflineNeg": true,
		"rooflineCk": true, "add": true, "sub": true, "mul": true, "neg": true}
	for _, h := range Helpers {
		if h.Layers&ArithLayer != 0 {
			allowed[h.GoName()], allowed[h.Name] = true, true
		}
	}
	found := 0
	ast.Inspect(files[0], func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 {
			return true
		}
		if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "rooflineFlops" && id.Name != "rooflineBytes" {
			return true
		}
		found++
		ast.Inspect(as.Rhs[0], func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !allowed[id.Name] {
				t.Errorf("formula %q: the arithmetic layer reads %s, which the gate should not allow", formula, id.Name)
			}
			return true
		})
		return false
	})
	if found != 2 && found != 4 {
		t.Errorf("formula %q: found %d arithmetic-layer assignments, want 2 (flops and bytes), or 4 (on both paths)", formula, found)
	}
}
