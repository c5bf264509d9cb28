package record

import (
	"bytes"
	"strings"
	"testing"
)

// The implementation a record names survives both encodings, and a record without one
// after a record with one is read as without: the benchmark format's configuration lines
// carry over to every following result until they change, so the writer must clear it.
func TestImplRoundTrip(t *testing.T) {
	base := Record{Device: "cpu: X", Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32",
		Flops: 8, Bytes: 96, Seconds: 1e-6, Iters: 3}
	var recs []Record
	for i, impl := range []string{"torch", "torch", "", "ropgen", "", "torch"} {
		r := base
		r.Impl = impl
		if i == 1 {
			r.Roof = "cube.fp32" // a configuration change with impl set, then impl dropped
		}
		recs = append(recs, r)
	}
	var bench, lines bytes.Buffer
	bw, jw := NewBenchWriter(&bench), NewJSONWriter(&lines)
	for _, r := range recs {
		if err := bw.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := jw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(bench.String(), "impl: torch\n") || strings.Count(lines.String(), `"impl":`) != 4 {
		t.Errorf("impl not written as a configuration line and a JSON key:\n%s\n%s", bench.String(), lines.String())
	}
	fromBench, fs := ReadBench(&bench, "x.txt")
	if err := fs.Err(); err != nil {
		t.Fatal(err)
	}
	fromJSON, fs := ReadJSON(&lines, "x.jsonl")
	if err := fs.Err(); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]Record{"bench": fromBench, "json": fromJSON} {
		if len(got) != len(recs) {
			t.Fatalf("%s: %d records, want %d", name, len(got), len(recs))
		}
		for i := range recs {
			if got[i].Impl != recs[i].Impl {
				t.Errorf("%s: record %d: impl %q, want %q", name, i, got[i].Impl, recs[i].Impl)
			}
		}
	}
	if fromJSON[2].ImplName() != DefaultImpl || fromJSON[0].ImplName() != "torch" {
		t.Errorf("ImplName: %q %q", fromJSON[2].ImplName(), fromJSON[0].ImplName())
	}
}

func TestImplMustBeAName(t *testing.T) {
	_, fs := ReadJSON(strings.NewReader(`{"device":"d","impl":"py torch","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":1,"seconds":1,"iters":1}`), "x.jsonl")
	if len(fs) != 1 || fs[0].Pos.Line != 1 || !strings.Contains(fs[0].Msg, `impl "py torch"`) {
		t.Errorf("findings %v, want one at line 1 about the impl", fs)
	}
}
