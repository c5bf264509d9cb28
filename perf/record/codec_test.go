package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/perf/benchfmt"

	"github.com/ropgen/ropgen/diag"
)

var sample = []Record{
	{Device: "NVIDIA H200", Op: "GemmFwd", Workload: "decode", DType: "float16", Roof: "cube.fp16",
		Flops: 33554432, Bytes: 33570816, Seconds: 1.2345678901234e-05, Iters: 1000},
	{Device: "NVIDIA H200", Op: "GemmFwd", Workload: "prefill", DType: "bfloat16", Roof: "cube.bf16",
		Flops: 137438953472, Bytes: 100663296, Seconds: 0.000173, Iters: 50},
	{Device: "Intel Xeon 8480", Op: "AttnFwd", Workload: "M=1,N=4096", DType: "q=bfloat16,k=float8_e4m3", Roof: "vector.fp32",
		Flops: 0, Bytes: 7, Seconds: 0, Iters: 0},
}

// roundTrip writes recs with write and reads them back with read, comparing every field and
// the position of each record.
func roundTrip(t *testing.T, recs []Record, write func(*bytes.Buffer, Record) error, read func(*bytes.Buffer) ([]Record, error)) string {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range recs {
		if err := write(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	text := buf.String()
	got, err := read(&buf)
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, text)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d records, wrote %d\n%s", len(got), len(recs), text)
	}
	lines := strings.Split(text, "\n")
	for i := range recs {
		p := got[i].Pos
		if p.File != "x.txt" || p.Line < 1 || p.Line > len(lines) || !strings.Contains(lines[p.Line-1], recs[i].Workload) {
			t.Errorf("record %d: position %v does not point at its line\n%s", i, p, text)
		}
		got[i].Pos = recs[i].Pos
		if got[i] != recs[i] {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], recs[i])
		}
	}
	return text
}

func TestBenchRoundTrip(t *testing.T) {
	var bw *BenchWriter
	text := roundTrip(t, sample,
		func(b *bytes.Buffer, r Record) error {
			if bw == nil {
				bw = NewBenchWriter(b)
			}
			return bw.Write(r)
		},
		func(b *bytes.Buffer) ([]Record, error) {
			recs, fs := ReadBench(b, "x.txt")
			return recs, fs.Err()
		})
	// The shape benchstat relies on: the name carries op/workload/dtype, device and roof are
	// configuration lines written only when they change, and no value uses B/op.
	for _, want := range []string{
		"Unit roof-flops/op assume=exact\n",
		"device: NVIDIA H200\nroof: cube.fp16\n\nBenchmarkRoofline/op=GemmFwd/workload=decode/dtype=float16 1000 1.2345678901234e-05 sec/op 3.3554432e+07 roof-flops/op 3.3570816e+07 roof-bytes/op\n",
		"\nroof: cube.bf16\n\nBenchmarkRoofline/op=GemmFwd/workload=prefill/",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "device: NVIDIA H200") != 1 || strings.Contains(text, " B/op") {
		t.Errorf("device repeated or B/op used:\n%s", text)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	big := sample[0]
	big.Flops = 1<<62 + 1 // not exact as a float64: JSON lines must keep it
	var jw *JSONWriter
	roundTrip(t, append(sample[:len(sample):len(sample)], big),
		func(b *bytes.Buffer, r Record) error {
			if jw == nil {
				jw = NewJSONWriter(b)
			}
			return jw.Write(r)
		},
		func(b *bytes.Buffer) ([]Record, error) {
			recs, fs := ReadJSON(b, "x.txt")
			return recs, fs.Err()
		})
}

func TestBenchWriterRefuses(t *testing.T) {
	for name, mut := range map[string]func(*Record){
		"slash in workload":  func(r *Record) { r.Workload = "a/b" },
		"space in op":        func(r *Record) { r.Op = "Gemm Fwd" },
		"empty dtype":        func(r *Record) { r.DType = "" },
		"procs-like dtype":   func(r *Record) { r.DType = "float-16" },
		"no device":          func(r *Record) { r.Device = "" },
		"negative bytes":     func(r *Record) { r.Bytes = -1 },
		"flops beyond float": func(r *Record) { r.Flops = 1<<53 + 1 },
	} {
		r := sample[0]
		mut(&r)
		if err := NewBenchWriter(new(bytes.Buffer)).Write(r); err == nil {
			t.Errorf("%s: Write accepted %+v", name, r)
		}
	}
}

func TestReadBenchErrors(t *testing.T) {
	const in = `device: d
roof: vector.fp32

BenchmarkRoofline/op=A/workload=w/dtype=float32-8 10 5 ns/op 2 roof-flops/op 4 roof-bytes/op 16 B/op
BenchmarkOther 10 5 ns/op
BenchmarkRoofline/op=A/workload=w/dtype=float32/extra=1 10 5 ns/op 2 roof-flops/op 4 roof-bytes/op
BenchmarkRoofline/op=A/workload=w/dtype=float32 10 5 ns/op 2.5 roof-flops/op
roof:

BenchmarkRoofline/op=A/workload=w/dtype=float32 10 5 ns/op 2 roof-flops/op 4 roof-bytes/op
`
	recs, fs := ReadBench(strings.NewReader(in), "r.txt")
	// Line 4 is good: ns/op is tidied to seconds, B/op and the GOMAXPROCS suffix ignored.
	if len(recs) != 1 || recs[0].Seconds != 5e-9 || recs[0].DType != "float32" || recs[0].Pos.Line != 4 {
		t.Fatalf("records = %+v", recs)
	}
	want := []string{
		"r.txt:5: Other: benchmark name must start with BenchmarkRoofline/",
		`r.txt:6: Roofline/op=A/workload=w/dtype=float32/extra=1: unknown name key "extra"`,
		"r.txt:7: Roofline/op=A/workload=w/dtype=float32: roof-flops/op 2.5 is not a whole number",
		"r.txt:7: Roofline/op=A/workload=w/dtype=float32: no roof-bytes/op value",
		`r.txt:10: Roofline/op=A/workload=w/dtype=float32: roof "" is empty`,
	}
	got := fs.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("findings lack %q:\n%s", w, got)
		}
	}
	if len(fs) != len(want) {
		t.Errorf("%d findings, want %d:\n%s", len(fs), len(want), got)
	}
}

