package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ropgen/ropgen/internal/opsbench"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
)

const manifests = "../../manifest"

// testEvictMiB is the eviction buffer of the tests' cold runs (-evict-mib): they check what
// the command writes, not how fast the kernels run, and the default, twice the last-level
// cache, is hundreds of MiB read before every sample on a host with a large one.
const testEvictMiB = "16"

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunWritesRecords(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.txt")
	code, _, stderr := runCmd("run", "-manifests", manifests, "-op", "ReluFwd", "-workload", "^cpu-small$", "-max-time", "20ms", "-ref-mib", "2", "-evict-mib", testEvictMiB, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	recs, fs := record.ReadFiles(out)
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	var names []string
	for _, r := range recs {
		names = append(names, r.Op+"/"+r.Workload+"/"+r.DType)
		if r.IsReference() {
			continue
		}
		roof := map[string]string{"float32": "vector.fp32", "bfloat16": "vector.bf16"}[r.DType]
		if r.Device != profiles.HostDeviceName() || r.Roof != roof || !(r.Seconds > 0) {
			t.Errorf("record %+v: want this host's device, the op's roof and a time", r)
		}
	}
	// The drift reference and the run's cold-call floor (timed on one of the catalog's
	// smallest cases, whatever the run selects) come first, then the cases, then the drift
	// reference again.
	if len(names) != 5 || names[0] != "ref.copy/start/float64" || !strings.HasPrefix(names[1], record.RefFloor+"/") || names[4] != "ref.copy/end/float64" {
		t.Fatalf("records %s: want the references around the cases", names)
	}
	if got := strings.Join(names[2:4], " "); got != "ReluFwd/cpu-small/float32 ReluFwd/cpu-small/bfloat16" {
		t.Errorf("records %s", got)
	}
	if !strings.Contains(stderr, "2 cases in") || !strings.Contains(stderr, "0 failed") {
		t.Errorf("stderr:\n%s", stderr)
	}
	// A buffer smaller than the host's default says that its times are not cold ones.
	small := int64(16<<20) < cold.DefaultEvictSize()
	if !strings.Contains(stderr, "after reading a "+testEvictMiB+" MiB buffer to evict the caches") ||
		strings.Contains(stderr, "so its times are not cold ones") != small {
		t.Errorf("stderr does not say the run evicts with %s MiB (smaller than the host's %d MiB: %v):\n%s",
			testEvictMiB, cold.DefaultEvictSize()>>20, small, stderr)
	}
}

// TestRunToDevNull: -o /dev/null, a character device, is written in place (no temporary file
// to rename over it), as a run whose records are not wanted asks.
func TestRunToDevNull(t *testing.T) {
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/null character device here")
	}
	code, stdout, stderr := runCmd("run", "-manifests", manifests, "-op", "ReluFwd", "-workload", "^cpu-small$", "-dtype", "float32", "-max-time", "10ms", "-ref-mib", "0", "-evict-mib", testEvictMiB, "-o", os.DevNull)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "1 cases in") {
		t.Errorf("run -o /dev/null: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

// TestRunQuickSkips: -quick runs only the small cpu-* rows and counts the rest in one line.
func TestRunQuickSkips(t *testing.T) {
	_, cases, err := bench.Load(manifest.Config{}, manifests)
	if err != nil {
		t.Fatal(err)
	}
	notCPU, small := 0, 0
	for _, c := range cases {
		switch {
		case c.Case.Op != "GemmFwd":
		case !bench.IsCPUWorkload(c):
			notCPU++
		default:
			small++
		}
	}
	code, stdout, stderr := runCmd("run", "-manifests", manifests, "-quick", "-op", "GemmFwd", "-max-time", "10ms", "-ref-mib", "0", "-evict-mib", testEvictMiB)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if want := fmt.Sprintf("skip %d cases: %s\n", notCPU, bench.SkipNotCPU); !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	recs, fs := record.ReadBench(strings.NewReader(stdout), "stdout")
	recs = slices.DeleteFunc(recs, func(r record.Record) bool { return r.IsReference() })
	if len(fs) > 0 || len(recs) != small {
		t.Errorf("%d records (%v), want one per small GemmFwd row: %d", len(recs), fs, small)
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "usage: ropbench"},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"run", "-op", "("}, 2, "-op:"},
		{[]string{"run", "extra"}, 2, "unexpected arguments"},
		{[]string{"run", "-manifests", manifests, "-op", "NoSuchOp"}, 1, "no case selected"},
		{[]string{"run", "-evict-mib", "0"}, 2, "-evict-mib 0: a cold run needs a buffer of at least 1 MiB"},
		{[]string{"run", "-evict-mib", "1099511627776"}, 2, "-evict-mib 1099511627776: more than half the memory available"},
		{[]string{"predict", "-op", "GemmFwd"}, 2, "usage: ropbench predict"},
		{[]string{"predict", "-profile", "nosuch"}, 2, `no builtin profile "nosuch"`},
		{[]string{"predict", "-manifests", manifests, "-profile", "h200", "-set", "M=1"}, 2, "give -op NAME"},
		{[]string{"predict", "-manifests", manifests, "-profile", "h200", "-op", "Gemm", "-set", "M=1", "-dtype", "float16"}, 2, `no implemented op "Gemm"`},
		{[]string{"predict", "-manifests", manifests, "-profile", "h200", "-op", "GemmFwd", "-set", "M=1,N=2", "-dtype", "float16"}, 1, "-set: GemmFwd: -set: missing dim K"},
		// Repeated -set flags join (issue 23 item 6): M, N and K all given; a key twice is refused.
		{[]string{"predict", "-manifests", manifests, "-profile", "h200", "-op", "GemmFwd", "-set", "M=64", "-set", "N=64", "-set", "K=64", "-dtype", "float16"}, 0, "M=64,N=64,K=64"},
		{[]string{"predict", "-manifests", manifests, "-profile", "h200", "-op", "ReluFwd", "-set", "x_shape=[2]", "-set", "x_shape=[3]", "-dtype", "float32"}, 1, "-set:1:13: x_shape is given twice: give each key once"},
		{[]string{"predict", "-profile", "h200", "-profile", "a100-sxm-80gb"}, 2, "-profile is given 2 times"},
		{[]string{"ab", "-op", "ReluFwd", "-a", "procs=1"}, 2, "usage: ropbench ab"},
		{[]string{"ab", "-op", "ReluFwd", "-a", "threads=1", "-b", "procs=2"}, 2, `-a: "threads=1" is not knob=value with a known knob`},
		{[]string{"ab", "-op", "ReluFwd", "-a", "procs=1", "-b", "procs=0"}, 2, `-b: procs: "0" is not a positive integer`},
		{[]string{"ab", "-manifests", manifests, "-op", "ReluFwd", "-a", "procs=1", "-b", "procs=2"}, 2, "want exactly one: ReluFwd/cpu-small/float32, ReluFwd/cpu-small/bfloat16, "},
		{[]string{"ab", "-manifests", manifests, "-op", "ReluFwd", "-workload", "cpu-small", "-dtype", "float32", "-a", "procs=1", "-b", "procs=2", "-rounds", "5"}, 2, "use at least 8"},
		{[]string{"ab", "-op", "ReluFwd", "-a", "procs=1", "-b", "procs=1000000"}, 2, "-b: procs: 1000000 is above the most this machine takes"},
		{[]string{"ab", "-op", "ReluFwd", "-a", "procs=1", "-b", "procs=2", "-alpha", "0"}, 2, "-alpha 0 is not in (0, 1)"},
		{[]string{"ab", "-op", "ReluFwd", "-a", "simd=1", "-b", "simd=9"}, 2, "-b: simd: 9 is above the most this machine takes (3)"},
		{[]string{"ab", "-h"}, 0, "simd: the kernels' SIMD level"},
		{[]string{"ab", "-op", "ReluFwd", "-a", "procs=1", "-b", "procs=2", "-sample-time", "-1s"}, 2, "-sample-time -1s must be positive"},
	} {
		code, stdout, stderr := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("ropbench %q: exit %d, want %d with %q in:\n%s%s", tc.args, code, tc.code, tc.want, stdout, stderr)
		}
	}
}

