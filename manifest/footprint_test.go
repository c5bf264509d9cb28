package manifest

import (
	"strings"
	"testing"
)

// TestFootprint: every present tensor at its own dtype's size; an absent optional input and
// a partial tensor are left out (the latter named with its reason); an arbitrary-rank output
// counts only when built shapes give it.
func TestFootprint(t *testing.T) {
	f, fs := Parse("m.yaml", []byte(`X:
  family: f
  status: implemented
  signature:
    inputs:
      ids: {dtype: "int32 | int64", shape: "[N]"}
      table: {dtype: "float32 | bfloat16", shape: "[V, D]", partial: "a gather reads the rows ids name"}
      x: {dtype: "same_as(table)"}
      bias: {dtype: "float32", shape: "[D]", optional: true}
    outputs:
      y: {dtype: "same_as(table)"}
  workloads:
    - {N: 4, V: 1000, D: 8, x_shape: [4, 8], dtypes: [{ids: int64, table: bfloat16}]}
    - {N: 4, V: 1000, D: 8, x_shape: [4, 8], with_bias: true, dtypes: [{ids: int32, table: float32}]}
  roofline: {flops: "0", bytes: "0"}
`))
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	cat, fs := Decode([]*File{f})
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	op := cat.Ops[0]
	cases, fs := op.Cases()
	if len(fs) > 0 || len(cases) != 2 {
		t.Fatalf("%d cases, %v", len(cases), fs)
	}
	for _, tc := range []struct {
		c       Case
		shapes  map[string][]int
		want    int64
		inputs  int64
		unknown string
	}{
		// ids 4 × 8 + x 32 × 2; y unknown without built shapes.
		{cases[0], nil, 4*8 + 32*2, 4*8 + 32*2, "y"},
		{cases[0], map[string][]int{"y": {4, 8}}, 4*8 + 32*2 + 32*2, 4*8 + 32*2, ""},
		// ids 4 × 4, x 32 × 4, bias 8 × 4, y 32 × 4.
		{cases[1], map[string][]int{"y": {4, 8}}, 4*4 + 32*4 + 8*4 + 32*4, 4*4 + 32*4 + 8*4, ""},
	} {
		fp, err := op.Footprint(tc.c, tc.shapes)
		if err != nil {
			t.Fatal(err)
		}
		if fp.Bytes != tc.want || fp.InputBytes != tc.inputs || strings.Join(fp.Unknown, ",") != tc.unknown {
			t.Errorf("%v with %v: footprint %d (inputs %d), unknown %q; want %d (%d), %q", tc.c.DTypes, tc.shapes, fp.Bytes, fp.InputBytes, fp.Unknown, tc.want, tc.inputs, tc.unknown)
		}
		if len(fp.Partial) != 1 || !strings.Contains(fp.Partial[0], "table (a gather reads the rows ids name)") {
			t.Errorf("partial %q: want the table with its reason", fp.Partial)
		}
		if s := fp.String(); !strings.Contains(s, "ids ") || !strings.Contains(s, "partial, left out: table") {
			t.Errorf("String() = %q", s)
		}
	}
}

// TestPartialMustSayWhy: partial is a reason, never a bare switch: an empty or non-string
// value is an error at its position, and a reason is accepted on inputs and outputs alike.
func TestPartialMustSayWhy(t *testing.T) {
	if _, msgs := validateText(t, op(`    inputs:
      x: {dtype: float32, shape: "[N]", partial: "reads the first half"}
    outputs:
      y: {dtype: float32, shape: "[N]", partial: "writes the rows x names"}
`, "    - {N: 2, dtypes: [float32]}\n")); len(msgs) > 0 {
		t.Errorf("partial with a reason: %q", msgs)
	}
	for _, v := range []string{`""`, "true"} {
		_, msgs := validateText(t, op(`    inputs:
      x: {dtype: float32, shape: "[N]", partial: `+v+`}
    outputs: {}
`, "    - {N: 2, dtypes: [float32]}\n"))
		if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), "partial") {
			t.Errorf("partial: %s: findings %q, want one at signature.inputs.x.partial", v, msgs)
		}
	}
}