func TestReadJSONErrors(t *testing.T) {
	in := `{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":2,"seconds":1e-6,"iters":3}

{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":2,"seconds":1e-6,"iters":3,"color":1}
{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":-2,"seconds":1e-6,"iters":3}
`
	recs, fs := ReadJSON(strings.NewReader(in), "r.jsonl")
	if len(recs) != 1 || recs[0].Pos.Line != 1 {
		t.Fatalf("records = %+v", recs)
	}
	got := fs.Error()
	if len(fs) != 2 || !strings.Contains(got, `r.jsonl:3: unknown key "color"`) || !strings.Contains(got, "r.jsonl:4: flops 1 and bytes -2") {
		t.Errorf("findings:\n%s", got)
	}
}

func TestReadFilesSniffs(t *testing.T) {
	dir := t.TempDir()
	var bench, jsonl bytes.Buffer
	if err := NewBenchWriter(&bench).Write(sample[0]); err != nil {
		t.Fatal(err)
	}
	if err := NewJSONWriter(&jsonl).Write(sample[1]); err != nil {
		t.Fatal(err)
	}
	b, j := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(b, bench.Bytes(), 0o666)
	os.WriteFile(j, append([]byte("\n  "), jsonl.Bytes()...), 0o666)
	recs, fs := ReadFiles(b, j, filepath.Join(dir, "missing"))
	if len(recs) != 2 || recs[0].Workload != "decode" || recs[1].Workload != "prefill" || recs[1].Pos.Line != 2 {
		t.Errorf("records = %+v", recs)
	}
	if len(fs) != 1 || !strings.Contains(fs[0].String(), "missing") {
		t.Errorf("findings = %v", fs)
	}
}

// The reader must keep accepting what the Go testing package itself prints.
func TestReadsBenchfmtOutput(t *testing.T) {
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	res := &benchfmt.Result{
		Config: []benchfmt.Config{{Key: "device", Value: []byte("cpu"), File: true}, {Key: "roof", Value: []byte("vector.fp32"), File: true}},
		Name:   benchfmt.Name("Roofline/op=Add/workload=w/dtype=float32-2"),
		Iters:  7,
		Values: []benchfmt.Value{{Value: 1500, Unit: "ns/op"}, {Value: 3, Unit: UnitFlops}, {Value: 24, Unit: UnitBytes}},
	}
	if err := w.Write(res); err != nil {
		t.Fatal(err)
	}
	recs, fs := ReadBench(&buf, "x")
	if fs != nil || len(recs) != 1 || recs[0].Seconds != 1.5e-6 || recs[0].Iters != 7 || recs[0].Bytes != 24 {
		t.Errorf("records %+v, findings %v", recs, fs)
	}
}

