package audit

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/record"
)

const outputsManifest = `
GemmFwd:
  family: gemm
  status: implemented
  signature:
    inputs:
      a: {dtype: "float16 | bfloat16 | float32", shape: "[M, K]"}
      b: {dtype: "same_as(a)", shape: "[K, N]"}
    outputs:
      c: {dtype: "same_as(a)", shape: "[M, N]"}
  workloads:
    - {M: 1, N: 4096, K: 4096, dtypes: [bfloat16, float32], label: decode}
  roofline:
    flops: "2 * M * N * K"
    bytes: "(M * K + K * N + M * N) * elem_bytes"
ScaledGemmFwd:
  family: gemm
  status: implemented
  signature:
    inputs:
      a: {dtype: "float8_e4m3 | bfloat16", shape: "[M, K]"}
      s: {dtype: "float32 | bfloat16", shape: "[M]"}
    outputs:
      c: {dtype: "bfloat16", shape: "[M, K]"}
  workloads:
    - {M: 8, K: 16, dtypes: [{a: float8_e4m3, s: float32}, {a: float8_e4m3, s: bfloat16}], label: w}
  roofline:
    flops: "M * K"
    bytes: "M * K + M * 4 + M * K * 2"
ReluFwd:
  family: elementwise
  status: implemented
  signature:
    inputs:
      x: {dtype: "float32"}
    outputs:
      y: {dtype: "same_as(x)"}
  workloads:
    - {x_shape: [4, 4], dtypes: [float32], label: small}
  roofline:
    flops: "1"
    bytes: "1"
`

func TestManifestOutputBytes(t *testing.T) {
	f, fs := manifest.Parse("ops.yaml", []byte(outputsManifest))
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	cat, fs := manifest.Decode([]*manifest.File{f})
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	out := ManifestOutputBytes(cat)
	for _, c := range []struct {
		op, workload, dtype string
		want                int64
		err                 string
	}{
		{"GemmFwd", "decode", "bfloat16", 4096 * 2, ""},
		{"GemmFwd", "decode", "float32", 4096 * 4, ""},
		{"GemmFwd", "decode", "a=float32", 4096 * 4, ""},
		{"ScaledGemmFwd", "w", "a=float8_e4m3,s=bfloat16", 8 * 16 * 2, ""},
		{"ScaledGemmFwd", "w", "float8_e4m3", 0, `dtype "float8_e4m3" selects 2 dtype sets`},
		{"GemmFwd", "decode", "float16", 0, `no workload "decode" with dtype "float16"`},
		{"GemmFwd", "prefill", "bfloat16", 0, `no workload "prefill"`},
		{"GemmFwd", "decode", "a=bfloat16,b", 0, "is not name=dtype"},
		{"ReluFwd", "small", "float32", 0, "output y of ReluFwd has no declared shape"},
		{"NopeFwd", "small", "float32", 0, "op NopeFwd is not in the manifest"},
	} {
		got, err := out(record.Record{Op: c.op, Workload: c.workload, DType: c.dtype})
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s %s %s: %d, %v; want %d", c.op, c.workload, c.dtype, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %s %s: error %v, want %q", c.op, c.workload, c.dtype, err, c.err)
		}
	}
}

func TestDTypeLabel(t *testing.T) {
	f, _ := manifest.Parse("ops.yaml", []byte(outputsManifest))
	cat, _ := manifest.Decode([]*manifest.File{f})
	var got []string
	for _, name := range []string{"GemmFwd", "ScaledGemmFwd"} {
		op := cat.Op(name)
		cases, fs := op.Cases()
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		for _, c := range cases {
			label := DTypeLabel(op, cases, c)
			got = append(got, label)
			if back, err := FindCase(op, cases, c.Label, label); err != nil || back.Row != c.Row || !maps.Equal(back.DTypes, c.DTypes) {
				t.Errorf("%s %s: FindCase(%q) = %v, %v; want the case back", name, c.Label, label, back.DTypes, err)
			}
		}
	}
	want := []string{"bfloat16", "float32", "a=float8_e4m3,s=float32", "a=float8_e4m3,s=bfloat16"}
	if !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
}

// TestManifestFootprintWithWork: an arbitrary-rank output (ReluFwd's y) is unknown to the
// manifest alone, and the work list the records came from (NAME eval -json) gives its shape;
// a line that is not work is a finding at its line.
func TestManifestFootprintWithWork(t *testing.T) {
	f, fs := manifest.Parse("ops.yaml", []byte(outputsManifest))
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	cat, fs := manifest.Decode([]*manifest.File{f})
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	relu := record.Record{Op: "ReluFwd", Workload: "small", DType: "float32"}
	fp, err := ManifestFootprint(cat, nil)(relu)
	if err != nil || fp.Bytes != 64 || len(fp.Unknown) != 1 || fp.Unknown[0] != "y" {
		t.Errorf("without a work list: %+v, %v; want x's 64 bytes and y unknown", fp, err)
	}
	file := filepath.Join(t.TempDir(), "work.jsonl")
	os.WriteFile(file, []byte(`{"op":"ReluFwd","workload":"small","dtype":"float32","dtypes":{"x":"float32","y":"float32"},"inputs":[{"name":"x","dtype":"float32","shape":[4,4]}],"outputs":[{"name":"y","dtype":"float32","shape":[4,4]}],"flops":16,"bytes":128}
not json
`), 0o666)
	work, wfs := ReadWorkShapes(file)
	if len(wfs) != 1 || wfs[0].Pos.Line != 2 {
		t.Errorf("findings %v, want one at line 2", wfs)
	}
	fp, err = ManifestFootprint(cat, work)(relu)
	if err != nil || fp.Bytes != 128 || len(fp.Unknown) != 0 {
		t.Errorf("with the work list: %+v, %v; want x and y, 128 bytes", fp, err)
	}
}
