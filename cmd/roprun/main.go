// Command roprun runs single calls of catalog ops, for measurements that need exactly one
// Forward of one op × workload: the CPU side of the bytes audit (docs/model.md §9), where
// valgrind's cache simulator counts the traffic of that one call.
//
// One call (the program valgrind runs):
//
//	roprun -op SubFwd -workload llama3-decode-b8-logits-center -dtype float32
//
// builds the case from the manifest with random inputs, runs Forward once (a warm-up that
// binds shapes and touches every page, as docs/model.md §9 measures the second call), reads an
// eviction buffer so no line of the op's data is left in the simulated caches, then runs
// Forward once more: the measured call. With -baseline it stops before the measured call;
// the difference of the two runs' counts is the call's.
//
// The audit run:
//
//	roprun -cachegrind DIR [-ops SubFwd,DivFwd] [-workloads L1,L2] [-max-bytes N]
//
// runs every selected case under valgrind (twice: with and without the measured call) and
// writes DIR/index.jsonl, the cachegrind outputs, DIR/work.jsonl (every tensor's shape, for
// the audit's footprint) and DIR/records.txt (the formula bytes,
// from EvalRoofline of the same case), for
//
//	ropgen audit -records DIR/records.txt -cachegrind DIR
//
// Unlike ropgen, roprun imports the op catalog.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/opsbench"
	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/audit"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/record"
)

// registry is ropgen's op catalog, which roprun benchmarks.
var registry = opsbench.Registry

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("roprun", "-op OP -workload LABEL -dtype DTYPE [-baseline]   (one call)\n-cachegrind DIR [-ops LIST] [-workloads LIST] [flags]   (the CPU bytes audit run)", `
Roprun runs single calls of catalog ops for the CPU side of the bytes audit (docs/audit.md):
one call builds a case with random inputs, runs Forward once (the warm-up), evicts the
caches and runs it once more (the measured call); the audit run runs every selected case
under valgrind's cache simulator, with and without the measured call, and writes what
ropgen audit -cachegrind DIR reads.`, stdout, stderr)
	manifests := fl.ManifestsFlag()
	opName := fl.String("op", "", "one call: the op")
	workload := fl.String("workload", "", "one call: the workload label")
	dtype := fl.String("dtype", "", "one call: the dtype, as in a record (float32, or a=float32,b=int32)")
	evict := fl.Int64("evict", 8<<20, "one call: `BYTES` read between the warm-up and the measured call to evict the caches")
	baseline := fl.Bool("baseline", false, "one call: stop before the measured call (the baseline run)")
	dir := fl.String("cachegrind", "", "audit run: write the cache simulation of every selected case to `DIR`")
	opsList := fl.String("ops", "", "audit run: comma-separated ops (default: every registered op)")
	workloads := fl.String("workloads", "", "audit run: comma-separated workload labels (default: all)")
	minBytes := fl.Int64("min-bytes", 4<<20, "audit run: skip cases whose formula bytes are below this (the two runs' difference carries some 50 KB of Go runtime noise)")
	maxBytes := fl.Int64("max-bytes", 16<<20, "audit run: skip cases whose formula bytes are above this (larger cases take minutes under valgrind)")
	ll := fl.String("LL", "262144,8,64", "audit run: simulated last-level cache `size,assoc,line`, small against the workloads")
	d1 := fl.String("D1", "32768,8,64", "audit run: simulated L1 data cache `size,assoc,line`")
	timeout := fl.Duration("timeout", 5*time.Minute, "audit run: limit for one case under valgrind")
	valgrind := fl.String("valgrind", "valgrind", "audit run: the valgrind `program`")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	oneCall := *opName != "" && *workload != "" && *dtype != ""
	if *dir == "" && !oneCall {
		return fl.Fail("give -op, -workload and -dtype (one call), or -cachegrind DIR (the audit run)")
	}
	var ll1, d11 audit.SimCache
	var err error
	if *dir != "" {
		if ll1, err = audit.ParseSimCache(*ll); err != nil {
			return fl.Fail("-LL: %v", err)
		}
		if d11, err = audit.ParseSimCache(*d1); err != nil {
			return fl.Fail("-D1: %v", err)
		}
	}
	if oneCall {
		// No collection may run in either run of a case: the audit subtracts the baseline
		// run's counts from the measured run's, and a collection lands at a different point
		// of each. Off before the catalog loads, which allocates the most.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	cfg, code, ok := fl.Config(*manifests == "")
	if !ok {
		return code
	}
	paths := cli.Manifests(*manifests, cfg)
	mc := manifest.Config{}
	if cfg != nil && cfg.Formulas != "" {
		mc.FormulasDir = cfg.Formulas
	}
	ops, cases, err := bench.Load(mc, paths...)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	cat := catalog{paths: paths, ops: ops, cases: cases}
	if oneCall {
		if err := runOnce(cat, *opName, *workload, *dtype, *evict, *baseline); err != nil {
			return fl.Errorf("%v", err)
		}
		return 0
	}
	sc := simConfig{dir: *dir, ops: cli.SplitList(*opsList), workloads: cli.SplitList(*workloads),
		minBytes: *minBytes, maxBytes: *maxBytes, ll: ll1, d1: d11, timeout: *timeout, valgrind: *valgrind}
	return simulate(cat, sc, stdout, stderr)
}