// TestReadersNeverChangeData: every input below was once read as something other than what
// it says (issue 11 item 6): a byte order mark lost the first benchmark record, a duplicate
// or case-variant key overrode the real value, a missing or null count became 0. Each is
// now an error at its line.
func TestReadersNeverChangeData(t *testing.T) {
	const good = `"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32"`
	for _, c := range []struct{ name, line, want string }{
		{"duplicate", `{` + good + `,"flops":1,"bytes":2,"bytes":999,"seconds":1e-6,"iters":3}`, `key "bytes" given twice`},
		{"case variant", `{` + good + `,"flops":1,"bytes":2,"BYTES":999,"seconds":1e-6,"iters":3}`, `unknown key "BYTES"`},
		{"no flops", `{` + good + `,"bytes":2,"seconds":1e-6,"iters":3}`, "missing key(s) flops"},
		{"no bytes", `{` + good + `,"flops":1,"seconds":1e-6,"iters":3}`, "missing key(s) bytes"},
		{"no seconds", `{` + good + `,"flops":1,"bytes":2,"iters":3}`, "missing key(s) seconds"},
		{"null flops", `{` + good + `,"flops":null,"bytes":2,"seconds":1e-6,"iters":3}`, "flops is null"},
		{"float flops", `{` + good + `,"flops":1.5,"bytes":2,"seconds":1e-6,"iters":3}`, "flops: 1.5 is not a value"},
		{"half a spread", `{` + good + `,"flops":1,"bytes":2,"seconds":1e-6,"min_seconds":1e-6,"iters":3}`, "min_seconds and max_seconds come together"},
		{"spread around", `{` + good + `,"flops":1,"bytes":2,"seconds":1e-6,"min_seconds":2e-6,"max_seconds":3e-6,"iters":3}`, "spread: min_seconds 2e-06"},
		{"two values", `{` + good + `,"flops":1,"bytes":2,"seconds":1e-6,"iters":3} {}`, "more than one JSON value"},
	} {
		recs, fs := ReadJSON(strings.NewReader("\n"+c.line+"\n"), "r.jsonl")
		if len(recs) != 0 || len(fs) != 1 || !strings.Contains(fs.Error(), "r.jsonl:2: "+c.want) {
			t.Errorf("%s: records %+v, findings %v; want r.jsonl:2: %s", c.name, recs, fs, c.want)
		}
	}

	// A byte order mark is an error at line 1 of either format, and the record after it is
	// still read, not lost.
	var bench, jsonl bytes.Buffer
	NewBenchWriter(&bench).Write(sample[0])
	NewJSONWriter(&jsonl).Write(sample[0])
	for name, read := range map[string]func(*bytes.Buffer) ([]Record, diag.Findings){
		"bench": func(b *bytes.Buffer) ([]Record, diag.Findings) { return ReadBench(b, "r") },
		"json":  func(b *bytes.Buffer) ([]Record, diag.Findings) { return ReadJSON(b, "r") },
	} {
		src := bench
		if name == "json" {
			src = jsonl
		}
		recs, fs := read(bytes.NewBuffer(append([]byte("\uFEFF"), src.Bytes()...)))
		if len(recs) != 1 || len(fs) != 1 || !strings.Contains(fs.Error(), "r:1:1: the file starts with a UTF-8 byte order mark") {
			t.Errorf("%s with a BOM: records %d, findings %v", name, len(recs), fs)
		}
	}

	// A unit given twice in benchmark format is refused, not read as its first value.
	in := "device: d\nroof: vector.fp32\n\nBenchmarkRoofline/op=A/workload=w/dtype=float32 1 1e-06 sec/op 1 roof-flops/op 2 roof-bytes/op 999 roof-bytes/op\n"
	if recs, fs := ReadBench(strings.NewReader(in), "r.txt"); len(recs) != 0 || !strings.Contains(fs.Error(), "unit roof-bytes/op given twice") {
		t.Errorf("duplicate unit: records %+v, findings %v", recs, fs)
	}
}

// TestSpreadRoundTrip: the spread survives both formats, and the benchmark format stays the
// shape benchstat reads (a metric per unit).
func TestSpreadRoundTrip(t *testing.T) {
	r := sample[0]
	r.MinSeconds, r.MaxSeconds = 1.1e-05, 1.5e-05
	var bench, jsonl bytes.Buffer
	if err := NewBenchWriter(&bench).Write(r); err != nil {
		t.Fatal(err)
	}
	if err := NewJSONWriter(&jsonl).Write(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bench.String(), " 1.2345678901234e-05 sec/op 1.1e-05 min-sec/op 1.5e-05 max-sec/op ") {
		t.Errorf("benchmark format:\n%s", bench.String())
	}
	for name, got := range map[string][]Record{"bench": mustRead(t, ReadBench, &bench), "json": mustRead(t, ReadJSON, &jsonl)} {
		if len(got) != 1 || got[0].MinSeconds != r.MinSeconds || got[0].MaxSeconds != r.MaxSeconds {
			t.Errorf("%s: %+v", name, got)
		}
		if lo, hi := got[0].Spread(); lo != r.MinSeconds || hi != r.MaxSeconds {
			t.Errorf("%s: Spread() = %v, %v", name, lo, hi)
		}
	}
	old := sample[0]
	if lo, hi := old.Spread(); lo != old.Seconds || hi != old.Seconds {
		t.Errorf("a record without a spread: Spread() = %v, %v; want its seconds twice", lo, hi)
	}
}

func mustRead(t *testing.T, read func(io.Reader, string) ([]Record, diag.Findings), r io.Reader) []Record {
	t.Helper()
	recs, fs := read(r, "x")
	if fs != nil {
		t.Fatal(fs)
	}
	return recs
}

// TestRefRateRoundTrip: the same-time reference survives both formats as a value of its own
// (a metric to benchstat, a key in JSON lines); a record without one is written exactly as
// before it existed (no ref-B/s value, no ref_rate key), and such an old record reads back
// with none (0). A negative or NaN rate is refused.
func TestRefRateRoundTrip(t *testing.T) {
	r := sample[0]
	r.MinSeconds, r.MaxSeconds, r.RefRate = 1.1e-05, 1.5e-05, 1.25e10
	var bench, jsonl bytes.Buffer
	if err := NewBenchWriter(&bench).Write(r); err != nil {
		t.Fatal(err)
	}
	if err := NewJSONWriter(&jsonl).Write(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bench.String(), " 3.3570816e+07 roof-bytes/op 1.25e+10 ref-B/s\n") || !strings.Contains(jsonl.String(), `,"ref_rate":12500000000}`) {
		t.Errorf("the reference is not written:\n%s%s", bench.String(), jsonl.String())
	}
	for name, got := range map[string][]Record{"bench": mustRead(t, ReadBench, &bench), "json": mustRead(t, ReadJSON, &jsonl)} {
		if len(got) != 1 || got[0].RefRate != r.RefRate {
			t.Errorf("%s: %+v", name, got)
		}
	}

	old := sample[0]
	bench.Reset()
	jsonl.Reset()
	NewBenchWriter(&bench).Write(old)
	NewJSONWriter(&jsonl).Write(old)
	if strings.Contains(bench.String()+jsonl.String(), "ref") {
		t.Errorf("a record without a reference names one:\n%s%s", bench.String(), jsonl.String())
	}
	const oldJSON = `{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":2,"seconds":1e-6,"iters":3}`
	const oldBench = "device: d\nroof: vector.fp32\n\nBenchmarkRoofline/op=A/workload=w/dtype=float32 3 1e-06 sec/op 1 roof-flops/op 2 roof-bytes/op\n"
	for name, got := range map[string][]Record{"bench": mustRead(t, ReadBench, strings.NewReader(oldBench)), "json": mustRead(t, ReadJSON, strings.NewReader(oldJSON))} {
		if len(got) != 1 || got[0].RefRate != 0 || got[0].Bytes != 2 {
			t.Errorf("%s: an old record reads as %+v", name, got)
		}
	}

	for _, bad := range []string{`-1`, `"fast"`, `null`} {
		line := strings.TrimSuffix(oldJSON, "}") + `,"ref_rate":` + bad + "}"
		if recs, fs := ReadJSON(strings.NewReader(line), "r.jsonl"); len(recs) != 0 || len(fs) != 1 || !strings.Contains(fs.Error(), "ref_rate") {
			t.Errorf("ref_rate %s: records %+v, findings %v", bad, recs, fs)
		}
	}
	in := strings.Replace(oldBench, "roof-bytes/op\n", "roof-bytes/op -5 ref-B/s\n", 1)
	if recs, fs := ReadBench(strings.NewReader(in), "r.txt"); len(recs) != 0 || !strings.Contains(fs.Error(), "ref_rate -5 must be finite and not negative") {
		t.Errorf("a negative ref-B/s: records %+v, findings %v", recs, fs)
	}
}

