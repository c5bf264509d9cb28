package audit

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/record"
)

func rec(op, workload, dtype string, bytes int64) record.Record {
	return record.Record{Op: op, Workload: workload, DType: dtype, Bytes: bytes}
}

func verdicts(res Result) map[string]Verdict {
	out := map[string]Verdict{}
	for _, r := range res.Rows {
		out[RangeName(r.Op, r.Workload, r.DType)] = r.Verdict
	}
	return out
}

// TestJudge is the rule's table (rule.go): below the formula an overcount; within ε a
// pass; above a formula below the footprint an undercount; above a formula that counts the
// footprint the kernel's own traffic (a WARN with the factor); above, with the footprint
// unknown, a WARN that says it cannot tell. The two-pass Add of a float64 library: formula
// 3·N·8, footprint the same, measured 1.33x: a WARN, not a FAIL.
func TestJudge(t *testing.T) {
	whole := Floor{Bytes: 1000, Text: "x 500 + y 500 = 1000 bytes"}
	for _, c := range []struct {
		formula, measured int64
		floor             Floor
		eps               float64
		want              Verdict
		note              string
	}{
		{1000, 1000, whole, 0.1, Pass, ""},
		{1000, 900, whole, 0.1, Pass, ""}, // measured < formula × (1 − ε) is strict
		{1000, 899, whole, 0.1, Fail, "0.90x the formula's bytes: the formula counts bytes it never moves (an overcount)"},
		{2000, 1000, whole, 0.1, Fail, "0.50x the formula's bytes: the formula counts bytes it never moves (an overcount)"},
		{1000, 980, whole, 0.01, Fail, "an overcount"},
		{1000, 1100, whole, 0.1, Pass, ""}, // measured > formula × (1 + ε) is strict
		{1000, 1101, whole, 0.1, Warn, "1.10x the formula's bytes, and the formula counts at least its tensors as stored (x 500 + y 500 = 1000 bytes): the extra traffic is the kernel's"},
		{12582912, 16777216, Floor{Bytes: 12582912}, 0.1, Warn, "1.33x"},
		{1200, 3600, whole, 0.1, Warn, "3.00x the formula's bytes, and the formula counts at least"}, // a formula above its floor
		{333, 1000, whole, 0.1, Fail, "3.00x the formula's bytes, and the formula counts less than its tensors take as stored (x 500 + y 500 = 1000 bytes): it leaves out bytes the kernel moves (an undercount)"},
		{600, 1000, Floor{Bytes: 500, Unknown: "no shape for [y]"}, 0.1, Warn, "1.67x the formula's bytes; the tensors' footprint is not known (no shape for [y]), so an undercount cannot be told"},
		{600, 1000, Floor{Unknown: "no manifest"}, 0.1, Warn, "not known (no manifest)"},
		{333, 1000, Floor{Bytes: 500, Unknown: "no shape for [y]", Text: "x 500 bytes"}, 0.1, Fail, "an undercount"}, // below even the known part
	} {
		got, note := Judge(c.formula, c.measured, c.floor, c.eps)
		if got != c.want || !strings.Contains(note, c.note) || (c.note == "") != (note == "") {
			t.Errorf("Judge(%d, %d, %+v, %v) = %v %q, want %v %q", c.formula, c.measured, c.floor, c.eps, got, note, c.want, c.note)
		}
	}
}

// The details fixture against correct formulas: the 1R:1W relu and the decode GEMM pass, the
// two-kernel softmax that reads its input twice warns, and a record nobody profiled is an
// ERROR. A formula that counts relu's bytes twice fails.
func TestAuditNCU(t *testing.T) {
	ms := parseFixture(t, "details.csv")
	recs := []record.Record{
		rec("ReluFwd", "mid", "float32", 2*4194304),
		rec("SoftmaxFwd", "decode", "bfloat16", 2*32*32000*2),
		rec("GemmFwd", "llama3-8b-decode-oproj", "bfloat16", (4096+4096*4096+4096)*2),
		rec("LinearFwd", "prefill", "bfloat16", 1<<30),
	}
	res := Audit(recs, ms, Options{Eps: DefaultEps})
	want := map[string]Verdict{
		"ReluFwd:mid:float32":                     Pass,
		"SoftmaxFwd:decode:bfloat16":              Warn,
		"GemmFwd:llama3-8b-decode-oproj:bfloat16": Pass,
		"LinearFwd:prefill:bfloat16":              Error,
	}
	if got := verdicts(res); !maps.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if !res.Failed() {
		t.Error("Failed() = false with an ERROR row")
	}
	if n := res.Rows[3].Note; !strings.Contains(n, `no measured call named "LinearFwd:prefill:bfloat16"`) {
		t.Errorf("ERROR note = %q", n)
	}
	if len(res.Unclaimed) != 1 || res.Unclaimed[0].Name != fillKernel {
		t.Errorf("unclaimed = %+v, want the fill kernel outside every range", res.Unclaimed)
	}
	if r := res.Rows[0]; r.Measured != 4195328+4194304 || r.Launches != 1 || r.Ratio < 1 || r.Ratio > 1.001 {
		t.Errorf("relu row = %+v", r)
	}

	recs[0].Bytes *= 2 // a formula that counts every byte twice
	res = Audit(recs[:1], ms, Options{Eps: DefaultEps})
	if r := res.Rows[0]; r.Verdict != Fail || r.Ratio > 0.51 {
		t.Errorf("2x overcount: %+v, want FAIL at ratio 0.5", r)
	}
}

