package gen

import (
	"go/ast"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

// TestHelperFacts keeps the binding table's facts true of the helpers' Go source
// (roofrt/helpers.go): the generator reads only the table, so a fact that drifted from the
// code would emit an op without its recover, or a helper without one it calls.
func TestHelperFacts(t *testing.T) {
	rs := loadRuntime()
	declared := map[string]bool{} // Go names declared in helpers.go
	for _, d := range rs.files["helpers.go"].file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			declared[fd.Name.Name] = true
		}
	}
	byGoName := map[string]string{}
	for _, h := range Helpers {
		byGoName[h.GoName()] = h.Name
	}
	// Every function of the runtime may be called by a helper: rooflineMul panics, so
	// product fails.
	funcs := map[string]*ast.FuncDecl{}
	for _, rf := range rs.files {
		for _, d := range rf.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	panics := map[string]bool{}
	calls := map[string][]string{}
	for name, fd := range funcs {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); ok {
				switch {
				case id.Name == "panic":
					panics[name] = true
				case funcs[id.Name] != nil && !slices.Contains(calls[name], id.Name):
					calls[name] = append(calls[name], id.Name)
				}
			}
			return true
		})
	}
	var fails func(string) bool
	fails = func(name string) bool {
		return panics[name] || slices.ContainsFunc(calls[name], fails)
	}
	for _, h := range Helpers {
		delete(declared, h.GoName())
		if h.Builtin {
			continue
		}
		if !strings.HasPrefix(h.GoName(), "roofline") {
			t.Errorf("%s: Go name %s lacks the reserved prefix", h.Name, h.GoName())
		}
		if got := fails(h.GoName()); got != h.Fails {
			t.Errorf("%s: table says Fails=%v, the source says %v", h.Name, h.Fails, got)
		}
		needs := slices.Clone(h.Needs)
		var got []string
		for _, c := range calls[h.GoName()] {
			if n := byGoName[c]; n != "" {
				got = append(got, n)
			}
		}
		slices.Sort(needs)
		slices.Sort(got)
		if !slices.Equal(needs, got) {
			t.Errorf("%s: table says Needs=%v, the source calls %v", h.Name, needs, got)
		}
	}
	for name := range declared {
		t.Errorf("roofrt/helpers.go declares %s, which is no helper of the binding table", name)
	}
}

// opFromYAML decodes a one-op manifest for a test.
func opFromYAML(t *testing.T, src string) *manifest.Op {
	t.Helper()
	file, fs := manifest.Parse("t.yaml", []byte(src))
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	cat, fs := manifest.Decode([]*manifest.File{file})
	if len(fs) > 0 || len(cat.Ops) != 1 {
		t.Fatal(fs)
	}
	return cat.Ops[0]
}

// TestRecoverThroughNeeds: cdiv refuses a zero divisor. The source-text guess the table
// replaced saw no panic( in cdiv's own body (it called floordiv), so an op calling only
// cdiv got no recover and EvalRoofline panicked on cdiv(M, 0).
func TestRecoverThroughNeeds(t *testing.T) {
	op := opFromYAML(t, `Op:
  family: test
  status: implemented
  signature:
    inputs:
      a: {dtype: "float32", shape: "[M, K]"}
    outputs:
      y: {dtype: "float32", shape: "[M]"}
  workloads:
    - {M: 2, K: 8, dtypes: [float32]}
  roofline:
    flops: "cdiv(M, K)"
    bytes: "M"
`)
	out, fs := Generate(Config{Catalog: &manifest.Catalog{Ops: []*manifest.Op{op}}, Package: "p"})
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	if src := string(out.Files[File]); !strings.Contains(src, "defer rooflineRecover(") {
		t.Errorf("an op calling cdiv may panic (division by zero), so it needs the deferred recover:\n%s", src)
	}
}