// TestRefRateIntervalRoundTrip: the reference's interval survives both formats; a record
// with only one bound, or with the rate outside its bounds, is refused in either.
func TestRefRateIntervalRoundTrip(t *testing.T) {
	r := sample[0]
	r.MinSeconds, r.MaxSeconds, r.RefRate, r.RefRateLow, r.RefRateHigh = 1.1e-05, 1.5e-05, 1.25e10, 1.2e10, 1.3e10
	var bench, jsonl bytes.Buffer
	if err := NewBenchWriter(&bench).Write(r); err != nil {
		t.Fatal(err)
	}
	if err := NewJSONWriter(&jsonl).Write(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bench.String(), " 1.25e+10 ref-B/s 1.2e+10 ref-lo-B/s 1.3e+10 ref-hi-B/s\n") || !strings.Contains(jsonl.String(), `"ref_rate_low":12000000000,"ref_rate_high":13000000000}`) {
		t.Errorf("the interval is not written:\n%s%s", bench.String(), jsonl.String())
	}
	for name, got := range map[string][]Record{"bench": mustRead(t, ReadBench, &bench), "json": mustRead(t, ReadJSON, &jsonl)} {
		if len(got) != 1 || got[0].RefRateLow != r.RefRateLow || got[0].RefRateHigh != r.RefRateHigh {
			t.Errorf("%s: %+v", name, got)
		}
	}
	const base = `{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":2,"seconds":1e-6,"iters":3,"ref_rate":1e10`
	for _, tc := range []struct{ tail, want string }{
		{`,"ref_rate_low":9e9}`, "come together"},
		{`,"ref_rate_low":1.1e10,"ref_rate_high":1.2e10}`, "ref_rate_low 1.1e+10 <= ref_rate 1e+10"},
	} {
		if recs, fs := ReadJSON(strings.NewReader(base+tc.tail), "r.jsonl"); len(recs) != 0 || !strings.Contains(fs.Error(), tc.want) {
			t.Errorf("%s: records %+v, findings %v", tc.tail, recs, fs)
		}
	}
	const oldBench = "device: d\nroof: vector.fp32\n\nBenchmarkRoofline/op=A/workload=w/dtype=float32 3 1e-06 sec/op 1 roof-flops/op 2 roof-bytes/op 1e10 ref-B/s"
	if recs, fs := ReadBench(strings.NewReader(oldBench+" 9e9 ref-lo-B/s\n"), "r.txt"); len(recs) != 0 || !strings.Contains(fs.Error(), "come together") {
		t.Errorf("one bound alone: records %+v, findings %v", recs, fs)
	}
}

// TestProbeRateRoundTrip: the compute probe and its interval survive both formats; a probe
// in GFLOP/s (a unit slip) or outside its bounds is refused in either.
func TestProbeRateRoundTrip(t *testing.T) {
	r := sample[0]
	r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh = 4.5e11, 4.25e11, 4.75e11
	var bench, jsonl bytes.Buffer
	if err := NewBenchWriter(&bench).Write(r); err != nil {
		t.Fatal(err)
	}
	if err := NewJSONWriter(&jsonl).Write(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bench.String(), " 4.5e+11 probe-FLOP/s 4.25e+11 probe-lo-FLOP/s 4.75e+11 probe-hi-FLOP/s\n") || !strings.Contains(jsonl.String(), `"probe_rate":450000000000,"probe_rate_low":425000000000,"probe_rate_high":475000000000}`) {
		t.Errorf("the probe is not written:\n%s%s", bench.String(), jsonl.String())
	}
	for name, got := range map[string][]Record{"bench": mustRead(t, ReadBench, &bench), "json": mustRead(t, ReadJSON, &jsonl)} {
		if len(got) != 1 || got[0].ProbeRate != r.ProbeRate || got[0].ProbeRateLow != r.ProbeRateLow || got[0].ProbeRateHigh != r.ProbeRateHigh {
			t.Errorf("%s: %+v", name, got)
		}
	}
	const base = `{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":2,"seconds":1e-6,"iters":3`
	for _, tc := range []struct{ tail, want string }{
		{`,"probe_rate":450}`, "probe_rate 450 FLOP/s is below"},
		{`,"probe_rate":4e11,"probe_rate_low":4.1e11,"probe_rate_high":4.2e11}`, "probe_rate_low 4.1e+11 <= probe_rate 4e+11"},
		{`,"probe_rate":4e11,"probe_rate_high":4.2e11}`, "come together"},
	} {
		if recs, fs := ReadJSON(strings.NewReader(base+tc.tail), "r.jsonl"); len(recs) != 0 || fs == nil || !strings.Contains(fs.Error(), tc.want) {
			t.Errorf("%s: records %+v, findings %v", tc.tail, recs, fs)
		}
	}
}