// A unit mix-up must not pass: units.csv gives GeluFwd 256 Kbyte each way against a formula
// of 512 bytes. Read as bytes (256 + 256) it would match exactly; read right it is 1000x the
// formula. And ReluFwd's 4.19 Mbyte + 4,194.30 Kbyte match its 8 MiB formula, where the bare
// numbers would fail it.
func TestAuditUnitMixUp(t *testing.T) {
	ms := parseFixture(t, "units.csv")
	res := Audit([]record.Record{
		rec("ReluFwd", "mid", "float32", 2*4194304),
		rec("GeluFwd", "tiny", "float32", 512),
		rec("SiluFwd", "small", "float32", 1024),
	}, ms, Options{Eps: DefaultEps})
	want := map[string]Verdict{
		"ReluFwd:mid:float32":   Pass,
		"GeluFwd:tiny:float32":  Warn,
		"SiluFwd:small:float32": Pass,
	}
	if got := verdicts(res); !maps.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if r := res.Rows[1]; r.Ratio != 1000 {
		t.Errorf("GeluFwd ratio = %v, want 1000", r.Ratio)
	}
}

func TestAuditMissingMetric(t *testing.T) {
	ms := parseFixture(t, "missing.csv")
	recs := []record.Record{
		rec("AddFwd", "mid", "float32", 3*4194304),
		rec("MulFwd", "mid", "float32", 3*4194304),
		rec("SubFwd", "mid", "float32", 3*4194304),
	}
	res := Audit(recs, ms, Options{Eps: DefaultEps})
	for i, want := range []string{"dram__bytes_write.sum is n/a", "no dram__bytes_read.sum row", "not digit grouping"} {
		r := res.Rows[i]
		if r.Verdict != Error || !strings.Contains(r.Note, want) || r.Measured != 0 {
			t.Errorf("%s: %v %q (measured %d), want ERROR about %q", r.Op, r.Verdict, r.Note, r.Measured, want)
		}
	}

	// The read side needs only reads: AddFwd's missing write no longer matters.
	out := func(record.Record) (int64, error) { return 4194304, nil }
	res = Audit(recs[:2], ms, Options{Eps: DefaultEps, Reads: true, OutputBytes: out})
	if r := res.Rows[0]; r.Verdict != Pass || r.Formula != 2*4194304 || r.Side != "reads" {
		t.Errorf("AddFwd reads: %+v, want PASS on 8 MiB of formula reads", r)
	}
	if r := res.Rows[1]; r.Verdict != Error {
		t.Errorf("MulFwd reads: %+v, want ERROR", r)
	}
}

