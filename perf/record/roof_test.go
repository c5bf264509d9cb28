package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoofFitError(t *testing.T) {
	for _, c := range []struct {
		roof, dtype string
		bad         bool
	}{
		{"vector.fp16", "float32", true},
		{"cube.bf16", "float32", true},
		{"vector.fp32", "float64", true},
		{"cube.int8", "float32", true},
		{"vector.fp16", "a=float32,b=float32", true},
		{"vector.fp32", "float32", false},
		{"vector.fp32", "bfloat16", false},               // a wider unit computes it
		{"cube.fp16", "float8_e4m3", false},              // soft fp8 in 16 bits
		{"cube.fp16", "a=float8_e4m3,s=float32", false},  // the narrowest operand decides
		{"cube.bf16", "q=bfloat16,k=float8_e4m3", false}, // mixed
		{"vector.fp32", "int64", false},                  // no float dtype: not judged
		{"cube.int8", "a=int8,s=float32", false},         // int operands with float scales
		{"hbm", "float64", false},                        // no unit dtype
		{"vector.fp16", "mystery", false},                // an unknown dtype is not judged
		{"vector.fp16", "x=float32,y=float16", false},    // a 16-bit operand may run there
	} {
		if got := RoofFitError(c.roof, c.dtype); (got != "") != c.bad {
			t.Errorf("RoofFitError(%q, %q) = %q, want a finding: %v", c.roof, c.dtype, got, c.bad)
		}
	}
}

// A float32 GemmFwd record declaring a 16-bit roof is a finding at its line, in either
// encoding, and is not priced.
func TestRoofThatCannotFitIsAFinding(t *testing.T) {
	dir := t.TempDir()
	jl := filepath.Join(dir, "r.jsonl")
	ok := `{"device":"d","op":"GemmFwd","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":1,"seconds":1,"iters":1}`
	bad := strings.Replace(ok, "vector.fp32", "vector.fp16", 1)
	bf := filepath.Join(dir, "r.txt")
	if err := os.WriteFile(jl, []byte(ok+"\n"+bad+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bf, []byte("device: d\nroof: vector.fp32\n\nBenchmarkRoofline/op=GemmFwd/workload=w/dtype=float32 1 1 sec/op 1 roof-flops/op 1 roof-bytes/op\nroof: vector.fp16\n\nBenchmarkRoofline/op=GemmFwd/workload=w/dtype=float32 1 1 sec/op 1 roof-flops/op 1 roof-bytes/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, line := range map[string]int{jl: 2, bf: 7} {
		recs, fs := ReadFiles(file)
		if len(recs) != 1 || len(fs) != 1 || fs[0].Pos.Line != line || !strings.Contains(fs[0].Msg, "roof vector.fp16 is a 16-bit unit") {
			t.Errorf("%s: %d records, findings %v; want the float32 record on vector.fp16 refused at line %d", filepath.Base(file), len(recs), fs, line)
		}
	}
}