// TestReadBenchNamesEveryLine: benchfmt skips a line it does not recognise without a word,
// so an indented or misspelled result line was a record dropped from the report (issue 23
// item 3). Every line that is not blank, a comment, a configuration or Unit line, a result,
// or go test's PASS and ok lines is an error at its line; those are read as before.
func TestReadBenchNamesEveryLine(t *testing.T) {
	const rec = "BenchmarkRoofline/op=A/workload=w/dtype=float32 10 5e-06 sec/op 2 roof-flops/op 4 roof-bytes/op"
	in := strings.Join([]string{
		"# a comment",
		"device: d",
		"roof: vector.fp32",
		"",
		rec,
		" " + rec,
		"benchmarkRoofline/op=A/workload=w2/dtype=float32 10 5e-06 sec/op 2 roof-flops/op 4 roof-bytes/op",
		"BenchmarkRoofline/op=A/workload=w3/dtype=float32",
		"Device: d",
		"some text",
		"\t" + rec,
		"PASS",
		"ok  \texample.com/kbench\t1.234s",
		"Unit roof-flops/op assume=exact",
		rec,
	}, "\n") + "\n"
	recs, fs := ReadBench(strings.NewReader(in), "r.txt")
	if len(recs) != 2 || recs[0].Pos.Line != 5 || recs[1].Pos.Line != 15 {
		t.Errorf("records %+v, want lines 5 and 15", recs)
	}
	want := []string{
		"r.txt:6: a result line starts at the first column: remove the indentation",
		`r.txt:7: "benchmark" is not a result line: a result line starts with Benchmark`,
		"r.txt:8: a result line with a name and no values",
		"r.txt:9: not a record, a configuration line (key: value)",
		"r.txt:10: not a record, a configuration line (key: value)",
		"r.txt:11: a result line starts at the first column",
	}
	got := fs.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("findings lack %q:\n%s", w, got)
		}
	}
	if len(fs) != len(want) {
		t.Errorf("%d findings, want %d:\n%s", len(fs), len(want), got)
	}
	// ReadFiles streams the same checks.
	path := filepath.Join(t.TempDir(), "r.txt")
	os.WriteFile(path, []byte(in), 0o666)
	if recs, fs := ReadFiles(path); len(recs) != 2 || len(fs) != len(want) {
		t.Errorf("ReadFiles: %d records, findings:\n%v", len(recs), fs)
	}
}

// TestReadBenchBareCR: the format ends a line at \n alone, so a carriage return inside a
// line hid what followed it: a record after "# log\r" was one comment with it, and one after
// "roof: x\r" part of the roof value, both dropped without a word. A carriage return that
// does not end its line is an error at its line and column, in a line of any length; \r\n
// line ends still read.
func TestReadBenchBareCR(t *testing.T) {
	const rec = "BenchmarkRoofline/op=A/workload=w/dtype=float32 10 5e-06 sec/op 2 roof-flops/op 4 roof-bytes/op"
	for _, c := range []struct {
		name, in string
		recs     int
		want     string // the finding's position, "" for none
	}{
		{"comment", "device: d\nroof: r\n# harness log\r" + rec + "\n" + rec + "\n", 1, "r.txt:3:14: a carriage return"},
		{"configuration", "device: d\nroof: r\r" + rec + "\n" + rec + "\n", 0, "r.txt:2:8: a carriage return"},
		{"result", "device: d\nroof: r\n" + rec + "\r" + rec + "\n", 0, "r.txt:3:96: a carriage return"}, // at len(rec) + 1
		{"crlf", "device: d\r\nroof: r\r\n" + rec + "\r\n" + rec + "\r", 2, ""},
	} {
		for name, read := range map[string]func() ([]Record, diag.Findings){
			"ReadBench": func() ([]Record, diag.Findings) { return ReadBench(strings.NewReader(c.in), "r.txt") },
			"ReadFiles": func() ([]Record, diag.Findings) {
				path := filepath.Join(t.TempDir(), "r.txt")
				os.WriteFile(path, []byte(c.in), 0o666)
				recs, fs := ReadFiles(path)
				for i := range fs {
					fs[i].Pos.File = filepath.Base(fs[i].Pos.File)
				}
				return recs, fs
			},
		} {
			recs, fs := read()
			crs := 0
			for _, f := range fs {
				if strings.Contains(f.Msg, "carriage return") {
					crs++
				}
			}
			if len(recs) != c.recs || (c.want == "") != (crs == 0) || crs > 1 || !strings.Contains(fs.Error(), c.want) {
				t.Errorf("%s, %s: %d records (want %d), findings:\n%v\nwant %q", c.name, name, len(recs), c.recs, fs, c.want)
			}
		}
	}
	// A line longer than the reader's buffer comes in chunks: a carriage return in a later
	// chunk, or ending one chunk with no \n starting the next, is found at its column.
	for in, want := range map[string]string{
		"# 0123456789abcdef\rxyz\n":    "f:1:19:",
		"# 0123456789abc\rxyz\n":       "f:1:16:", // the \r ends the first chunk
		"# 0123456789abc\r\n# z\r\n":   "",
		"# 0123456789abcdefghi\r\r\n":  "f:1:22:",
		"# 01\r\n# 0123456789abcdef\r": "",
	} {
		var fs diag.Findings
		lc := &lineCheck{r: bufio.NewReaderSize(strings.NewReader(in), 16), file: "f", fs: &fs}
		if out, err := io.ReadAll(lc); err != nil || string(out) != in {
			t.Fatalf("%q: passed on as %q, %v", in, out, err)
		}
		if (want == "") != (len(fs) == 0) || len(fs) > 1 || !strings.Contains(fs.Error(), want) {
			t.Errorf("%q: findings %v, want %q", in, fs, want)
		}
	}
}

