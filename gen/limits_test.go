package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

// longFormulaCatalog is the fuzz manifest with a flops of n terms (M + M + ... + M).
func longFormulaCatalog(tb testing.TB, n int) *manifest.Catalog {
	tb.Helper()
	f := strings.Repeat("M + ", n-1) + "M"
	file, fs := manifest.Parse("long.yaml", []byte(strings.Replace(fuzzManifest, "%s", `"`+f+`"`, 1)))
	if len(fs) > 0 {
		tb.Fatal(fs)
	}
	cat, fs := manifest.Decode([]*manifest.File{file})
	if len(fs) > 0 {
		tb.Fatal(fs)
	}
	return cat
}

// TestLongFormulaRefused: a 40,000-term formula (67 s in the gate before, go/printer being
// quadratic) is refused by its length, at its start.
func TestLongFormulaRefused(t *testing.T) {
	_, fs := Generate(Config{Catalog: longFormulaCatalog(t, 40000), Package: "p"})
	want := fmt.Sprintf("formula is %d bytes; the limit is %d: split it into vars", 4*40000-3, MaxFormulaBytes)
	if len(fs) != 1 || fs[0].Msg != want || fs[0].Pos.Line != 19 || fs[0].Pos.Col != 13 {
		t.Errorf("findings %v; want one at long.yaml:19:13: %s", fs, want)
	}
	if _, fs := Generate(Config{Catalog: longFormulaCatalog(t, MaxFormulaBytes/4), Package: "p"}); len(fs) != 0 {
		t.Errorf("a formula within the limit: %v", fs)
	}
}

// BenchmarkGenerateLongFormula times generation at a quarter of the limit and at the
// limit: linear means the second costs about 4x the first.
func BenchmarkGenerateLongFormula(b *testing.B) {
	for _, n := range []int{MaxFormulaBytes / 16, MaxFormulaBytes / 4} {
		cat := longFormulaCatalog(b, n)
		b.Run(fmt.Sprint(n, "terms"), func(b *testing.B) {
			for b.Loop() {
				if _, fs := Generate(Config{Catalog: cat, Package: "p"}); len(fs) > 0 {
					b.Fatal(fs)
				}
			}
		})
	}
}

// TestReservedDims: a dim is declared by the manifest as a param or var is, and the
// generated code binds it as a local: a dim named rooflineFlops (or any name holding
// roofline) generated, exit 0, code that redeclared the generated locals and did not build.
// It is refused like a param or var of that name.
func TestReservedDims(t *testing.T) {
	for _, dim := range []string{"rooflineFlops", "rooflineBytes", "rooflineCk", "rooflineAt", "rooflineFloordiv", "RooflineX"} {
		src := strings.NewReplacer("[M, K]", "["+dim+", K]", "M: 2", dim+": 2", "%s", `"`+dim+` * K"`).Replace(fuzzManifest)
		file, fs := manifest.Parse("m.yaml", []byte(src))
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		cat, fs := manifest.Decode([]*manifest.File{file})
		if len(fs) > 0 {
			t.Fatalf("%s: %v", dim, fs)
		}
		_, fs = Generate(Config{Catalog: cat, Package: "p"})
		want := fmt.Sprintf("dim %q is reserved by Go or by the generated code; rename it", dim)
		if len(fs) != 1 || fs[0].Msg != want || fs[0].Pos.Line != 1 {
			t.Errorf("%s: findings %v; want one at m.yaml:1: %s", dim, fs, want)
		}
	}
}

// TestNestedParensFormatted: gofmt prints ((M)) as (M), and the generated file printed the
// formula's parentheses as written, so a module's gofmt check failed on it and gofmt -w
// made generate -check report it stale (issue 40 item 12). Each formula is held to
// format.Source in the guarded and the checked code alike.
func TestNestedParensFormatted(t *testing.T) {
	for _, f := range []string{"((M))", "((N + M))", "(M) * ((K))", "2 * (((M + K))) * -((M))", "cdiv(((M)), (K))"} {
		file, fs := manifest.Parse("m.yaml", []byte(strings.Replace(fuzzManifest, "%s", `"`+f+`"`, 1)))
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		cat, fs := manifest.Decode([]*manifest.File{file})
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		out, fs := Generate(Config{Catalog: cat, Package: "p"})
		if len(fs) > 0 {
			t.Fatalf("%s: %v", f, fs)
		}
		for name, src := range out.Files {
			checkFormatted(t, f+" "+name, src)
		}
	}
}
