package manifest

import (
	"slices"
	"strings"
	"testing"
)

// casesOf decodes a one-op manifest and resolves its cases.
func casesOf(t *testing.T, text string) ([]Case, []string) {
	t.Helper()
	f, fs := Parse("m.yaml", []byte(text))
	if len(fs) > 0 {
		t.Fatalf("parse: %v", fs)
	}
	cat, fs := Decode([]*File{f})
	if len(fs) > 0 || len(cat.Ops) != 1 {
		t.Fatalf("decode: %v", fs)
	}
	cases, fs := cat.Ops[0].Cases()
	var msgs []string
	for _, f := range fs.Sort() {
		msgs = append(msgs, f.String())
	}
	return cases, msgs
}

// op builds a manifest entry from its signature and workload lines.
func op(signature, workloads string) string {
	return "X:\n  family: f\n  status: implemented\n  signature:\n" + signature +
		"  workloads:\n" + workloads + "  roofline: {flops: \"0\", bytes: \"0\"}\n"
}

func TestOptionalFixedRankInRule(t *testing.T) {
	text := op(`    inputs:
      x: {dtype: float32, shape: "[M, N]"}
      bias: {dtype: "same_as(x)", shape: "[N]", optional: true}
    outputs: {}
    shape_rules: ["bias == nil || bias.shape[0] == x.shape[1]", "bias != nil || M > 1"]
`, `    - {M: 2, N: 3, with_bias: true, dtypes: [float32]}
    - {M: 2, N: 3, dtypes: [float32]}
    - {M: 1, N: 3, with_bias: false, dtypes: [float32]}
`)
	cases, fs := casesOf(t, text)
	want := []string{`m.yaml:9:66: X: signature.shape_rules[1]: "bias != nil || M > 1" is false for workloads[2] at line 13 (bias absent, M=1)`}
	if !slices.Equal(fs, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(fs, "\n"), strings.Join(want, "\n"))
	}
	if len(cases) != 2 || !slices.Equal(cases[0].Shapes["bias"], []int{3}) || cases[1].Shapes["bias"] != nil {
		t.Errorf("cases = %+v; want bias [3] in the first, absent in the second", cases)
	}
}

func TestNullableParams(t *testing.T) {
	text := op(`    inputs:
      x: {dtype: float32}
    outputs: {}
    params:
      window: {type: "*int"}
      scale: {type: "*float64", default: 0.5}
    shape_rules: ["window == nil || window < x.shape[0]", "scale == nil || scale > 0"]
`, `    - {x_shape: [8], dtypes: [float32]}
    - {x_shape: [8], window: 4, scale: null, dtypes: [float32]}
    - {x_shape: [8], window: 9, dtypes: [float32], label: too-wide}
`)
	cases, fs := casesOf(t, text)
	if len(fs) != 1 || !strings.Contains(fs[0], `is false for workloads[2] "too-wide" at line 15 (window=9, x.shape=[8])`) {
		t.Errorf("findings: %q", fs)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cases))
	}
	if cases[0].Params["window"] != nil || cases[0].Params["scale"] != 0.5 {
		t.Errorf("defaults: %v; want window nil, scale 0.5", cases[0].Params)
	}
	if cases[1].Params["window"] != 4 || cases[1].Params["scale"] != nil {
		t.Errorf("given: %v; want window 4, scale nil (null overrides the default)", cases[1].Params)
	}
}

func TestDimExpressions(t *testing.T) {
	text := op(`    inputs:
      x: {dtype: float32, shape: "[B, max(H, 2) * D]"}
    outputs:
      y: {dtype: "same_as(x)", shape: "[B / 2, D + pad, ceil(B / 4)]"}
    params:
      pad: {type: int, default: 1}
`, `    - {B: 4, H: 3, D: 5, dtypes: [float32]}
    - {B: 6, H: 1, D: 5, pad: 0, dtypes: [float32]}
`)
	cases, fs := casesOf(t, text)
	if len(cases) != 2 || len(fs) != 0 {
		t.Fatalf("cases %v, findings %v", cases, fs)
	}
	if got := cases[0].Shapes; !slices.Equal(got["x"], []int{4, 15}) || !slices.Equal(got["y"], []int{2, 6, 1}) {
		t.Errorf("row 0 shapes = %v, want x [4 15], y [2 6 1]", got)
	}
	if got := cases[1].Shapes; !slices.Equal(got["x"], []int{6, 10}) || !slices.Equal(got["y"], []int{3, 5, 2}) {
		t.Errorf("row 1 shapes = %v, want x [6 10], y [3 5 2]", got)
	}
	if got := cases[0].Dims; len(got) != 3 || got["B"] != 4 || got["H"] != 3 || got["D"] != 5 {
		t.Errorf("dims = %v; pad is a param, max a builtin, not dims", got)
	}
}