// TestInvisibleNames: a bidirectional override (U+202E) in a name reversed the rest of a
// report's row in a terminal, numbers included, and a zero-width space (U+200B) made
// Gemm\u200bFwd look like GemmFwd in every output. A name with an invisible formatting
// character (Unicode Cf) is refused, in every field and both encodings.
func TestInvisibleNames(t *testing.T) {
	for _, set := range []func(*Record){
		func(r *Record) { r.Op = "Gemm\u200bFwd" },
		func(r *Record) { r.Workload = "decode\u202e" },
		func(r *Record) { r.DType = "\u2066float32" },
		func(r *Record) { r.Roof = "vector.fp32\ufeff" },
		func(r *Record) { r.Device = "NVIDIA \u202eH200" },
	} {
		r := sample[0]
		set(&r)
		errs := Check(r)
		if len(errs) != 1 || !strings.Contains(errs[0], "contains the invisible formatting character U+") {
			t.Errorf("%+v: %v", r, errs)
		}
		var out bytes.Buffer
		if err := NewJSONWriter(&out).Write(r); err == nil {
			t.Errorf("%+v written", r)
		}
	}
	const rec = "BenchmarkRoofline/op=Gemm\u200bFwd/workload=w/dtype=float32 1 1e-06 sec/op 2 roof-flops/op 4 roof-bytes/op\n"
	if recs, fs := ReadBench(strings.NewReader("device: d\nroof: r\n"+rec), "r.txt"); len(recs) != 0 || !strings.Contains(fs.Error(), "r.txt:3: ") || !strings.Contains(fs.Error(), "U+200B") {
		t.Errorf("records %+v, findings %v", recs, fs)
	}
}

// TestImpossibleTimes: a time no call can take (1e-300 s) priced to a 290-digit efficiency
// and an infinite percentage (issue 23 item 9); it is refused at its line, in both
// encodings, as a same-time reference slower than any memory is. 0 (no device activity)
// and a picosecond still read.
func TestImpossibleTimes(t *testing.T) {
	const head = "device: d\nroof: vector.fp32\n\n"
	for _, c := range []struct{ line, want string }{
		{"BenchmarkRoofline/op=A/workload=w/dtype=float32 1 1e-300 sec/op 2 roof-flops/op 4 roof-bytes/op", "seconds 1e-300 is below 1e-12 s"},
		{"BenchmarkRoofline/op=A/workload=w/dtype=float32 1 1e-06 sec/op 1e-20 min-sec/op 2e-06 max-sec/op 2 roof-flops/op 4 roof-bytes/op", "min_seconds 1e-20 is below"},
		{"BenchmarkRoofline/op=A/workload=w/dtype=float32 1 1e-06 sec/op 2 roof-flops/op 4 roof-bytes/op 1e-300 ref-B/s", "ref_rate 1e-300 B/s is below 1e+06 B/s"},
		// Nanoseconds written as seconds priced at 0.0%, silently (issue 40 item 10).
		{"BenchmarkRoofline/op=A/workload=w/dtype=float32 1 9200 sec/op 2 roof-flops/op 4 roof-bytes/op", "seconds 9200 is above 3600 s (record.MaxTime)"},
		{"BenchmarkRoofline/op=A/workload=w/dtype=float32 1 1e-06 sec/op 1e-06 min-sec/op 3601 max-sec/op 2 roof-flops/op 4 roof-bytes/op", "max_seconds 3601 is above 3600 s"},
		// A spread whose fastest sample is 0 s priced an infinite rate: a formula error
		// with blank numbers.
		{"BenchmarkRoofline/op=A/workload=w/dtype=float32 1 1e-06 sec/op 0 min-sec/op 2e-06 max-sec/op 2 roof-flops/op 4 roof-bytes/op", "spread: min_seconds 0 with max_seconds 2e-06"},
		{"BenchmarkRoofline/op=A/workload=w/dtype=float32 1 0 sec/op 0 min-sec/op 2e-06 max-sec/op 2 roof-flops/op 4 roof-bytes/op", "spread: min_seconds 0 with max_seconds 2e-06"},
	} {
		if recs, fs := ReadBench(strings.NewReader(head+c.line+"\n"), "r.txt"); len(recs) != 0 || !strings.Contains(fs.Error(), "r.txt:4: ") || !strings.Contains(fs.Error(), c.want) {
			t.Errorf("%s: records %+v, findings %v; want %q", c.line, recs, fs, c.want)
		}
	}
	line := `{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":2,"seconds":1e-300,"iters":3}`
	if recs, fs := ReadJSON(strings.NewReader(line+"\n"), "r.jsonl"); len(recs) != 0 || !strings.Contains(fs.Error(), "r.jsonl:1: seconds 1e-300 is below") {
		t.Errorf("JSON: records %+v, findings %v", recs, fs)
	}
	line = `{"device":"d","op":"A","workload":"w","dtype":"float32","roof":"vector.fp32","flops":1,"bytes":2,"seconds":4e-05,"min_seconds":0,"max_seconds":5e-05,"iters":3}`
	if recs, fs := ReadJSON(strings.NewReader(line+"\n"), "r.jsonl"); len(recs) != 0 || !strings.Contains(fs.Error(), "r.jsonl:1: spread: min_seconds 0 with max_seconds 5e-05") {
		t.Errorf("JSON, a spread from 0 s: records %+v, findings %v", recs, fs)
	}
	for _, secs := range []float64{0, MinTime, MaxTime} {
		r := sample[0]
		r.Seconds = secs
		if errs := Check(r); errs != nil {
			t.Errorf("seconds %g: %v", secs, errs)
		}
	}
}

