package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"go.yaml.in/yaml/v3"
)

const formulasDir = "../testdata/validate/_formulas"

var testConfig = Config{FormulasDir: formulasDir}

// validateText validates one manifest given as text, written to a temporary file named m.yaml.
func validateText(t *testing.T, text string) (*Catalog, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, fs := testConfig.Load(path)
	var lines []string
	for _, f := range fs {
		lines = append(lines, strings.TrimPrefix(f.String(), path))
	}
	return cat, lines
}

func TestSchemaCompiles(t *testing.T) {
	if loadSchema() == nil {
		t.Fatal("no schema")
	}
	// The path editors are told about must be the file that is embedded.
	disk, err := os.ReadFile(filepath.Join("..", SchemaPath))
	if err != nil {
		t.Fatal(err)
	}
	if string(disk) != string(schemaJSON) {
		t.Errorf("%s differs from the embedded schema", SchemaPath)
	}
}

// TestGoodCatalog validates a catalog that uses every feature and checks what Cases makes of
// it: dims, declared shapes evaluated with params, defaults, nullable params, optional
// inputs, same_as and mapping dtypes.
func TestGoodCatalog(t *testing.T) {
	cat, fs := testConfig.Load("../testdata/validate/_good")
	if len(fs) > 0 {
		t.Fatalf("findings on the good catalog:\n%v", fs)
	}
	if len(cat.Ops) != 5 || len(cat.Files) != 2 {
		t.Fatalf("%d ops in %d files, want 5 in 2", len(cat.Ops), len(cat.Files))
	}
	cases := map[string][]Case{}
	for _, op := range cat.Ops {
		cs, fs := op.Cases()
		if len(fs) > 0 {
			t.Fatalf("%s: %v", op.Name, fs)
		}
		cases[op.Name] = cs
	}
	counts := map[string]int{}
	for name, cs := range cases {
		counts[name] = len(cs)
	}
	want := map[string]int{"AttentionFwd": 3, "CumsumFwd": 0, "LinearFwd": 3, "PadFwd": 1, "RMSNormFwd": 4}
	for name, n := range want {
		if counts[name] != n {
			t.Errorf("%s: %d cases, want %d (rows x dtypes)", name, counts[name], n)
		}
	}

	fp8 := cases["AttentionFwd"][1]
	if got := fp8.DTypes; got["q"] != "bfloat16" || got["k"] != "float8_e4m3" || got["v"] != "float8_e4m3" || got["o"] != "bfloat16" {
		t.Errorf("AttentionFwd fp8 case dtypes = %v; v follows k, o follows q", got)
	}
	if fp8.Params["window"] != nil || fp8.Params["causal"] != false {
		t.Errorf("AttentionFwd defaults = %v; window is null, causal false", fp8.Params)
	}
	prefill := cases["AttentionFwd"][2]
	if prefill.Params["window"] != 1024 || prefill.Params["scale"] != 0.08 {
		t.Errorf("AttentionFwd prefill params = %v", prefill.Params)
	}
	if got := prefill.Shapes["k"]; !slices.Equal(got, []int{1, 8, 2048, 128}) {
		t.Errorf("AttentionFwd prefill k shape = %v, want [1 8 2048 128]", got)
	}

	pad := cases["PadFwd"][0]
	if got := pad.Shapes["y"]; !slices.Equal(got, []int{3, 9}) {
		t.Errorf("PadFwd y shape = %v, want [3 9] from [N, C + 2 * pad]", got)
	}
	if pad.DTypes["index"] != "int64" {
		t.Errorf("PadFwd index dtype = %q, want its own single dtype int64", pad.DTypes["index"])
	}

	lin := cases["LinearFwd"]
	if got := lin[0].Shapes["bias"]; !slices.Equal(got, []int{4096}) {
		t.Errorf("LinearFwd with_bias row: bias shape %v, want [4096]", got)
	}
	if _, ok := lin[1].Shapes["bias"]; ok {
		t.Errorf("LinearFwd row without with_bias has a bias shape")
	}
	if _, ok := lin[1].DTypes["bias"]; ok {
		t.Errorf("LinearFwd row without bias has a bias dtype")
	}

	norm := cases["RMSNormFwd"]
	if norm[0].Params["eps"] != 1e-6 || norm[0].Params["dim"] != -1 || norm[3].Params["eps"] != 1e-5 {
		t.Errorf("RMSNormFwd params: %v, %v", norm[0].Params, norm[3].Params)
	}
	if norm[3].Label != "#3" || norm[3].Row != 2 {
		t.Errorf("unlabelled row: label %q row %d, want #3 and 2", norm[3].Label, norm[3].Row)
	}
	// Cases of one row must not share maps.
	norm[0].Params["eps"] = 0.5
	if norm[1].Params["eps"] != 1e-6 {
		t.Errorf("changing one case's params changed its sibling's")
	}
}

