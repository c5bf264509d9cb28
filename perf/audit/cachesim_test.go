package audit

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/record"
)

// testdata/sim holds real valgrind 3.19 outputs (bodies trimmed): of a 2^18-element float32
// add (1 MiB per tensor), callgrind collecting only the add's function, callgrind whose
// toggle function never ran, and a whole-program cachegrind run; and the pair roprun writes
// for SubFwd on the Llama-3 decode logits, the run with the call and its baseline.
func TestReadSimDir(t *testing.T) {
	ms, fs := ReadSimDir("testdata/sim")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	want := []call{
		{"AddFwd:toy:float32", 1, 32770 * 64, 16384 * 64},
		{"ReluFwd:toy:float32", 0, 0, 0},
		{"ExpFwd:toy:float32", 1, 101424 * 64, 50679 * 64},
		{"SubFwd:llama3-decode-b8-logits-center:float32", 1, (161989 - 97923) * 64, (220285 - 156161) * 64},
	}
	if got := calls(ms); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}

	const mib = 1 << 20
	recs := []record.Record{rec("AddFwd", "toy", "float32", 3*mib), rec("ReluFwd", "toy", "float32", 2*mib)}
	res := Audit(recs, ms, Options{Eps: DefaultEps})
	if r := res.Rows[0]; r.Verdict != Pass || r.Measured != 3*mib+128 {
		t.Errorf("add: %+v, want PASS at 3 MiB + two lines", r)
	}
	if r := res.Rows[1]; r.Verdict != Error || !strings.Contains(r.Note, "empty range") {
		t.Errorf("never-entered toggle function: %+v, want ERROR", r)
	}
	recs[0].Bytes *= 2
	if r := Audit(recs[:1], ms, Options{Eps: DefaultEps}).Rows[0]; r.Verdict != Fail {
		t.Errorf("add with a 2x formula: %+v, want FAIL", r)
	}

	// SubFwd's formula: a and y at [8, 128256] float32, b at its own [8, 1].
	sub := rec("SubFwd", "llama3-decode-b8-logits-center", "float32", (2*8*128256+8)*4)
	if r := Audit([]record.Record{sub}, ms, Options{Eps: DefaultEps}).Rows[0]; r.Verdict != Pass || r.Measured != 8204160 {
		t.Errorf("sub: %+v, want PASS at 8204160 measured bytes", r)
	}
}

func TestSimCountsSub(t *testing.T) {
	run := SimCounts{Instructions: 100, ReadMisses: 50, WriteMisses: 20, LineSize: 64}
	d, err := run.Sub(SimCounts{Instructions: 60, ReadMisses: 10, WriteMisses: 5, LineSize: 64})
	if err != nil || d != (SimCounts{Instructions: 40, ReadMisses: 40, WriteMisses: 15, LineSize: 64}) {
		t.Errorf("Sub = %+v, %v", d, err)
	}
	if _, err := run.Sub(SimCounts{Instructions: 60, ReadMisses: 51, LineSize: 64}); err == nil || !strings.Contains(err.Error(), "baseline counts more") {
		t.Errorf("a baseline above the run: %v", err)
	}
	if _, err := run.Sub(SimCounts{LineSize: 128}); err == nil || !strings.Contains(err.Error(), "line sizes differ") {
		t.Errorf("line sizes differ: %v", err)
	}
}

func TestParseSimErrors(t *testing.T) {
	const ll = "desc: LL cache: 262144 B, 64 B, 8-way associative\n"
	for _, c := range []struct{ text, want string }{
		{"hello\n", "not a callgrind or cachegrind output"},
		{"events: Ir DLmr DLmw\ntotals: 1 2 3\n", `no "desc: LL cache:" line`},
		{ll + "events: Ir\nsummary: 100\n", "no DLmr event (run with --cache-sim=yes)"},
		{ll + "events: Ir DLmr DLmw\ntotals: 1 x 3\n", "invalid syntax"},
	} {
		_, err := ParseSim(strings.NewReader(c.text), "cg.out")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSim(%q) = %v, want error about %q", c.text, err, c.want)
		}
	}
}

func TestReadSimDirFindings(t *testing.T) {
	dir := t.TempDir()
	_, fs := ReadSimDir(dir)
	if len(fs) != 1 || !strings.Contains(fs[0].Msg, "no such file") {
		t.Errorf("missing index: %v", fs)
	}
	index := `{"op":"A","workload":"w","dtype":"float32","file":"a.out","ll":1}
{"op":"A","workload":"w","dtype":"float32","file":"/abs/a.out"}
{"op":"A","workload":"w","dtype":"float32","file":"gone.out"}
`
	if err := os.WriteFile(filepath.Join(dir, IndexFile), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	_, fs = ReadSimDir(dir)
	want := []string{`index.jsonl:1: json: unknown field "ll"`, "index.jsonl:2: entry needs op, workload, dtype and a relative file", "index.jsonl:3: open"}
	if len(fs) != len(want) {
		t.Fatalf("findings %v, want %d", fs, len(want))
	}
	for i, w := range want {
		if !strings.Contains(fs[i].String(), w) {
			t.Errorf("finding %q, want %q", fs[i], w)
		}
	}
}

// A baseline that counts more than the run (the two runs were not the same program but for
// the call) is a finding that spells out the differences, and the call still appears, as
// an ERROR row that says why, not as "no measured call named ...".
func TestReadSimDirBaselineAboveRun(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"sub.cachegrind.out", "sub.baseline.cachegrind.out"} {
		data, err := os.ReadFile(filepath.Join("testdata", "sim", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The run and its baseline swapped: every count of the difference is negative.
	index := `{"op":"SubFwd","workload":"w","dtype":"float32","file":"sub.baseline.cachegrind.out","baseline":"sub.cachegrind.out"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, IndexFile), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, fs := ReadSimDir(dir)
	if len(fs) != 1 || !strings.Contains(fs[0].Msg, "write misses -") || strings.Contains(fs[0].Msg, "{") {
		t.Fatalf("findings %v: want one that names the negative counts, without a Go struct", fs)
	}
	if len(ms) != 1 || ms[0].Name != RangeName("SubFwd", "w", "float32") || ms[0].Reads.Missing == "" || ms[0].Writes.Missing == "" {
		t.Fatalf("measured %+v: want the call, with its counts missing and why", ms)
	}
}