// catalog is the validated catalog roprun works on, with the manifest paths it came from
// (the audit run passes them on to the one-call runs it starts).
type catalog struct {
	paths []string
	ops   []*manifest.Op
	cases []bench.Case
}

// runOnce is the program valgrind runs: one measured Forward of one case, or everything
// but that call when baseline is set.
func runOnce(cat catalog, opName, workload, dtype string, evictBytes int64, baseline bool) error {
	// No collection may run inside the measured call: its traffic is not the op's.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	op, err := bench.FindOp(cat.ops, opName)
	if err != nil {
		return err
	}
	var cases []manifest.Case
	for _, c := range cat.cases {
		if c.Op == op {
			cases = append(cases, c.Case)
		}
	}
	c, err := audit.FindCase(op, cases, workload, dtype)
	if err != nil {
		return err
	}
	if !registry.Has(c.Op) {
		return fmt.Errorf("%s: %s", c.Op, bench.SkipNoBuilder)
	}
	in, err := registry.Build(c, bench.BuildOptions{Seed: 1})
	if err != nil {
		return err
	}
	if err := in.Run(); err != nil { // the warm-up call
		return err
	}
	evict(evictBytes)
	if baseline {
		return nil
	}
	return in.Run()
}

// sink keeps the eviction reads from being optimized away.
var sink atomic.Uint32

// evict reads n bytes of a fresh buffer, one read per 64-byte line, so that with n at least
// twice the simulated last-level cache every line the warm-up left in a cache is evicted and
// the measured call starts cold.
func evict(n int64) {
	buf := make([]byte, n)
	var s byte
	for i := 0; i < len(buf); i += 64 {
		s += buf[i]
	}
	sink.Store(uint32(s))
}

// simConfig is an audit run's configuration.
type simConfig struct {
	dir                string
	ops, workloads     []string
	minBytes, maxBytes int64
	ll, d1             audit.SimCache
	timeout            time.Duration
	valgrind           string
}

// simCase is one case selected for simulation.
type simCase struct {
	c      manifest.Case
	dtype  string // record form
	record record.Record
	work   bench.Work // every tensor's shape, for the audit's footprint
}