func TestAuditReadSide(t *testing.T) {
	ms := parseFixture(t, "raw_reads.csv")
	gemm := rec("GemmFwd", "llama3-8b-decode-oproj", "bfloat16", (4096+4096*4096+4096)*2)
	outputs := map[string]int64{"GemmFwd": 4096 * 2}

	res := Audit([]record.Record{gemm}, ms, Options{Eps: DefaultEps})
	if r := res.Rows[0]; r.Verdict != Error || !strings.Contains(r.Note, "dram__bytes_write.sum has no column") {
		t.Errorf("total side without writes: %+v, want ERROR", r)
	}

	byOp := func(r record.Record) (int64, error) {
		n, ok := outputs[r.Op]
		if !ok {
			return 0, errors.New("output y has no declared shape")
		}
		return n, nil
	}
	linear := rec("LinearFwd", "decode", "bfloat16", 1<<20)
	res = Audit([]record.Record{gemm, linear, rec("MissingFwd", "x", "float32", 100)}, ms, Options{Eps: DefaultEps, Reads: true, OutputBytes: byOp})
	if r := res.Rows[0]; r.Verdict != Pass || r.Formula != gemm.Bytes-4096*2 || r.Measured != 33566720 {
		t.Errorf("GemmFwd reads: %+v", r)
	}
	if r := res.Rows[1]; r.Verdict != Error || !strings.Contains(r.Note, "is n/a") {
		t.Errorf("LinearFwd reads: %+v, want ERROR for n/a", r)
	}
	if r := res.Rows[2]; r.Verdict != Error {
		t.Errorf("MissingFwd: %+v, want ERROR", r)
	}

	// A read-side formula overcount fails too: reads counted twice.
	gemm.Bytes = 2*(gemm.Bytes-4096*2) + 4096*2
	res = Audit([]record.Record{gemm}, ms, Options{Eps: DefaultEps, Reads: true, OutputBytes: byOp})
	if r := res.Rows[0]; r.Verdict != Fail {
		t.Errorf("GemmFwd reads counted twice: %+v, want FAIL", r)
	}

	res = Audit([]record.Record{gemm}, ms, Options{Eps: DefaultEps, Reads: true})
	if r := res.Rows[0]; r.Verdict != Error || !strings.Contains(r.Note, "no source of output sizes") {
		t.Errorf("read side without output sizes: %+v, want ERROR", r)
	}

	// Outputs larger than the whole formula: the formula cannot be counting them once.
	res = Audit([]record.Record{rec("GemmFwd", "llama3-8b-decode-oproj", "bfloat16", 100)}, ms, Options{Eps: DefaultEps, Reads: true, OutputBytes: byOp})
	if r := res.Rows[0]; r.Verdict != Error || !strings.Contains(r.Note, "exceed") {
		t.Errorf("outputs above formula: %+v, want ERROR", r)
	}
}

func TestAuditBrokenRanges(t *testing.T) {
	ms := []Measured{
		{Name: "A:w:float32", Launches: 1, Reads: Count{Bytes: 10}, Writes: Count{Bytes: 10}},
		{Name: "B:w:float32", Launches: 1, Reads: Count{Bytes: 10}, Writes: Count{Bytes: 10}},
		{Name: "A:w:float32", Launches: 1, Reads: Count{Bytes: 10}, Writes: Count{Bytes: 10}},
		{Name: "C:w:float32", Launches: 0},
	}
	res := Audit([]record.Record{
		rec("A", "w", "float32", 20),
		rec("B", "w", "float32", 0),
		rec("C", "w", "float32", 20),
	}, ms, Options{Eps: DefaultEps})
	for i, want := range []string{"measured 2 times", "formula bytes are 0", "empty range"} {
		if r := res.Rows[i]; r.Verdict != Error || !strings.Contains(r.Note, want) {
			t.Errorf("%s: %v %q, want ERROR about %q", r.Op, r.Verdict, r.Note, want)
		}
	}
}

// TestAuditFootprint: with the tensors' footprint known, the same measurement above the
// formula is an undercount (FAIL) when the formula counts a third of relu's tensors, and the
// kernel's own traffic (WARN) for softmax's formula, which counts its tensors once.
func TestAuditFootprint(t *testing.T) {
	ms := parseFixture(t, "details.csv")
	fps := map[string]manifest.Footprint{
		"ReluFwd":    {Bytes: 2 * 4194304, InputBytes: 4194304, Counted: []string{"x 4194304", "y 4194304"}},
		"SoftmaxFwd": {Bytes: 2 * 32 * 32000 * 2, InputBytes: 32 * 32000 * 2, Counted: []string{"x 4096000", "y 4096000"}},
	}
	opt := Options{Eps: DefaultEps, Footprint: func(r record.Record) (manifest.Footprint, error) {
		return fps[r.Op], nil
	}}
	res := Audit([]record.Record{
		rec("ReluFwd", "mid", "float32", 2*4194304/3),
		rec("SoftmaxFwd", "decode", "bfloat16", 2*32*32000*2),
	}, ms, opt)
	want := map[string]Verdict{"ReluFwd:mid:float32": Fail, "SoftmaxFwd:decode:bfloat16": Warn}
	if got := verdicts(res); !maps.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if n := res.Rows[0].Note; !strings.Contains(n, "3.00x") || !strings.Contains(n, "(an undercount)") || !strings.Contains(n, "x 4194304 + y 4194304 = 8388608 bytes") {
		t.Errorf("relu note = %q", n)
	}
	if n := res.Rows[1].Note; !strings.Contains(n, "1.50x") || !strings.Contains(n, "the extra traffic is the kernel's") {
		t.Errorf("softmax note = %q", n)
	}
}