// TestReadBounds: what one read keeps is bounded (issue 23 item 8): each name by
// MaxFieldBytes, a JSON line by maxJSONLine, and the records by MaxRecords, past which the
// read stops with an error at the first record left out.
func TestReadBounds(t *testing.T) {
	r := sample[0]
	r.Workload = strings.Repeat("w", MaxFieldBytes+1)
	if errs := Check(r); len(errs) != 1 || !strings.Contains(errs[0], "workload is 513 bytes long; the limit is 512") {
		t.Errorf("a long workload: %v", errs)
	}
	long := `{"device":"` + strings.Repeat("d", maxJSONLine) + `"}` + "\n"
	if recs, fs := ReadJSON(strings.NewReader(long), "r.jsonl"); len(recs) != 0 || !strings.Contains(fs.Error(), "r.jsonl:1: the line is longer than 65536 bytes") {
		t.Errorf("a long line: records %d, findings %v", len(recs), fs)
	}

	var bench, jsonl bytes.Buffer
	bw, jw := NewBenchWriter(&bench), NewJSONWriter(&jsonl)
	for i := range 5 {
		r := sample[0]
		r.Workload = "w" + strings.Repeat("x", i)
		bw.Write(r)
		jw.Write(r)
	}
	for name, read := range map[string]func(*readState) ([]Record, diag.Findings){
		"bench": func(st *readState) ([]Record, diag.Findings) {
			return st.readBench(bytes.NewReader(bench.Bytes()), "r", nil)
		},
		"json": func(st *readState) ([]Record, diag.Findings) {
			return st.readJSON(bytes.NewReader(jsonl.Bytes()), "r", nil)
		},
	} {
		st := newReadState()
		st.limit = 3
		recs, fs := read(st)
		if len(recs) != 3 || len(fs) != 1 || !strings.Contains(fs[0].Msg, "more than 3 records (record.MaxRecords): the rest are not read") {
			t.Errorf("%s: %d records, findings %v", name, len(recs), fs)
		}
	}
	// The bytes a read takes are bounded too: a read that meets more stops with an error,
	// and ReadFiles refuses files that add up to more before reading any.
	st := newReadState()
	st.byteLimit = int64(bench.Len()) - 20 // inside the last record
	if recs, fs := st.readBench(bytes.NewReader(bench.Bytes()), "r", nil); len(recs) != 4 || !strings.Contains(fs.Error(), fmt.Sprintf("more than %d bytes of records (record.MaxInputBytes): the rest are not read", st.byteLimit)) {
		t.Errorf("a read past the byte limit: %d records, findings %v", len(recs), fs)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, bench.Bytes(), 0o666)
	os.WriteFile(b, bench.Bytes(), 0o666)
	st = newReadState()
	st.byteLimit = int64(2*bench.Len()) - 1
	if fs := st.tooBig([]string{a, b}); len(fs) != 2 || !strings.Contains(fs.Error(), "a.txt: the record files add up to") || !strings.Contains(fs.Error(), "more than one report reads (record.MaxInputBytes") {
		t.Errorf("files past the byte limit: findings %v", fs)
	}
	if st.byteLimit++; st.tooBig([]string{a, b}) != nil {
		t.Errorf("files of exactly the byte limit are refused")
	}
	// The names a run repeats are shared, not copied per record.
	recs, _ := ReadBench(bytes.NewReader(bench.Bytes()), "r")
	if len(recs) != 5 || unsafe.StringData(recs[0].Device) != unsafe.StringData(recs[4].Device) || unsafe.StringData(recs[0].Op) != unsafe.StringData(recs[4].Op) {
		t.Errorf("device and op are copied per record")
	}
}