// TestPredictLessonRow: the command prints the lesson's m = 128 row of the decode-versus-
// prefill table (120.47 FLOP/B, memory-bound, 246 TFLOP/s to three digits, 78.7% of peak) and the A100's
// fp16 ridge (312e12 / 2039e9 = 153.02 FLOP/B).
func TestPredictLessonRow(t *testing.T) {
	code, stdout, stderr := runCmd("predict", "-manifests", manifests, "-profile", "a100-sxm-80gb", "-theoretical",
		"-op", "GemmFwd", "-set", "M=128,N=4096,K=4096", "-dtype", "float16")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	row := regexp.MustCompile(`(?m)^GemmFwd +M=128,N=4096,K=4096 +float16 +cube\.fp16 +4\.29G +35\.7MB +120\.47 +memory-bound +17\.5µs +246 TFLOP/s +78\.7% *$`)
	if !row.MatchString(stdout) || !strings.Contains(stdout, "ridge 153.02 FLOP/B") || !strings.Contains(stdout, "theoretical ceilings") {
		t.Errorf("output:\n%s", stdout)
	}
}

// TestPredictCatalog: without -set every selected catalog row is priced, and a roof the
// profile lacks leaves its cells blank with the reason.
func TestPredictCatalog(t *testing.T) {
	code, stdout, stderr := runCmd("predict", "-manifests", manifests, "-profile", "h200", "-op", "GemmFwd", "-workload", "llama3-8b-decode-oproj")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var bf16, fp16 string
	for _, l := range lines {
		switch {
		case strings.Contains(l, " bfloat16 "):
			bf16 = l
		case strings.Contains(l, " float16 "):
			fp16 = l
		}
	}
	if !strings.Contains(bf16, "memory-bound") || !strings.Contains(fp16, "cube.fp16 was never measured") || strings.Contains(fp16, "bound") {
		t.Errorf("output:\n%s", stdout)
	}
}