// simulate is the audit run: select the cases, run each under valgrind, write the directory.
func simulate(cat catalog, cfg simConfig, stdout, stderr io.Writer) int {
	vg, err := exec.LookPath(cfg.valgrind)
	if err != nil {
		fmt.Fprintf(stderr, "roprun: %s not found: the CPU cache simulation needs valgrind (Debian: apt-get install valgrind); nothing measured\n", cfg.valgrind)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "roprun: %v\n", err)
		return 1
	}
	selected, err := selectCases(cat, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "roprun: %v\n", err)
		return 1
	}
	if len(selected) == 0 {
		fmt.Fprintf(stderr, "roprun: no case selected (formula bytes in [%d, %d], 4-byte dtypes only)\n", cfg.minBytes, cfg.maxBytes)
		return 1
	}
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "roprun: %v\n", err)
		return 1
	}
	var index, records, work bytes.Buffer
	rw := record.NewBenchWriter(&records)
	enc := json.NewEncoder(&index)
	failed := 0
	for i, sc := range selected {
		// A record whose call was not measured still goes out: the audit reports it as an
		// ERROR, which is what a broken measurement is.
		if err := rw.Write(sc.record); err != nil {
			fmt.Fprintf(stderr, "roprun: %v\n", err)
			return 1
		}
		if err := bench.WriteJSONLines(&work, []bench.Work{sc.work}); err != nil {
			fmt.Fprintf(stderr, "roprun: %v\n", err)
			return 1
		}
		entry := audit.IndexEntry{Op: sc.c.Op, Workload: sc.c.Label, DType: sc.dtype,
			File: fmt.Sprintf("%03d.cachegrind.out", i), Baseline: fmt.Sprintf("%03d.baseline.cachegrind.out", i)}
		start := time.Now()
		err := runValgrind(cat, cfg, vg, self, sc, filepath.Join(cfg.dir, entry.File), false)
		if err == nil {
			err = runValgrind(cat, cfg, vg, self, sc, filepath.Join(cfg.dir, entry.Baseline), true)
		}
		name := audit.RangeName(sc.c.Op, sc.c.Label, sc.dtype)
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "roprun: %s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(stdout, "%s: %d formula bytes, simulated in %.1fs\n", name, sc.record.Bytes, time.Since(start).Seconds())
		if err := enc.Encode(entry); err != nil {
			fmt.Fprintf(stderr, "roprun: %v\n", err)
			return 1
		}
	}
	for name, data := range map[string][]byte{audit.IndexFile: index.Bytes(), "records.txt": records.Bytes(), audit.WorkFile: work.Bytes()} {
		if err := output.WriteFile(filepath.Join(cfg.dir, name), data); err != nil {
			fmt.Fprintf(stderr, "roprun: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "%d cases simulated, %d failed; audit with: ropgen audit -records %s -cachegrind %s\n",
		len(selected)-failed, failed, filepath.Join(cfg.dir, "records.txt"), cfg.dir)
	if failed > 0 {
		return 1
	}
	return 0
}

// selectCases picks the catalog's cases that the simulation audits honestly and quickly:
// implemented ops the registry builds; every tensor of a 4-byte dtype, since CPU tensors
// store float32 whatever their dtype and only then does the formula's elem_bytes match the
// bytes the kernel moves; formula bytes (EvalRoofline of a meta build, bench.Plan) within
// [minBytes, maxBytes]. Workloads are the manifest's own, never scaled.
func selectCases(cat catalog, cfg simConfig, stderr io.Writer) ([]simCase, error) {
	for _, name := range cfg.ops {
		if _, err := bench.FindOp(cat.ops, name); err != nil || !registry.Has(name) {
			return nil, fmt.Errorf("-ops: %s is not an op of both the manifest and package ops", name)
		}
	}
	var picked []bench.Case
	skipped := map[string]int{}
	for _, c := range cat.cases {
		switch {
		case !registry.Has(c.Case.Op) || cfg.ops != nil && !slices.Contains(cfg.ops, c.Case.Op):
		case cfg.workloads != nil && !slices.Contains(cfg.workloads, c.Case.Label):
		case !allFourBytes(c.Case):
			skipped["a dtype other than 4 bytes"]++
		default:
			picked = append(picked, c)
		}
	}
	plans, err := bench.Plan(registry, picked, bench.Limits{})
	if err != nil {
		return nil, err
	}
	device := fmt.Sprintf("valgrind cache simulation (LL %s, D1 %s)", cfg.ll, cfg.d1)
	var out []simCase
	for _, p := range plans {
		switch {
		case p.Skip != "":
			return nil, fmt.Errorf("%s: %s", p.Name(), p.Skip)
		case p.Bytes < cfg.minBytes || p.Bytes > cfg.maxBytes:
			skipped["formula bytes out of range"]++
			continue
		}
		rec := record.Record{Device: device, Op: p.Case.Case.Op, Workload: p.Case.Case.Label, DType: p.DType,
			Roof: p.Roof, Flops: p.Flops, Bytes: p.Bytes, Iters: 1}
		out = append(out, simCase{c: p.Case.Case, dtype: p.DType, record: rec, work: bench.WorkOf(p)})
	}
	for why, n := range skipped {
		fmt.Fprintf(stderr, "roprun: skipped %d cases: %s\n", n, why)
	}
	return out, nil
}

func allFourBytes(c manifest.Case) bool {
	for _, dt := range c.DTypes {
		if spec, ok := manifest.LookupDType(dt); !ok || spec.Size != 4 {
			return false
		}
	}
	return true
}

// runValgrind runs one call of sc (or its baseline) under cachegrind. The whole program is
// counted, every thread included, and the audit subtracts the baseline run; nothing depends
// on following Go's call stacks. The child runs with one P (GOMAXPROCS=1: kernels run
// serially, so the two runs schedule alike) and without asynchronous preemption signals, so
// that the runs differ only in the measured call.
func runValgrind(cat catalog, cfg simConfig, vg, self string, sc simCase, out string, baseline bool) error {
	args := []string{"-manifests", strings.Join(cat.paths, ","), "-op", sc.c.Op, "-workload", sc.c.Label, "-dtype", sc.dtype,
		"-evict", strconv.FormatInt(2*(cfg.ll.Size+cfg.d1.Size), 10)}
	if baseline {
		args = append(args, "-baseline")
	}
	return audit.RunCachegrind(vg, cfg.d1, cfg.ll, out, cfg.timeout, self, args...)
}