func TestDimOnlyOfAbsentInput(t *testing.T) {
	text := op(`    inputs:
      x: {dtype: float32}
      mask: {dtype: bool, shape: "[S]", optional: true}
    outputs: {}
`, `    - {x_shape: [4], dtypes: [float32]}
    - {x_shape: [4], with_mask: true, dtypes: [float32]}
`)
	_, fs := casesOf(t, text)
	want := []string{`m.yaml:11:7: X: workloads[1]: missing dim S (used by the shape of mask)`}
	if !slices.Equal(fs, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(fs, "\n"), strings.Join(want, "\n"))
	}
}

func TestCommentsRefused(t *testing.T) {
	text := op(`    inputs:
      x: {dtype: float32, shape: "[N]"}
    outputs: {}
    shape_rules: ["N // 2 == 1"]
`, `    - {N: 5, dtypes: [float32]}
`)
	_, fs := casesOf(t, text)
	// Were the comment let through, expr-lang would read "N" and fail on a non-bool rule or,
	// worse, pass; the refusal must point at the "//".
	want := []string{`m.yaml:8:22: X: signature.shape_rules[0]: "//" is not allowed: expr-lang reads it as a comment, so "N // 2 == 1" would mean "N"; for integer division write int(a / b)`}
	if !slices.Equal(fs, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(fs, "\n"), strings.Join(want, "\n"))
	}
}

func TestMappingDTypes(t *testing.T) {
	text := op(`    inputs:
      q: {dtype: "float16 | bfloat16", shape: "[S, D]"}
      k: {dtype: "bfloat16 | float8_e4m3", shape: "[S, D]"}
      v: {dtype: "same_as(k)", shape: "[S, D]"}
      pos: {dtype: int64, shape: "[S]"}
    outputs:
      o: {dtype: "same_as(q)", shape: "[S, D]"}
`, `    - {S: 4, D: 8, dtypes: [{q: float16, k: float8_e4m3}, {k: bfloat16, q: bfloat16}]}
`)
	cases, fs := casesOf(t, text)
	if len(fs) > 0 || len(cases) != 2 {
		t.Fatalf("cases %v, findings %v", cases, fs)
	}
	want := []map[string]string{
		{"q": "float16", "k": "float8_e4m3", "v": "float8_e4m3", "pos": "int64", "o": "float16"},
		{"q": "bfloat16", "k": "bfloat16", "v": "bfloat16", "pos": "int64", "o": "bfloat16"},
	}
	for i, c := range cases {
		for name, d := range want[i] {
			if c.DTypes[name] != d {
				t.Errorf("case %d: %s is %q, want %q", i, name, c.DTypes[name], d)
			}
		}
	}
}

// TestRuleDivisionByZero: expr divides as floats, so `M / 0 > 0` was +Inf > 0, true, and a
// row with g = 0 passed `M / g > 1` (issue 23 item 12). A division by zero fails the row; a
// division by anything else is as before.
func TestRuleDivisionByZero(t *testing.T) {
	text := op(`    inputs:
      x: {dtype: float32, shape: "[M, K]"}
    outputs: {}
    params:
      g: {type: float64, default: 0.0}
    shape_rules: ["M / 0 > 0", "M / g > 1", "int(M / 2) >= 1"]
`, `    - {M: 4, K: 2, g: 2.0, dtypes: [float32]}
    - {M: 4, K: 2, dtypes: [float32]}
`)
	_, fs := casesOf(t, text)
	want := []string{
		`m.yaml:10:20: X: signature.shape_rules[0]: "M / 0 > 0" fails on workloads[0] at line 12: division by zero (4 / 0)`,
		`m.yaml:10:20: X: signature.shape_rules[0]: "M / 0 > 0" fails on workloads[1] at line 13: division by zero (4 / 0)`,
		`m.yaml:10:33: X: signature.shape_rules[1]: "M / g > 1" fails on workloads[1] at line 13: division by zero (4 / 0)`,
	}
	if !slices.Equal(fs, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(fs, "\n"), strings.Join(want, "\n"))
	}
}
