package bench_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/ropgen/ropgen/internal/opsbench"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/stats"
)

// reg is ropgen's own catalog: these tests run the library on it.
var reg = opsbench.Registry

var loadOnce = sync.OnceValues(func() ([]bench.Case, error) {
	_, cases, err := bench.Load(manifest.Config{}, "../../manifest")
	return cases, err
})

// catalog returns every case of the checked-in catalog.
func catalog(t *testing.T) []bench.Case {
	t.Helper()
	cases, err := loadOnce()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// find returns the catalog case op/workload/dtype.
func find(t *testing.T, name string) bench.Case {
	t.Helper()
	for _, c := range catalog(t) {
		if c.Name() == name {
			return c
		}
	}
	t.Fatalf("no case %s in the catalog", name)
	return bench.Case{}
}

func planOne(t *testing.T, c bench.Case) bench.Planned {
	t.Helper()
	ps, err := bench.Plan(reg, []bench.Case{c}, bench.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return ps[0]
}

func TestFullMatchSelectsOneOp(t *testing.T) {
	re, err := bench.FullMatch("GemmFwd")
	if err != nil {
		t.Fatal(err)
	}
	got := bench.Filter{Op: re}.Select(catalog(t))
	if len(got) == 0 {
		t.Fatal("-op GemmFwd selects nothing")
	}
	for _, c := range got {
		if c.Case.Op != "GemmFwd" {
			t.Errorf("-op GemmFwd selects %s", c.Name())
		}
	}
	if re, _ := bench.FullMatch(".*Gemm.*"); !re.MatchString("BatchedGemmFwd") {
		t.Error(".*Gemm.* must select BatchedGemmFwd")
	}
}

func TestQuickSubset(t *testing.T) {
	plans, err := bench.Plan(reg, catalog(t), bench.Limits{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	run := map[string]bool{}
	for _, p := range plans {
		if p.Skip != "" {
			if !bench.IsCPUWorkload(p.Case) && p.Skip != bench.SkipNotCPU && p.Skip != bench.SkipNoBuilder && p.Skip != bench.SkipNotGenerated ||
				bench.IsCPUWorkload(p.Case) && p.Skip != bench.SkipQuickLarge && p.Skip != bench.SkipNoBuilder && p.Skip != bench.SkipNotGenerated {
				t.Errorf("%s: skipped for %q, want %q", p.Name(), p.Skip, bench.SkipNotCPU)
			}
			continue
		}
		run[p.Name()] = true
		if !bench.IsCPUWorkload(p.Case) || p.Storage > bench.QuickMaxStorage {
			t.Errorf("%s (%d bytes of tensors) is in the quick subset", p.Name(), p.Storage)
		}
	}
	for name, want := range map[string]bool{
		"ReluFwd/cpu-small/float32":               true,
		"GemmFwd/cpu-gemv/float32":                true, // 16 MiB: the largest quick row
		"ReluFwd/cpu-large/float32":               false,
		"SumFwd/cpu-large/float32":                false, // 64 MiB, over the quick bound
		"GemmFwd/llama3-8b-decode-oproj/bfloat16": false,
	} {
		if run[name] != want {
			t.Errorf("quick runs %s: %v, want %v", name, run[name], want)
		}
	}
	if len(run) < 30 {
		t.Errorf("the quick subset has %d cases; the catalog has more small cpu-* rows than that", len(run))
	}
}

func TestLimits(t *testing.T) {
	big := planOne(t, find(t, "ReluFwd/cpu-large/float32"))
	if big.Storage != 2*4096*4096*4 {
		t.Fatalf("storage of ReluFwd cpu-large = %d, want one 4096x4096 float32 tensor each way", big.Storage)
	}
	for _, tc := range []struct {
		lim  bench.Limits
		want string
	}{
		{bench.Limits{MaxStorage: big.Storage}, ""},
		{bench.Limits{MaxStorage: big.Storage - 1}, "above -max-bytes"},
		{bench.Limits{FlopLimit: big.Flops}, ""},
		{bench.Limits{FlopLimit: big.Flops - 1}, "above -max-flops"},
		{bench.Limits{Quick: true}, bench.SkipQuickLarge},
	} {
		got := skip(t, big, tc.lim)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: skip reason %q, want one containing %q", tc.lim, got, tc.want)
		}
	}
	if got := skip(t, planOne(t, find(t, "GemmFwd/llama3-8b-decode-oproj/bfloat16")), bench.Limits{Quick: true}); got != bench.SkipNotCPU {
		t.Errorf("quick skips a real decode row for %q, want %q", got, bench.SkipNotCPU)
	}
}

// skip is the reason Plan gives under lim for not running p's case.
func skip(t *testing.T, p bench.Planned, lim bench.Limits) string {
	t.Helper()
	ps, err := bench.Plan(reg, []bench.Case{p.Case}, lim)
	if err != nil {
		t.Fatal(err)
	}
	return ps[0].Skip
}

// quickOptions keep the measuring tests short.
var quickOptions = bench.Options{Count: 2, Samples: 3, MaxTime: 20 * time.Millisecond, Device: "cpu: test", Seed: 1}

// TestRecordFieldsFromTheOp: a record's counts and roof are the op's own EvalRoofline and
// ComputeRoof, on an op built independently here, and agree with the meta build's.
func TestRecordFieldsFromTheOp(t *testing.T) {
	for _, name := range []string{"GemmFwd/cpu-ragged/bfloat16", "SoftmaxFwd/cpu-small-mid-dim/float32", "AttentionFwd/cpu-decode/q=bfloat16,k=float8_e4m3,v=float8_e4m3"} {
		p := planOne(t, find(t, name))
		res := bench.Measure(reg, p, quickOptions)
		if res.Err != nil {
			t.Fatalf("%s: %v", name, res.Err)
		}
		in, err := opsbench.Build(p.Case.Case, bench.BuildOptions{Seed: 99})
		if err != nil {
			t.Fatal(err)
		}
		op := in.Op.(ops.Op)
		flops, bytes, err := op.EvalRoofline()
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != quickOptions.Count || len(res.Seconds) != quickOptions.Count*quickOptions.Samples {
			t.Fatalf("%s: %d records of %d samples, want %d of %d", name, len(res.Records), len(res.Seconds), quickOptions.Count, quickOptions.Samples)
		}
		for _, r := range res.Records {
			want := record.Record{Device: "cpu: test", Op: p.Case.Case.Op, Workload: p.Case.Case.Label, DType: p.DType,
				Roof: op.ComputeRoof(), Flops: flops, Bytes: bytes, Seconds: r.Seconds, MinSeconds: r.MinSeconds, MaxSeconds: r.MaxSeconds, Iters: r.Iters}
			if r != want {
				t.Errorf("%s: record %+v, want %+v", name, r, want)
			}
			if r.Flops != p.Flops || r.Bytes != p.Bytes || r.Roof != p.Roof {
				t.Errorf("%s: the data build's counts (%d, %d, %s) differ from the meta build's (%d, %d, %s)", name, r.Flops, r.Bytes, r.Roof, p.Flops, p.Bytes, p.Roof)
			}
			if !(r.Seconds > 0) || r.Iters < quickOptions.Samples || r.Iters%quickOptions.Samples != 0 {
				t.Errorf("%s: seconds %v, iters %d: want a positive time over a whole number of calls per sample", name, r.Seconds, r.Iters)
			}
		}
		if got := stats.Median(res.Seconds[:quickOptions.Samples]); got != res.Records[0].Seconds {
			t.Errorf("%s: first record %v s, want the median of its samples %v s", name, res.Records[0].Seconds, got)
		}
	}
}

// TestColdAndWarm: with an Evictor, every case is timed one call per sample after an
// eviction, a case larger than the eviction buffer too (a warm repeat of it could find part
// of itself in the last-level cache and read faster than DRAM); without one, in calibrated
// warm batches.
func TestColdAndWarm(t *testing.T) {
	small, larger := planOne(t, find(t, "ReluFwd/cpu-small/float32")), planOne(t, find(t, "GemmFwd/cpu-64/float32"))
	opt := quickOptions
	opt.Evictor = cold.NewEvictor(small.Storage + 1)
	if larger.Storage < opt.Evictor.Size() {
		t.Fatalf("GemmFwd cpu-64 has %d bytes of tensors, not more than ReluFwd cpu-small's %d", larger.Storage, small.Storage)
	}
	for _, p := range []bench.Planned{small, larger} {
		cold := bench.Measure(reg, p, opt)
		if cold.Err != nil {
			t.Fatal(cold.Err)
		}
		if !cold.Cold || cold.Records[0].Iters != opt.Samples {
			t.Errorf("%s: cold %v, %d calls a record; want cold, one call per sample (%d)", p.Name(), cold.Cold, cold.Records[0].Iters, opt.Samples)
		}
		r, own := cold.Records[0], cold.Seconds[:opt.Samples] // the first record's samples
		if r.MinSeconds != slices.Min(own) || r.MaxSeconds != slices.Max(own) || r.MinSeconds > r.Seconds || r.Seconds > r.MaxSeconds {
			t.Errorf("%s: record spread %v..%v around %v; its samples %v", p.Name(), r.MinSeconds, r.MaxSeconds, r.Seconds, own)
		}
	}
	opt.Evictor = nil
	if warm := bench.Measure(reg, larger, opt); warm.Err != nil || warm.Cold {
		t.Errorf("without an evictor: cold %v, err %v; want warm batches", warm.Cold, warm.Err)
	}
}

// wrongReference is reg with the named op's reference disagreeing with its kernel by one
// unit in the first output element.
type wrongReference struct {
	bench.Registry
	op string
}

func (w wrongReference) Build(c manifest.Case, opt bench.BuildOptions) (bench.Instance, error) {
	in, err := w.Registry.Build(c, opt)
	if err != nil || c.Op != w.op {
		return in, err
	}
	oi := in.(opsbench.Instance).In
	ref := oi.Reference
	oi.Reference = func(outs []*ops.Tensor) error {
		err := ref(outs)
		outs[0].Data[0]++
		return err
	}
	return in, nil
}

// TestMismatchFailsTheRun: a kernel that disagrees with its reference is an error row with
// no record, and the run reports it as failed, while the other cases are still recorded.
func TestMismatchFailsTheRun(t *testing.T) {
	reg := wrongReference{reg, "ReluFwd"}
	good, bad := planOne(t, find(t, "AddFwd/cpu-small/float32")), planOne(t, find(t, "ReluFwd/cpu-small/float32"))
	res := bench.Measure(reg, bad, quickOptions)
	if !errors.Is(res.Err, bench.ErrMismatch) || res.Records != nil {
		t.Fatalf("Measure of a mismatching kernel: err %v, %d records; want bench.ErrMismatch and none", res.Err, len(res.Records))
	}
	var out, progress bytes.Buffer
	failed, err := bench.Run(reg, []bench.Planned{bad, good}, quickOptions, record.NewBenchWriter(&out), &progress)
	if err != nil || failed != 1 {
		t.Fatalf("Run: failed %d, err %v; want 1 failure", failed, err)
	}
	if !strings.Contains(progress.String(), "ERROR ReluFwd/cpu-small/float32: "+bench.ErrMismatch.Error()) {
		t.Errorf("progress does not show the error row:\n%s", progress.String())
	}
	recs, fs := record.ReadBench(&out, "out.txt")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	if len(recs) != quickOptions.Count || recs[0].Op != "AddFwd" {
		t.Errorf("records %+v: want only AddFwd's %d", recs, quickOptions.Count)
	}
}

func TestBadOptions(t *testing.T) {
	p := planOne(t, find(t, "ReluFwd/cpu-small/float32"))
	for _, opt := range []bench.Options{
		{Count: 0, Samples: 1, MaxTime: time.Millisecond, Device: "d"},
		{Count: 1, Samples: 0, MaxTime: time.Millisecond, Device: "d"},
		{Count: 1, Samples: 1, MaxTime: 0, Device: "d"},
		{Count: 1, Samples: 1, MaxTime: time.Millisecond},
	} {
		if res := bench.Measure(reg, p, opt); res.Err == nil {
			t.Errorf("Measure with %+v: no error", opt)
		}
	}
}

func TestBatchSizeReachesTheTarget(t *testing.T) {
	calls := 0
	spin := func() error {
		calls++
		for start := time.Now(); time.Since(start) < 20*time.Microsecond; {
		}
		return nil
	}
	const target = 2 * time.Millisecond
	n, err := bench.BatchSize(spin, target)
	if err != nil {
		t.Fatal(err)
	}
	// 20 µs a call: a batch of n lasts n × 20 µs at least, so n can be no more than a
	// target's worth and a bit; at least a target's worth unless the machine stalled.
	if n > int(target/(20*time.Microsecond))*2 || n < 1 {
		t.Errorf("Calibrate: %d calls a batch for a %v target at 20µs a call", n, target)
	}
	s, err := bench.WarmSample(spin, n)
	if err != nil || s < 20e-6 {
		t.Errorf("Sample: %v s per call (err %v), want at least 20µs", s, err)
	}
	boom := errors.New("boom")
	if _, err := bench.BatchSize(func() error { return boom }, target); !errors.Is(err, boom) {
		t.Errorf("Calibrate stops at the call's error: got %v", err)
	}
	if _, err := bench.BatchSize(spin, 0); err == nil {
		t.Error("Calibrate accepts a zero target")
	}
}

// lessonRow is one row of the lesson's decode-versus-prefill table: (m x 4096) @ (4096 x
// 4096) in fp16 on the A100's datasheet ceilings (reference/roofline-lesson.py and its
// test: intensity to 0.005, TFLOP/s to 0.005, share of peak to 0.05).
type lessonRow struct {
	m                        string
	intensity, tflops, share float64
	bound                    string
}

// TestPredictLessonTable reproduces the lesson's table through the catalog's GemmFwd, its
// generated EvalRoofline and the A100 profile.
func TestPredictLessonTable(t *testing.T) {
	prof, err := profiles.Open("a100-sxm-80gb")
	if err != nil {
		t.Fatal(err)
	}
	op, err := bench.FindOp(mustOps(t), "GemmFwd")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []lessonRow{
		{"1", 1.00, 2.04, 0.7, "memory-bound"},
		{"128", 120.47, 245.64, 78.7, "memory-bound"},
		{"166", 153.55, 312.00, 100.0, "compute-bound"},
		{"4096", 1365.33, 312.00, 100.0, "compute-bound"}, // printed by the lesson's main
	} {
		cases, err := bench.SetCases(op, "M="+row.m+",N=4096,K=4096", "float16")
		if err != nil {
			t.Fatal(err)
		}
		pr := bench.Predict(planOne(t, cases[0]), prof, profiles.Theoretical)
		if !near(pr.Intensity, row.intensity, 0.005) || !near(pr.Attainable/1e12, row.tflops, 0.005) ||
			!near(pr.PeakShare*100, row.share, 0.05) || string(pr.Bound) != row.bound {
			t.Errorf("m=%s: intensity %.4f, %.4f TFLOP/s, %.3f%% of peak, %s; lesson: %.2f, %.2f, %.1f%%, %s",
				row.m, pr.Intensity, pr.Attainable/1e12, pr.PeakShare*100, pr.Bound, row.intensity, row.tflops, row.share, row.bound)
		}
		if !(pr.SOLTime == max(pr.MemoryTime, pr.ComputeTime) && pr.SOLTime > 0) || pr.Note != "" {
			t.Errorf("m=%s: SOL %v of memory %v and compute %v, note %q", row.m, pr.SOLTime, pr.MemoryTime, pr.ComputeTime, pr.Note)
		}
	}
}

func near(got, want, tol float64) bool { return got >= want-tol && got <= want+tol }

func mustOps(t *testing.T) []*manifest.Op {
	t.Helper()
	opList, _, err := bench.Load(manifest.Config{}, "../../manifest")
	if err != nil {
		t.Fatal(err)
	}
	return opList
}

// TestPredictBlanks: a ceiling the profile does not have prices nothing it would need.
func TestPredictBlanks(t *testing.T) {
	a100, err := profiles.Open("a100-sxm-80gb")
	if err != nil {
		t.Fatal(err)
	}
	p := planOne(t, find(t, "GemmFwd/llama3-8b-decode-oproj/float16"))
	pr := bench.Predict(p, a100, profiles.Effective) // the A100 profile has no measurement
	if !isNaN(pr.MemoryTime, pr.SOLTime, pr.Attainable, pr.PeakShare) || isNaN(pr.Intensity) || !strings.Contains(pr.Note, "never measured") {
		t.Errorf("A100 effective: %+v; want every cell blank but the intensity, which needs no ceiling, and a note that nothing was measured", pr)
	}
	h200, err := profiles.Open("h200")
	if err != nil {
		t.Fatal(err)
	}
	pr = bench.Predict(planOne(t, find(t, "GemmFwd/cpu-gemv/float32")), h200, profiles.Effective) // no cube.fp32 roof
	if isNaN(pr.MemoryTime, pr.Intensity) || !isNaN(pr.ComputeTime, pr.SOLTime, pr.Attainable) || pr.Bound != "" || !strings.Contains(pr.Note, "cube.fp32") {
		t.Errorf("H200 without cube.fp32: %+v; want the memory time alone and a note naming the roof", pr)
	}
}

func isNaN(vs ...float64) bool {
	for _, v := range vs {
		if v == v {
			return false
		}
	}
	return true
}

func TestSetCases(t *testing.T) {
	opList := mustOps(t)
	op := func(name string) *manifest.Op {
		o, err := bench.FindOp(opList, name)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	cases, err := bench.SetCases(op("ReluFwd"), "x_shape=[128, 1024]", "float32")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Name() != "ReluFwd/x_shape=[128,1024]/float32" || cases[0].Case.Shapes["x"][1] != 1024 {
		t.Errorf("cases %+v", cases)
	}
	cases, err = bench.SetCases(op("AttentionFwd"), "batch=1,heads=4,kv_heads=2,seq_q=1,seq_kv=16,head_dim=8,causal=true", "q=bfloat16,k=float8_e4m3")
	if err != nil {
		t.Fatal(err)
	}
	if got := cases[0].Case.DTypes; got["q"] != "bfloat16" || got["k"] != "float8_e4m3" {
		t.Errorf("dtypes %v", got)
	}
	for _, tc := range []struct{ op, set, dtype, want string }{
		{"GemmFwd", "M=128,N=4096", "float16", "-set: GemmFwd: -set: missing dim K"},
		{"GemmFwd", "M=128,N=4096,K=4096,Q=1", "float16", "-set:1:21: GemmFwd: -set: unknown key \"Q\""},
		{"GemmFwd", "M=-1,N=4096,K=4096", "float16", "-set: GemmFwd: -set.M: a dim must be a positive integer"},
		{"GemmFwd", "M=1,N=1,K=1", "float8_e4m3", "float8_e4m3"},
		{"GemmFwd", "M=1,N=1,K=1", "", "needs a dtype"},
		{"GemmFwd", "M=1,,K=1", "float16", "is not key=value"},
		{"ReluFwd", "x_shape=[1,2", "float32", "unbalanced"},
	} {
		_, err := bench.SetCases(op(tc.op), tc.set, tc.dtype)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetCases(%s, %q, %q): %v; want an error containing %q", tc.op, tc.set, tc.dtype, err, tc.want)
		}
	}
}

// TestReferences: the floor is the cheapest of the smallest runnable cases timed as the cases are, and the
// copy reference gives its rate back as bytes / seconds, fastest and slowest too.
func TestReferences(t *testing.T) {
	small, larger := planOne(t, find(t, "ReluFwd/cpu-small/float32")), planOne(t, find(t, "GemmFwd/cpu-64/float32"))
	skipped := small
	skipped.Skip = "not this one"
	opt := quickOptions
	opt.Evictor = cold.NewEvictor(1 << 20)
	rf := bench.References{Reg: reg, Opt: opt, Copy: func() (int64, profiles.Spread) {
		return 1 << 20, profiles.Spread{Min: 1e9, Median: 2e9, Max: 4e9, N: 3}
	}}
	recs, err := rf.Start([]bench.Planned{larger, small})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Op != record.RefCopy || recs[0].Workload != record.RefStart || recs[1].Op != record.RefFloor ||
		recs[1].Workload != "ReluFwd:cpu-small" || recs[1].Iters != 9 || !recs[1].IsReference() {
		t.Fatalf("start references %+v", recs)
	}
	c := recs[0]
	rate := func(s float64) float64 { return float64(c.Bytes) / s / 1e9 }
	if c.Bytes != 1<<20 || !near(rate(c.Seconds), 2, 1e-9) || !near(rate(c.MinSeconds), 4, 1e-9) || !near(rate(c.MaxSeconds), 1, 1e-9) || record.Check(c) != nil {
		t.Errorf("copy reference %+v: want 2 GB/s at the median, 4 fastest, 1 slowest", c)
	}
	end, err := rf.End()
	if err != nil || len(end) != 1 || end[0].Workload != record.RefEnd {
		t.Errorf("end references %+v, %v", end, err)
	}
	if _, err := bench.FloorReference(reg, []bench.Planned{skipped}, opt); err == nil {
		t.Error("a floor from no runnable case")
	}
	if _, err := bench.CopyReference("d", record.RefStart, 1, profiles.Spread{}); err == nil {
		t.Error("a copy reference from no measurement")
	}
}

// flushed is an Instance that names its memory and counts how often it is asked.
type flushed struct {
	bench.Instance
	asked int
	bufs  [][]byte
}

func (f *flushed) Buffers() [][]byte { f.asked++; return f.bufs }

// TestFlush: a cold sample of an instance that names its memory flushes those lines after
// the eviction read (odd sizes and offsets included), and one that does not gets the read
// alone; the data stays as it was.
func TestFlush(t *testing.T) {
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i)
	}
	f := &flushed{bufs: [][]byte{data[5:], data[:1], nil}}
	ev := cold.NewEvictor(1 << 20)
	evict := bench.EvictFor(ev, f)
	for range 3 {
		evict()
	}
	if f.asked != 1 {
		t.Errorf("Buffers asked %d times; want once, when the eviction is made", f.asked)
	}
	for i := range data {
		if data[i] != byte(i) {
			t.Fatalf("byte %d changed by the flush", i)
		}
	}
	plain := bench.Instance(nil)
	if bench.EvictFor(ev, plain) == nil {
		t.Error("no eviction for an instance without Buffers")
	}
}

// logged is an Instance whose timed calls are logged, with the calls of a fake same-time
// reference, in one sequence.
type logged struct {
	bench.Instance
	log *[]string
}

func (l logged) Run() error { *l.log = append(*l.log, "row"); return l.Instance.Run() }

type loggedRegistry struct {
	bench.Registry
	log *[]string
}

func (r loggedRegistry) Build(c manifest.Case, opt bench.BuildOptions) (bench.Instance, error) {
	in, err := r.Registry.Build(c, opt)
	if err != nil || opt.Meta {
		return in, err
	}
	return logged{in, r.log}, nil
}

// TestSameTimeInterleaved: a cold row beyond SameTime.Above has one reference call after each
// of its samples (sample, reference, sample, reference ...), and each record's RefRate pairs
// the reference's pattern (profiles.RefPattern, triad_cold, though copy_cold ran faster)
// with that record's own samples: the median of time × rate
// over the median time, not the fastest sample of either; a row not beyond Above, or timed
// warm, has no reference and no RefRate.
func TestSameTimeInterleaved(t *testing.T) {
	var log []string
	reg := loggedRegistry{reg, &log}
	p := planOne(t, find(t, "ReluFwd/cpu-small/float32"))
	// Two patterns: the first's medians are 3 and 30, the second's 2 and 20, though its
	// fastest samples (9, 90) are the fastest of all. The first call is the warm-up, whose
	// rates (1000) are not kept.
	copyRates := []float64{1000, 5, 1, 3, 50, 30, 10}
	triadRates := []float64{1000, 2, 9, 2, 20, 20, 90}
	calls := 0
	opt := quickOptions // 2 records of 3 samples
	opt.Evictor = cold.NewEvictor(1 << 20)
	opt.SameTime = &bench.SameTime{Above: p.Storage - 1, Names: []string{"copy_cold", "triad_cold"}, Sample: func() []float64 {
		log = append(log, "ref")
		calls++
		return []float64{copyRates[calls-1], triadRates[calls-1]}
	}}
	res := bench.Measure(reg, p, opt)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	// The first calls are the warm-ups of the row (the check's) and of the reference (its
	// rates not kept), before any sample.
	want := []string{"row", "ref", "row", "ref", "row", "ref", "row", "ref", "row", "ref", "row", "ref", "row", "ref"}
	if !slices.Equal(log, want) {
		t.Errorf("calls %v, want %v", log, want)
	}
	if len(res.Records) != 2 || len(res.Seconds) != 6 {
		t.Fatalf("%d records of %d samples, want 2 of 3", len(res.Records), len(res.Seconds))
	}
	for k, rec := range res.Records {
		ts, rs := res.Seconds[3*k:3*k+3], triadRates[1+3*k:4+3*k]
		paired := []float64{ts[0] * rs[0], ts[1] * rs[1], ts[2] * rs[2]}
		if want := stats.Median(paired) / stats.Median(ts); rec.RefRate != want {
			t.Errorf("record %d: RefRate %v, want %v (triad's rates %v paired with the times %v)", k, rec.RefRate, want, rs, ts)
		}
	}
	if len(res.Refs) != 2 || !slices.Equal(res.Refs[0], copyRates[1:]) || !slices.Equal(res.Refs[1], triadRates[1:]) {
		t.Errorf("the result keeps the reference's rates %v; want every sample's but the warm-up's", res.Refs)
	}

	for name, o := range map[string]bench.Options{
		"not beyond Above": func() bench.Options {
			o := opt
			o.SameTime = &bench.SameTime{Above: p.Storage, Sample: opt.SameTime.Sample}
			return o
		}(),
		"warm": func() bench.Options { o := opt; o.Evictor = nil; return o }(),
	} {
		log, calls = nil, 0
		res := bench.Measure(reg, p, o)
		if res.Err != nil || calls != 0 || res.Records[0].RefRate != 0 || res.Records[1].RefRate != 0 {
			t.Errorf("%s: %d reference calls, records %+v, err %v; want none", name, calls, res.Records, res.Err)
		}
	}
}

// TestProbeInterleaved: a cold row has one compute probe after each sample, after its
// same-time reference when it has one (sample, reference, probe, ...), with one warm-up
// probe before the first sample that is not kept; each record's ProbeRate pairs the probe's
// rates with that record's own samples, with its interval; a row timed warm has none.
func TestProbeInterleaved(t *testing.T) {
	var log []string
	reg := loggedRegistry{reg, &log}
	p := planOne(t, find(t, "ReluFwd/cpu-small/float32"))
	rates := []float64{1, 4e11, 1e11, 3e11, 2e11, 5e11, 6e11}
	calls := 0
	opt := quickOptions // 2 records of 3 samples
	opt.Evictor = cold.NewEvictor(1 << 20)
	opt.SameTime = &bench.SameTime{Above: p.Storage - 1, Sample: func() []float64 {
		log = append(log, "ref")
		return []float64{1e9}
	}}
	opt.Probe = func() float64 {
		log = append(log, "probe")
		calls++
		return rates[calls-1]
	}
	res := bench.Measure(reg, p, opt)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []string{"row", "ref", "probe"}
	for range 6 {
		want = append(want, "row", "ref", "probe")
	}
	if !slices.Equal(log, want) {
		t.Errorf("calls %v, want %v", log, want)
	}
	if !slices.Equal(res.Probes, rates[1:]) {
		t.Errorf("probes kept %v, want every sample's but the warm-up's %v", res.Probes, rates[1:])
	}
	for k, rec := range res.Records {
		ts, rs := res.Seconds[3*k:3*k+3], rates[1+3*k:4+3*k]
		paired := []float64{ts[0] * rs[0], ts[1] * rs[1], ts[2] * rs[2]}
		if want := stats.Median(paired) / stats.Median(ts); rec.ProbeRate != want || !(rec.ProbeRateLow <= want && want <= rec.ProbeRateHigh) {
			t.Errorf("record %d: ProbeRate %v [%v, %v], want %v (the probe's rates %v paired with the times %v)", k, rec.ProbeRate, rec.ProbeRateLow, rec.ProbeRateHigh, want, rs, ts)
		}
	}
	log, calls = nil, 0
	o := opt
	o.Evictor = nil
	if res := bench.Measure(reg, p, o); res.Err != nil || calls != 0 || res.Records[0].ProbeRate != 0 || res.Probes != nil {
		t.Errorf("warm: %d probes, records %+v, err %v; want none", calls, res.Records, res.Err)
	}
}

// TestSettle: a record whose verdict Settle.Open leaves open doubles its samples until Open
// says it is settled, or it has Settle.Max samples; Open sees each
// record so far, its reference interval around its rate, and Extra counts what was added.
func TestSettle(t *testing.T) {
	p := planOne(t, find(t, "ReluFwd/cpu-small/float32"))
	calls := 0
	opt := quickOptions
	opt.Count = 1
	opt.Evictor = cold.NewEvictor(1 << 20)
	opt.SameTime = &bench.SameTime{Above: p.Storage - 1, Sample: func() []float64 {
		calls++
		return []float64{float64(1e9 + calls%7*1e8)}
	}}
	for _, tc := range []struct {
		name   string
		openTo int // Open says open while the record has fewer samples
		max    int
		seen   []int // the samples of the records Open saw
		n      int   // the record's samples in the end
	}{
		{"settles", 6, 50, []int{3, 6}, 6},
		{"capped at Max, not asked again", 1000, 20, []int{3, 6, 12}, 20},
		{"settled at once", 0, 50, []int{3}, 3},
	} {
		var seen []int
		o := opt
		o.Settle = &bench.Settle{Max: tc.max, MaxTime: time.Hour, Open: func(rec record.Record) bool {
			seen = append(seen, rec.Iters)
			if !(rec.RefRateLow > 0 && rec.RefRateLow <= rec.RefRate && rec.RefRate <= rec.RefRateHigh) {
				t.Errorf("%s: record %+v has no interval around its RefRate", tc.name, rec)
			}
			return rec.Iters < tc.openTo
		}}
		res := bench.Measure(reg, p, o)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		n := tc.n
		if !slices.Equal(seen, tc.seen) {
			t.Errorf("%s: Open saw records of %v samples, want %v", tc.name, seen, tc.seen)
		}
		if len(res.Records) != 1 || res.Records[0].Iters != n || len(res.Seconds) != n || len(res.Refs[0]) != n || res.Extra != n-opt.Samples {
			t.Errorf("%s: %d records, iters %d, %d samples, %d reference rates, extra %d; want %d samples", tc.name, len(res.Records), res.Records[0].Iters, len(res.Seconds), len(res.Refs[0]), res.Extra, n)
		}
	}
}

// TestMemory: Memory names the very memory of a slice of any number type, at its full size.
func TestMemory(t *testing.T) {
	f := []float64{1, 2, 3}
	b := bench.Memory(f)
	if len(b) != 24 || &b[0] != (*byte)(unsafe.Pointer(&f[0])) {
		t.Errorf("Memory(3 float64s): %d bytes at %p, want 24 at %p", len(b), &b[0], &f[0])
	}
	if got := len(bench.Memory([]int16{1, 2})); got != 4 {
		t.Errorf("Memory(2 int16s): %d bytes", got)
	}
	if bench.Memory([]float32(nil)) != nil {
		t.Error("Memory(nil) is not nil")
	}
}

// bigInstance claims more memory than the eviction buffer holds; withBuffers names it.
type bigInstance struct{ fakeInstance }

func (bigInstance) Storage() int64 { return 64 << 20 }

type bigWithBuffers struct{ bigInstance }

func (bigWithBuffers) Buffers() [][]byte { return nil }

// TestWarnWithoutBuffers: a cold case beyond the last-level cache (half the eviction buffer)
// whose instance does not name its memory is timed with a warning that says so; one that
// does, or a small one, is not.
func TestWarnWithoutBuffers(t *testing.T) {
	opt := bench.Options{Count: 1, Samples: 1, MaxTime: time.Millisecond, Device: "cpu: test", Evictor: cold.NewEvictor(1 << 20)}
	c := bench.Case{Op: &manifest.Op{Name: "GoodFwd"}, Case: manifest.Case{Op: "GoodFwd", Label: "big"}, DType: "float32"}
	for _, tc := range []struct {
		in   bench.Instance
		warn bool
	}{{bigInstance{fakeInstance{&goodOp{}}}, true}, {bigWithBuffers{bigInstance{fakeInstance{&goodOp{}}}}, false}, {fakeInstance{&goodOp{}}, false}} {
		res := bench.Measure(instanceRegistry{tc.in}, bench.Planned{Case: c, Storage: tc.in.Storage()}, opt)
		if res.Err != nil || (res.Warning != "") != tc.warn || tc.warn && !strings.Contains(res.Warning, "does not implement bench.Buffers") {
			t.Errorf("%T: err %v, warning %q; want a warning: %v", tc.in, res.Err, res.Warning, tc.warn)
		}
	}
}

// instanceRegistry builds one instance for every case.
type instanceRegistry struct{ in bench.Instance }

func (instanceRegistry) Has(string) bool { return true }
func (r instanceRegistry) Build(manifest.Case, bench.BuildOptions) (bench.Instance, error) {
	return r.in, nil
}

// TestRunSecondLook: a case whose record Settle.Revisit calls open (the machine, not its
// samples) is timed again after every other case and written last; record by record, the
// look Settle.Nearer prefers is kept, whichever it is.
func TestRunSecondLook(t *testing.T) {
	relu, add := planOne(t, find(t, "ReluFwd/cpu-small/float32")), planOne(t, find(t, "AddFwd/cpu-small/float32"))
	for _, second := range []bool{true, false} {
		calls := 0
		opt := quickOptions
		opt.Evictor = cold.NewEvictor(1 << 20)
		// Each reference call reads faster than the one before, so the second look's
		// records have the higher RefRate.
		opt.SameTime = &bench.SameTime{Above: 0, Names: []string{"triad_cold"}, Sample: func() []float64 {
			calls++
			return []float64{1e9 * float64(calls)}
		}}
		opt.Settle = &bench.Settle{Max: opt.Samples, MaxTime: time.Second,
			Open:    func(record.Record) bool { return false },
			Revisit: func(r record.Record) bool { return r.Op == "ReluFwd" },
			Nearer: func(a, b record.Record) bool {
				return (a.RefRate > b.RefRate) == second
			},
		}
		var out, progress bytes.Buffer
		if failed, err := bench.Run(reg, []bench.Planned{relu, add}, opt, record.NewBenchWriter(&out), &progress); failed != 0 || err != nil {
			t.Fatalf("Run: %d failed, %v", failed, err)
		}
		recs, fs := record.ReadBench(&out, "out.txt")
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		n := opt.Count
		if len(recs) != 2*n || recs[0].Op != "AddFwd" || recs[n].Op != "ReluFwd" {
			t.Fatalf("second=%v: records %+v: want AddFwd's %d, then ReluFwd's, written after its second look", second, recs, n)
		}
		// Relu's first look took the first references (its warm-up and 2 x 3 samples: calls
		// 1-7), AddFwd the next 7, Relu's second look the last 7.
		for _, r := range recs[n:] {
			if late := r.RefRate > 14e9; late != second {
				t.Errorf("second=%v: ReluFwd kept a record with RefRate %v (calls so far %d)", second, r.RefRate, calls)
			}
		}
		if !strings.Contains(progress.String(), "looked at again at the end") || !strings.Contains(progress.String(), "second look") {
			t.Errorf("progress does not say which case was looked at again:\n%s", progress.String())
		}
	}
}