const gemm = `GemmFwd:
  family: gemm
  status: implemented
  signature:
    inputs:
      a: {dtype: "float16 | bfloat16", shape: "[M, K]"}
      b: {dtype: "same_as(a)", shape: "[K, N]"}
    outputs:
      c: {dtype: "same_as(a)", shape: "[M, N]"}
  workloads:
    - {M: 1, N: 4096, K: 4096, dtypes: [bfloat16], label: decode}
  roofline:
    flops: "2 * M * N * K"
    bytes: "(M * K + K * N + M * N) * elem_bytes"
`

// TestFindings checks exact positions and messages for schema errors mapped back to YAML and
// for the semantic checks: the mapping from JSON pointer to line:col is where an off-by-one
// or an unescaping slip would hide.
func TestFindings(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"clean", gemm, nil},
		{
			"key with slash and tilde",
			strings.Replace(gemm, "    outputs:", "    params:\n      \"a/b~c d%\": {type: int}\n    outputs:", 1),
			[]string{`:9:7: GemmFwd: signature.params.a/b~c d%: must be an identifier: ASCII letters, digits and _, not starting with a digit (no other letters, so that no name can pass for another)`},
		},
		{
			"wrong type in a flow mapping",
			strings.Replace(gemm, `b: {dtype: "same_as(a)", shape: "[K, N]"}`, `b: {dtype: "same_as(a)", shape: [K, N]}`, 1),
			[]string{`:7:39: GemmFwd: signature.inputs.b.shape: must be a string, not a list`},
		},
		{
			"second entry only",
			gemm + strings.ReplaceAll(gemm, "GemmFwd", "Gemm2Fwd") + "    func: formulas.Attention\n",
			[]string{`:27:5: Gemm2Fwd: roofline.flops: not allowed with func: func mode and inline mode (vars, flops, bytes) are exclusive`,
				`:28:5: Gemm2Fwd: roofline.bytes: not allowed with func: func mode and inline mode (vars, flops, bytes) are exclusive`},
		},
		{
			// A schema finding keeps the entry from the semantic checks (its bad dtype is not
			// reported yet), while its neighbour still gets them.
			"no double report",
			strings.Replace(gemm, `family: gemm`, `family: gemm
  owner: me`, 1) + strings.ReplaceAll(strings.Replace(gemm, "K: 4096", "K: 0", 1), "GemmFwd", "Gemm2Fwd"),
			[]string{`:3:3: GemmFwd: unknown key "owner" (known: family, ref, roofline, signature, status, workloads)`,
				`:26:26: Gemm2Fwd: workloads[0].K: a dim must be a positive integer, not 0`},
		},
		{
			// JSON has no infinities: a schema's minimum could not compare one.
			"non-finite default",
			strings.Replace(gemm, "    outputs:", "    params:\n      alpha: {type: float64, default: -.inf}\n    outputs:", 1),
			[]string{`:9:39: GemmFwd: signature.params.alpha.default: "-.inf" is not a finite number`},
		},
		{
			"rule error points into a quoted rule",
			strings.Replace(gemm, "  workloads:", "    shape_rules: [\"M > 0 && Q > 1\"]\n  workloads:", 1),
			[]string{`:10:29: GemmFwd: signature.shape_rules[0]: rule does not compile: unknown name Q`},
		},
		{
			"rule failing names the row and its values",
			strings.Replace(gemm, "  workloads:", "    shape_rules:\n      - \"K % 128 == 0 && M <= N\"\n  workloads:\n    - {M: 8, N: 4, K: 4096, dtypes: [float16], label: wide}", 1),
			[]string{`:11:10: GemmFwd: signature.shape_rules[0]: "K % 128 == 0 && M <= N" is false for workloads[0] "wide" at line 13 (K=4096, M=8, N=4)`},
		},
		{
			// A label no record can carry validated, then every record of it was refused
			// (issue 40 item 9): refused here, at the label.
			"labels no record can carry",
			strings.Replace(gemm, "label: decode}", "label: decode}\n    - {M: 2, N: 4096, K: 4096, dtypes: [bfloat16], label: \"llama3 8b/decode\"}\n    - {M: 3, N: 4096, K: 4096, dtypes: [bfloat16], label: \"a\\tb\"}\n    - {M: 4, N: 4096, K: 4096, dtypes: [bfloat16], label: "+strings.Repeat("x", 600)+"}\n    - {M: 5, N: 4096, K: 4096, dtypes: [bfloat16], label: \"w\\u202e\"}", 1),
			[]string{`:12:59: GemmFwd: workloads[1].label: label "llama3 8b/decode" contains '/', a space or a control character: benchmark records name the workload by it`,
				`:13:59: GemmFwd: workloads[2].label: label "a\tb" contains '/', a space or a control character: benchmark records name the workload by it`,
				`:14:59: GemmFwd: workloads[3].label: label is 600 bytes long; the limit is 512 (record.MaxFieldBytes): benchmark records name the workload by it`,
				`:15:59: GemmFwd: workloads[4].label: label "w\u202e" contains the invisible formatting character U+202E: it would reorder or hide text where the name is shown: benchmark records name the workload by it`},
		},
		{
			"func mode names a missing function",
			strings.Replace(gemm, "    flops: \"2 * M * N * K\"\n    bytes: \"(M * K + K * N + M * N) * elem_bytes\"\n", "    func: formulas.Gemm\n", 1),
			[]string{`:13:20: GemmFwd: roofline.func: no function Gemm in ../testdata/validate/_formulas (exported functions there: Attention, Scan)`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := validateText(t, tc.text)
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestSchemaStricterThanDecoder checks the promise that lets Validate skip decoding entries
// with schema findings without losing any: every entry the schema accepts, the strict
// decoder accepts too. It runs over every manifest of the corpus.
func TestSchemaStricterThanDecoder(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/validate/*/*.yaml")
	more, _ := filepath.Glob("../manifest/*.yaml")
	paths = append(paths, more...)
	if len(paths) < 30 {
		t.Fatalf("only %d manifests found", len(paths))
	}
	for _, p := range paths {
		if f, _ := parseFile(p); f != nil {
			agreeWithDecoder(t, f)
		}
	}
}

func agreeWithDecoder(t *testing.T, f *File) {
	t.Helper()
	_, bad := checkFile(f)
	EachEntry(f, func(key, val *yaml.Node) {
		if bad[key.Value] {
			return
		}
		if _, dfs := DecodeOp(f, key, val); len(dfs) > 0 {
			t.Errorf("%s: %s passes the schema, but the decoder reports:\n%v", f.Path, key.Value, dfs)
		}
	})
}

func TestModuleRootFormulas(t *testing.T) {
	// With no FormulasDir, the functions are looked up in perf/formulas of this module.
	op := &Op{Name: "X"}
	x := &formulaIndex{}
	fs := x.check(op, Str{Value: "formulas.NoSuchFormulaAnywhere"})
	if len(fs) != 1 || !strings.Contains(fs[0].Msg, "in perf/formulas (") {
		t.Errorf("got %v, want one finding naming perf/formulas", fs)
	}
}

// TestLoadResolvesCasesOnce checks that Load resolves each op's cases during validation and
// Cases returns those, while a copy of the op with other workloads resolves its own.
func TestLoadResolvesCasesOnce(t *testing.T) {
	cat, fs := testConfig.Load("../testdata/validate/_good")
	if len(fs) > 0 {
		t.Fatalf("findings on the good catalog:\n%v", fs)
	}
	op := cat.Ops[0]
	a, _ := op.Cases()
	b, _ := op.Cases()
	if len(a) == 0 || &a[0] != &b[0] {
		t.Fatalf("%s: Cases resolved again (or found none) on a loaded op", op.Name)
	}
	cp := *op
	cp.Workloads = cp.Workloads[:1]
	c, _ := cp.Cases()
	if len(c) == 0 || &c[0] == &a[0] || len(c) > len(a) {
		t.Fatalf("%s: a copy with one workload got the loaded op's %d cases (%d)", op.Name, len(a), len(c))
	}
}

// TestDims checks the one definition of a dim: identifiers of declared shapes, inputs then
// outputs in order of first use, without params or the builtins a shape calls.
func TestDims(t *testing.T) {
	cat, lines := validateText(t, `X:
  family: f
  status: spec-only
  signature:
    inputs:
      a: {dtype: float32, shape: "[B, max(K, groups), int(K / groups)]"}
      b: {dtype: float32}
    outputs:
      c: {dtype: float32, shape: "[N, B]"}
    params:
      groups: {type: int, default: 1}
  roofline: {flops: "0", bytes: "0"}
`)
	if len(lines) > 0 {
		t.Fatalf("findings: %v", lines)
	}
	if got := cat.Ops[0].Dims(); !slices.Equal(got, []string{"B", "K", "N"}) {
		t.Errorf("Dims() = %v, want [B K N]", got)
	}
}

// TestRuleFailureOnRowInNoFile: a row that comes from no file (ropbench -set) is named by its
// label, not as "workloads[0] ... at line 0".
func TestRuleFailureOnRowInNoFile(t *testing.T) {
	cat, lines := validateText(t, `X:
  family: f
  status: spec-only
  signature:
    inputs: {a: {dtype: float32, shape: "[M]"}}
    outputs: {}
    shape_rules: ["M % 2 == 0"]
  roofline: {flops: "0", bytes: "0"}
`)
	if len(lines) > 0 {
		t.Fatalf("findings: %v", lines)
	}
	row := *cat.Ops[0]
	row.Workloads = []*Workload{{Pos: diag.Pos{File: "-set"}, Label: &Str{Value: "M=3"},
		Values: []KeyValue{{Key: Str{Value: "M"}, Value: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "3"}}},
		DTypes: []DTypeSet{{Single: &Str{Value: "float32"}}}}}
	_, fs := row.Cases()
	if len(fs) != 1 || !strings.HasSuffix(fs[0].Msg, `"M % 2 == 0" is false for the row "M=3" (M=3)`) {
		t.Errorf("findings: %v; want the rule false for the row \"M=3\"", fs)
	}
}

// TestRowKeyTwice: a row built outside YAML (ropbench -set) that gives a key twice is refused,
// as a YAML row with a duplicate key is on parse.
func TestRowKeyTwice(t *testing.T) {
	cat, lines := validateText(t, `X:
  family: f
  status: spec-only
  signature:
    inputs: {a: {dtype: float32, shape: "[M]"}}
    outputs: {}
  roofline: {flops: "0", bytes: "0"}
`)
	if len(lines) > 0 {
		t.Fatalf("findings: %v", lines)
	}
	val := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v} }
	row := *cat.Ops[0]
	row.Workloads = []*Workload{{Pos: diag.Pos{File: "-set"}, Label: &Str{Value: "M=2,M=4"},
		Values: []KeyValue{{Key: Str{Value: "M", Pos: diag.Pos{File: "-set", Line: 1, Col: 1}}, Value: val("2")},
			{Key: Str{Value: "M", Pos: diag.Pos{File: "-set", Line: 1, Col: 5}}, Value: val("4")}},
		DTypes: []DTypeSet{{Single: &Str{Value: "float32"}}}}}
	cases, fs := row.Cases()
	if len(cases) != 0 || len(fs) != 1 || fs[0].String() != "-set:1:5: X: workloads[0].M: M given twice" {
		t.Errorf("%d cases, findings: %v; want none and M given twice", len(cases), fs)
	}
}