// TestAB runs a short trial end to end: equality first, then the signs and a verdict.
func TestAB(t *testing.T) {
	code, stdout, stderr := runCmd("ab", "-manifests", manifests, "-op", "ReluFwd", "-set", "x_shape=[64,64]", "-dtype", "float32",
		"-a", "procs=1", "-b", "procs=2", "-rounds", "8", "-sample-time", "1ms")
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"ReluFwd/x_shape=[64,64]/float32: A procs=1, B procs=2; 8 rounds", "equal: both arms match", "sign test p = ", "verdict: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestRunInterruptedKeepsOld: `ropbench run -o FILE` killed by SIGTERM after its first case
// leaves FILE as it was, and no temporary file beside it.
func TestRunInterruptedKeepsOld(t *testing.T) {
	if args := os.Getenv("ROPBENCH_TEST_ARGS"); args != "" {
		os.Exit(run(strings.Split(args, " "), os.Stdout, os.Stderr))
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "bench.txt")
	if err := os.WriteFile(out, []byte("old records\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunInterruptedKeepsOld$")
	cmd.Env = append(os.Environ(), "ROPBENCH_TEST_ARGS=run -manifests "+manifests+" -op ReluFwd -workload ^cpu-small$ -warm -ref-mib 0 -max-time 500ms -o "+out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first case's progress line: its record is written, the second case is running.
	sc := bufio.NewScanner(stderr)
	var seen []string
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "ReluFwd/cpu-small/float32 ") {
		seen = append(seen, sc.Text())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the run was not interrupted:\n%s", strings.Join(seen, "\n"))
	}
	data, err := os.ReadFile(out)
	if err != nil || string(data) != "old records\n" {
		t.Errorf("after the interrupted run %s reads %q (%v), want the old records", out, data, err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d entries in the directory, want only %s", len(es), out)
	}
}

// TestEvalCatalog: every workload of the catalog goes through its generated EvalRoofline,
// found from a subdirectory through ropgen.yaml (no -manifests).
func TestEvalCatalog(t *testing.T) {
	t.Chdir("../../perf/bench")
	code, stdout, stderr := runCmd("eval")
	m := regexp.MustCompile(`^(\d+) cases evaluated: (\d+) clean, 0 failed\n$`).FindStringSubmatch(stdout)
	if code != 0 || m == nil || m[1] != m[2] {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	if n, _ := strconv.Atoi(m[1]); n < 200 {
		t.Errorf("%d cases evaluated; the catalog has more", n)
	}
}

// TestRunJSON: -json writes JSON lines the record reader reads back.
func TestRunJSON(t *testing.T) {
	code, stdout, stderr := runCmd("run", "-manifests", manifests, "-json", "-op", "ReluFwd", "-workload", "^cpu-small$", "-dtype", "float32", "-max-time", "20ms", "-ref-mib", "1", "-evict-mib", testEvictMiB)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	recs, fs := record.ReadJSON(strings.NewReader(stdout), "stdout")
	if len(recs) != 4 || !recs[0].IsReference() || !recs[1].IsReference() || !recs[3].IsReference() {
		t.Errorf("records %+v: want the references around the case", recs)
	}
	recs = slices.DeleteFunc(recs, func(r record.Record) bool { return r.IsReference() })
	if len(fs) > 0 || len(recs) != 1 || recs[0].Op != "ReluFwd" || recs[0].Bytes == 0 {
		t.Errorf("records %+v, findings %v:\n%s", recs, fs, stdout)
	}
}

// TestSynopsis: ropbench and its subcommands print a synopsis with -h, on stdout.
func TestSynopsis(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"run", "-h"}, {"predict", "-h"}, {"ab", "-h"}, {"eval", "-h"}} {
		code, stdout, stderr := runCmd(args...)
		want := "usage: ropbench " + strings.TrimPrefix(args[0], "-h")
		if code != 0 || !strings.HasPrefix(stdout, strings.TrimSpace(want)) || stderr != "" {
			t.Errorf("ropbench %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestRunRefusesManifestOutput: -o naming one of the manifests read (here by another
// spelling, through the default catalog of ropgen.yaml) is refused before anything runs.
func TestRunRefusesManifestOutput(t *testing.T) {
	t.Chdir("../../perf")
	target := "../manifest/activation.yaml"
	before, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("run", "-op", "ReluFwd", "-workload", "^cpu-small$", "-o", "./../manifest/./activation.yaml")
	after, _ := os.ReadFile(target)
	if code != 1 || !strings.Contains(stderr, "refusing to write") || !bytes.Equal(before, after) {
		t.Errorf("exit %d, stderr %q, manifest changed: %v", code, stderr, !bytes.Equal(before, after))
	}
}

// TestRunSameTime: a cold case with more tensors than -same-time-mib gets the same-time
// reference in its record (ref_rate) and on its progress line; below the line, or with 0, it
// has none.
func TestRunSameTime(t *testing.T) {
	const row = "ClampFwd/cpu-small-row-bound/float32" // 1.6 MiB of tensors
	for _, c := range []struct {
		mib  string
		want bool
	}{{"1", true}, {"2", false}, {"0", false}} {
		out := filepath.Join(t.TempDir(), "bench.jsonl")
		code, _, stderr := runCmd("run", "-manifests", manifests, "-json", "-op", "^ClampFwd$", "-workload", "^cpu-small-row-bound$", "-dtype", "^float32$",
			"-samples", "2", "-ref-mib", "0", "-evict-mib", testEvictMiB, "-same-time-mib", c.mib, "-o", out)
		if code != 0 {
			t.Fatalf("-same-time-mib %s: exit %d:\n%s", c.mib, code, stderr)
		}
		recs, fs := record.ReadFiles(out)
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		var got *record.Record
		for i := range recs {
			if recs[i].Op+"/"+recs[i].Workload+"/"+recs[i].DType == row {
				got = &recs[i]
			}
		}
		if got == nil {
			t.Fatalf("-same-time-mib %s: no record of %s in %+v", c.mib, row, recs)
		}
		if (got.RefRate > 0) != c.want || strings.Contains(stderr, "same-time ref ") != c.want {
			t.Errorf("-same-time-mib %s: ref_rate %v; want one: %v\n%s", c.mib, got.RefRate, c.want, stderr)
		}
	}
}

// TestEvalJSONWorkList: eval -json prints every catalog case once, as the catalog orders
// them, with the counts and roof of its plan written exactly (the digits of the int64, no
// float rounding), every tensor shaped, and GemmFwd's FLOPs 2*M*N*K of its own dims.
func TestEvalJSONWorkList(t *testing.T) {
	code, stdout, stderr := runCmd("eval", "-manifests", manifests, "-json")
	if code != 0 || !strings.Contains(stderr, "0 failed") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	_, cases, err := bench.Load(manifest.Config{FormulasDir: "../../perf/formulas"}, manifests)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := bench.Plan(opsbench.Registry, cases, bench.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(plans) {
		t.Fatalf("%d lines for %d catalog cases", len(lines), len(plans))
	}
	gemms := 0
	for i, line := range lines {
		var w bench.Work
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		p := plans[i]
		if w.Op != p.Case.Case.Op || w.Workload != p.Case.Case.Label || w.DType != p.DType || w.Roof != p.Roof ||
			w.Flops != p.Flops || w.Bytes != p.Bytes || !strings.HasPrefix(w.Pos, manifests) {
			t.Errorf("line %d: %+v, want the plan %s (flops %d, bytes %d, roof %s)", i+1, w, p.Name(), p.Flops, p.Bytes, p.Roof)
		}
		exact := fmt.Sprintf(`"flops":%d,"bytes":%d,`, p.Flops, p.Bytes)
		if !strings.Contains(line, exact) {
			t.Errorf("line %d: counts not written as %s: %s", i+1, exact, line)
		}
		if len(w.Inputs) == 0 || len(w.Outputs) == 0 {
			t.Errorf("line %d: no inputs or outputs: %s", i+1, line)
		}
		for _, x := range slices.Concat(w.Inputs, w.Outputs) {
			if x.Shape == nil || x.DType == "" || x.DType != w.DTypes[x.Name] {
				t.Errorf("line %d: tensor %+v: want its shape and dtype", i+1, x)
			}
		}
		if w.Op == "GemmFwd" {
			gemms++
			m, n, k := int64(w.Dims["M"]), int64(w.Dims["N"]), int64(w.Dims["K"])
			if want := 2 * m * n * k; w.Flops != want || want == 0 {
				t.Errorf("GemmFwd %s: flops %d, want 2*M*N*K = %d", w.Workload, w.Flops, want)
			}
		}
	}
	if gemms < 5 {
		t.Errorf("%d GemmFwd cases in the work list", gemms)
	}
}

// TestPredictJSON: predict -json writes the work list's keys and the prices, a cell the
// profile cannot price null with the reason in note.
func TestPredictJSON(t *testing.T) {
	code, stdout, stderr := runCmd("predict", "-manifests", manifests, "-json", "-profile", "h200", "-op", "GemmFwd", "-workload", "llama3-8b-decode-oproj")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a line per dtype:\n%s", stdout)
	}
	for _, line := range lines {
		var w bench.PredictedWork
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if w.Flops != 2*1*4096*4096 || w.Profile != "h200" || w.Basis != "effective" || w.Bandwidth == nil {
			t.Errorf("%+v", w)
		}
		switch w.DType {
		case "bfloat16":
			if w.Bound != "memory-bound" || w.SOLSeconds == nil || *w.SOLSeconds <= 0 || w.Note != "" {
				t.Errorf("bfloat16: %s", line)
			}
		case "float16":
			if w.Bound != "" || w.SOLSeconds != nil || w.Peak != nil || !strings.Contains(w.Note, "never measured") ||
				!strings.Contains(line, `"sol_seconds":null`) {
				t.Errorf("float16: %s", line)
			}
		default:
			t.Errorf("dtype %q", w.DType)
		}
	}
}