// FuzzReadBench: whatever the input, the benchmark format reader does not panic, every
// record it returns passes Check and writes back to itself, and no line that starts like a
// result (Benchmark in any case, indented or not) is dropped without a record or a finding
// at that line.
func FuzzReadBench(f *testing.F) {
	var buf bytes.Buffer
	bw := NewBenchWriter(&buf)
	for _, r := range sample {
		bw.Write(r)
	}
	f.Add(buf.String())
	f.Add("device: d\nroof: r\n BenchmarkRoofline/op=A/workload=w/dtype=f 1 1 sec/op 1 roof-flops/op 1 roof-bytes/op\n")
	f.Add("benchmarkRoofline/op=A\nBenchmarkRoofline/op=A/workload=w/dtype=f\nPASS\n# c\nUnit x a=b\n")
	f.Add("device: d\nroof: r\r\n# log\rBenchmarkRoofline/op=A/workload=w/dtype=f 1 1e-06 sec/op 1 roof-flops/op 1 roof-bytes/op\r\n")
	f.Add("device: d\nroof: r\rBenchmarkRoofline/op=A/workload=w/dtype=f 1 0 sec/op 0 min-sec/op 1e-06 max-sec/op 1 roof-flops/op 1 roof-bytes/op\n")
	f.Add("device: d\u202e\nroof: r\nBenchmarkRoofline/op=A\u200bB/workload=w\u202e/dtype=f 1 0 sec/op 1 roof-flops/op 1 roof-bytes/op\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, fs := ReadBench(strings.NewReader(in), "f")
		at := map[int]bool{}
		for _, r := range recs {
			at[r.Pos.Line] = true
			if errs := Check(r); errs != nil {
				t.Fatalf("record %+v fails Check: %v", r, errs)
			}
			if r.Flops <= maxExact && r.Bytes <= maxExact {
				writesBack(t, r, func(w io.Writer) func(Record) error { return NewBenchWriter(w).Write }, ReadBench)
			}
		}
		for _, f := range fs {
			if f.Pos.File != "f" {
				t.Fatalf("finding without the file: %v", f)
			}
			at[f.Pos.Line] = true
		}
		if len(fs) > 0 && fs[len(fs)-1].Pos.Line == 0 {
			return // an I/O error (a line too long) ends the read
		}
		lines := strings.Split(in, "\n")
		for i, line := range lines {
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "benchmark") && !at[i+1] {
				t.Fatalf("line %d %q: no record and no finding", i+1, line)
			}
			// A carriage return that does not end its line hides what follows it.
			if strings.Contains(strings.TrimSuffix(line, "\r"), "\r") && !at[i+1] {
				t.Fatalf("line %d %q: a carriage return inside it and no finding", i+1, line)
			}
		}
	})
}

// FuzzReadJSON: whatever the input, the JSON lines reader does not panic, every record it
// returns passes Check and writes back to itself, and every non-blank line gives a record or
// a finding at that line.
func FuzzReadJSON(f *testing.F) {
	var buf bytes.Buffer
	jw := NewJSONWriter(&buf)
	for _, r := range sample {
		jw.Write(r)
	}
	f.Add(buf.String())
	f.Add(`{"device":"d","op":"A","workload":"w","dtype":"f","roof":"r","flops":1,"bytes":2,"seconds":1e-300,"iters":3}` + "\n{}\n[1]\n")
	f.Add(`{"device":"d","op":"A","workload":"w","dtype":"f","roof":"r","flops":1,"bytes":2,"seconds":4e-05,"min_seconds":0,"max_seconds":5e-05,"iters":3}` + "\r{}\r\n")
	f.Add(`{"device":"d\u202e","op":"A\u200bB","workload":"w","dtype":"f","roof":"r","flops":1,"bytes":2,"seconds":0,"iters":3}` + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, fs := ReadJSON(strings.NewReader(in), "f")
		at := map[int]bool{}
		for _, r := range recs {
			at[r.Pos.Line] = true
			if errs := Check(r); errs != nil {
				t.Fatalf("record %+v fails Check: %v", r, errs)
			}
			writesBack(t, r, func(w io.Writer) func(Record) error { return NewJSONWriter(w).Write }, ReadJSON)
		}
		for _, f := range fs {
			at[f.Pos.Line] = true
		}
		if len(fs) > 0 && fs[len(fs)-1].Msg != "" && strings.Contains(fs[len(fs)-1].Msg, "longer than") {
			return
		}
		// bufio.Scanner splits at \n and drops one \r before it, as the reader does.
		for i, line := range strings.Split(in, "\n") {
			if len(bytes.TrimSpace([]byte(line))) > 0 && !at[i+1] {
				t.Fatalf("line %d %q: no record and no finding", i+1, line)
			}
		}
	})
}

// writesBack fails unless r, written with the writer newWriter makes, reads back as itself.
func writesBack(t *testing.T, r Record, newWriter func(io.Writer) func(Record) error, read func(io.Reader, string) ([]Record, diag.Findings)) {
	t.Helper()
	var out bytes.Buffer
	if err := newWriter(&out)(r); err != nil {
		t.Fatalf("record %+v does not write: %v", r, err)
	}
	back, fs := read(&out, "f")
	if len(back) != 1 || len(fs) != 0 {
		t.Fatalf("record %+v read back as %+v, %v", r, back, fs)
	}
	back[0].Pos = r.Pos
	if back[0] != r {
		t.Fatalf("record %+v read back as %+v", r, back[0])
	}
}

// TestConfigValue: the value of the first configuration line of the key, by the reader's rule:
// a line the reader would not take for a configuration line (an upper-case key, no space
// after the colon) names nothing, and a key's later lines do not override its first.
func TestConfigValue(t *testing.T) {
	text := "Commit: upper\ncommit:nospace\n# commit: comment\ncommit:   abc123  \ncommit: later\nBenchmarkX 1 2 ns/op\n"
	if got := ConfigValue(strings.NewReader(text), "commit"); got != "abc123" {
		t.Errorf("commit = %q, want abc123", got)
	}
	if got := ConfigValue(strings.NewReader(text), "device"); got != "" {
		t.Errorf("device = %q, want none", got)
	}
}
