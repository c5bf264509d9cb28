package gen

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

// generateFlops generates the fuzz manifest's op with the given flops (and bytes, when not
// "") and returns its generated rooflineEval.
func generateFlops(t *testing.T, flops, bytes string) string {
	t.Helper()
	src := strings.Replace(fuzzManifest, "%s", strconv.Quote(flops), 1)
	if bytes != "" {
		src = strings.Replace(src, `bytes: "N * elem_bytes"`, "bytes: "+strconv.Quote(bytes), 1)
	}
	file, fs := manifest.Parse("f.yaml", []byte(src))
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	cat, fs := manifest.Decode([]*manifest.File{file})
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	out, fs := Generate(Config{Catalog: cat, Package: "p", FormulasImport: "p/formulas"})
	if len(fs) > 0 {
		t.Fatalf("flops %q: %v", flops, fs)
	}
	src = string(out.Files[File])
	start := strings.Index(src, "func (op *Op) rooflineEval()")
	end := strings.Index(src[start:], "\n}\n")
	return src[start : start+end]
}

// TestVerbatimBehindGuard: each formula runs as written behind the guard the proof finds,
// and the checked path follows for the values outside it.
func TestVerbatimBehindGuard(t *testing.T) {
	for _, c := range []struct {
		flops string
		guard string // "" when no guard is needed
		fast  string // the verbatim flops, as gofmt prints it
	}{
		// 2 * M * K * N: three factors below 2^20 and a 2 fit in 2^63, not below 2^21; bytes
		// (N * elem_bytes) still fits with elem_bytes below 2^20 too, so the guard tests it in
		// the same OR, one comparison.
		{"2 * M * K * N", "if uint(M|K|N|elem_bytes) < 1<<20 {", "rooflineFlops := 2 * M * K * N"},
		// bytes (N * elem_bytes) bounds the rest: N below 2^57, elem_bytes below 2^6. A
		// divisor must be >= 1: the guard bounds K to [1, 2^57] with (K-1).
		{"floordiv(M, K) + cdiv(M, K)", "if uint(M|(K-1)|N) < 1<<57 && uint(elem_bytes) < 1<<6 {", "rooflineFlops := floordiv(M, K) + cdiv(M, K)"},
		{"cond(causal, M, K) - min(M, K)", "if uint(M|K|N) < 1<<57 && uint(elem_bytes) < 1<<6 {", "rooflineFlops := cond(causal, M, K) - min(M, K)"},
		{"log2(M) * clog2(K)", "if uint((M-1)|(K-1)|N) < 1<<57 && uint(elem_bytes) < 1<<6 {", "rooflineFlops := log2(M) * clog2(K)"},
	} {
		body := generateFlops(t, c.flops, "")
		for _, want := range []string{c.guard, c.fast, "rooflineAt = `roofline.flops \"" + c.flops + "\"`"} {
			if !strings.Contains(body, want) {
				t.Errorf("flops %q: the generated method lacks %q:\n%s", c.flops, want, body)
			}
		}
	}
}

// TestUnprovedIsCheckedOnly: a formula whose steps no bound makes safe (a divisor that may
// be 0 whatever the bounds, a log2 of a value that may be below 1) gets only the checked
// path, and still names each step's helper as the manifest does.
func TestUnprovedIsCheckedOnly(t *testing.T) {
	for flops, want := range map[string]string{
		"floordiv(M, K - 1) * N": "rooflineFlops := rooflineMul(floordiv(M, rooflineSub(K, 1)), N)",
		"log2(M - K) + N":        "rooflineFlops := rooflineAdd(log2(rooflineSub(M, K)), N)",
	} {
		body := generateFlops(t, flops, "")
		if strings.Contains(body, "if uint(") || strings.Count(body, "rooflineFlops :=") != 1 {
			t.Errorf("flops %q: a guarded path for a formula the proof cannot bound:\n%s", flops, body)
		}
		if !strings.Contains(body, want) {
			t.Errorf("flops %q: the checked path lacks %q:\n%s", flops, want, body)
		}
	}
}

// TestSafeStepsStayVerbatim: a step that is safe for every value of its operands is written
// as is on the checked path too, with no label (it cannot fail), and formulas whose every
// step is safe need no guard at all.
func TestSafeStepsStayVerbatim(t *testing.T) {
	body := generateFlops(t, "cond(causal, 1, 0) + min(N, 0) * 0", "")
	if strings.Count(body, "rooflineFlops := cond(causal, 1, 0) + min(N, 0)*0") != 2 || strings.Contains(body, "roofline.flops") {
		t.Errorf("flops as written on both paths, unlabelled, expected:\n%s", body)
	}
	body = generateFlops(t, "cond(causal, 1, 0) + min(N, 0) * 0", "cond(causal, 1, 2) * 4 + min(N, 0) * 0")
	if strings.Contains(body, "if uint(") || strings.Count(body, "rooflineFlops :=") != 1 || !strings.Contains(body, "rooflineBytes := cond(causal, 1, 2)*4 + min(N, 0)*0") {
		t.Errorf("no guard and the formulas as written expected:\n%s", body)
	}
}
