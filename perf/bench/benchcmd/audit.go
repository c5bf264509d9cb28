package benchcmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/perf/audit"
	"github.com/ropgen/ropgen/perf/bench"
)

// auditEps is the audit verb's tolerance, the same both ways: the cache simulation's own
// error (run-to-run noise of the Go runtime between the two runs, a few percent at most once
// the repeated calls move minBytes; partial lines at a tensor's ends) is far below it, and a
// formula one tensor off in an op of up to nine equal tensors is outside it.
const auditEps = audit.DefaultEps

// auditMinTraffic is the traffic the repeated calls of one audited case move at least: the
// difference of the two runs carries the Go runtime's own traffic, which is small against this.
const auditMinTraffic = 8 << 20

// auditMinCall is the smallest case the audit judges. Every call also touches its own
// bookkeeping (the op and tensor headers, the goroutine's stack), evicted with everything
// else before the call: on the order of a kilobyte a call, small against this.
const auditMinCall = 64 << 10

// audit is `NAME audit`: the bytes audit of the selected cases under valgrind's cache
// simulation, each case's last-level traffic against its formula's bytes, both ways.
func (e *env) audit(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags(e.name+" audit", "-op REGEX [-workload REGEX] [-dtype REGEX] [-LL size,assoc,line] [-keep DIR]", `
Audit checks each selected case's formula bytes against the traffic its kernel moves,
measured by valgrind's cache simulator (docs/audit.md): the program runs twice under
cachegrind, once with the calls and once without, caches cold before every call, and the
difference of the two runs' last-level misses times the line size is the calls' traffic.
A case under 8 MiB is called several times, cold each time, so that the calls move 8 MiB;
one under 64 KiB is too small to audit (each call touches its own bookkeeping too).
A row PASSes when measured / formula is within 1 ± 0.10. Below, the formula counts bytes
the kernel never moves (an overcount: FAIL). Above, a formula that counts less than the
case's tensors take as stored leaves out bytes the kernel moves (an undercount: FAIL); one
that counts at least that is right, and the extra traffic is the kernel's own, a second
pass or reuse the simulated cache cannot hold (WARN, with the factor).
Exit 0 when every row passes or warns, 1 on a FAIL or ERROR, 2 for bad usage; without
valgrind it says so and exits 0 (nothing was measured, nothing was judged).`, stdout, stderr)
	manifests := fl.ManifestsFlag()
	ff := addFilterFlags(fl)
	ll := fl.String("LL", "262144,8,64", "simulated last-level cache `size,assoc,line`, small against the cases")
	d1 := fl.String("D1", "32768,8,64", "simulated L1 data and instruction caches `size,assoc,line`")
	keep := fl.String("keep", "", "keep the cachegrind outputs in `DIR` (default: a temporary directory, removed)")
	timeout := fl.Duration("timeout", 5*time.Minute, "limit for one run under valgrind")
	valgrind := fl.String("valgrind", "valgrind", "the valgrind `program`")
	call := fl.Bool("call", false, "internal: the program valgrind runs (one case, -repeat calls)")
	repeat := fl.Int("repeat", 1, "internal, with -call: cold calls of the case")
	baseline := fl.Bool("baseline", false, "internal, with -call: everything but the calls")
	evictSize := fl.Int64("evict", 8<<20, "internal, with -call: `BYTES` read before every call to evict the caches")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	if *ff.op == "" {
		return fl.Fail("give -op: the audit runs each case under valgrind, about ten seconds a case")
	}
	if *timeout <= 0 {
		return fl.Fail("-timeout %v: want a positive duration (valgrind runs under it)", *timeout)
	}
	if *call {
		// No collection may run in either run: the audit subtracts one run's counts from the
		// other's, and a collection lands at a different point of each. Off before the
		// catalog loads, which allocates the most.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	llc, err := audit.ParseSimCache(*ll)
	if err != nil {
		return fl.Fail("-LL: %v", err)
	}
	d1c, err := audit.ParseSimCache(*d1)
	if err != nil {
		return fl.Fail("-D1: %v", err)
	}
	cat, code, ok := e.load(fl, *manifests)
	if !ok {
		return code
	}
	cases, _, err := selectCases(cat, ff, "") // without -set a failure is always bad usage (2)
	if err != nil {
		return fl.Fail("%v", err)
	}
	if *call {
		if len(cases) != 1 {
			return fl.Errorf("-call: the flags select %d cases, not one", len(cases))
		}
		if err := e.callCase(cases[0], *repeat, *evictSize, *baseline); err != nil {
			return fl.Errorf("%v", err)
		}
		return 0
	}
	if len(cases) == 0 {
		return fl.Errorf("no case selected")
	}
	vg, err := exec.LookPath(*valgrind)
	if err != nil {
		fmt.Fprintf(stderr, "%s audit: SKIP: %s not found: the cache simulation needs valgrind (Debian: apt-get install valgrind); nothing measured, nothing judged\n", e.name, *valgrind)
		return 0
	}
	self, err := os.Executable()
	if err != nil {
		return fl.Errorf("%v", err)
	}
	plans, err := bench.Plan(e.reg, cases, bench.Limits{})
	if err != nil {
		return fl.Errorf("%v", err)
	}
	dir, cleanup, err := auditDir(*keep)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	defer cleanup()
	ar := auditRun{e: e, vg: vg, self: self, manifests: *manifests, ll: llc, d1: d1c, timeout: *timeout, dir: dir}
	if ar.auditAll(plans, stdout) > 0 {
		return 1
	}
	return 0
}

// auditAll audits plans, a table row each and the counts last, and returns how many failed
// or could not be audited.
func (ar auditRun) auditAll(plans []bench.Planned, stdout io.Writer) (bad int) {
	fmt.Fprintf(stdout, "%-40s %7s %12s %12s %7s  %s\n", "case", "calls", "formula B", "measured B", "ratio", "verdict")
	warned := 0
	for i, p := range plans {
		row := ar.auditCase(i, p)
		switch audit.Verdict(row.verdict) {
		case audit.Pass:
		case audit.Warn:
			warned++
		default:
			bad++
		}
		measured, ratio := "-", "-"
		if row.measured > 0 || row.verdict != "ERROR" {
			measured, ratio = strconv.FormatInt(row.measured, 10), fmt.Sprintf("%.4f", row.ratio)
		}
		fmt.Fprintf(stdout, "%-40s %7d %12d %12s %7s  %s\n", p.Name(), row.calls, row.formula, measured, ratio, row.verdict)
		if row.note != "" {
			fmt.Fprintf(stdout, "  %s\n", row.note)
		}
	}
	fmt.Fprintf(stdout, "%d cases: %d pass, %d warn, %d fail or error (tolerance: measured within 1 ± %.2f of the formula; docs/audit.md)\n", len(plans), len(plans)-bad-warned, warned, bad, auditEps)
	return bad
}

// auditDir is where the cachegrind outputs go: keep (-keep) when given, made if missing and
// left in place, else a temporary directory that cleanup removes.
func auditDir(keep string) (dir string, cleanup func(), err error) {
	if keep != "" {
		return keep, func() {}, os.MkdirAll(keep, 0o755)
	}
	dir, err = os.MkdirTemp("", "ropgen-audit-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// auditRun is what auditing one case needs.
type auditRun struct {
	e         *env
	vg, self  string
	manifests string
	ll, d1    audit.SimCache
	timeout   time.Duration
	dir       string
}

// auditRow is the outcome of one case.
type auditRow struct {
	calls             int
	formula, measured int64 // for all the calls
	ratio             float64
	verdict, note     string
}

func (ar auditRun) auditCase(i int, p bench.Planned) auditRow {
	// A case refused before it runs shows the formula bytes of its one call, which its note
	// names.
	row := auditRow{calls: 1, formula: max(p.Bytes, 0)}
	fail := func(format string, args ...any) auditRow {
		row.verdict, row.note = "ERROR", fmt.Sprintf(format, args...)
		return row
	}
	switch {
	case p.Skip != "":
		return fail("%s", p.Skip)
	case p.Bytes <= 0:
		return fail("formula bytes are %d: nothing to compare with", p.Bytes)
	case p.Bytes < auditMinCall:
		return fail("%d formula bytes a call: too small to audit (each call also touches about a kilobyte of its own bookkeeping); pick a workload of %d KiB or more", p.Bytes, auditMinCall>>10)
	}
	row.calls = int(max(1, (auditMinTraffic+p.Bytes-1)/p.Bytes))
	row.formula = p.Bytes * int64(row.calls)
	written, haveBuffers, err := ar.writtenLines(p)
	if err != nil {
		return fail("%v", err)
	}
	var counts [2]audit.SimCounts
	for j, base := range []bool{false, true} {
		out := filepath.Join(ar.dir, fmt.Sprintf("%03d.%s.cachegrind.out", i, map[bool]string{false: "calls", true: "baseline"}[base]))
		if err := ar.runValgrind(p, row.calls, base, out); err != nil {
			return fail("%v", err)
		}
		f, err := os.Open(out)
		if err != nil {
			return fail("%v", err)
		}
		counts[j], err = audit.ParseSim(f, out)
		f.Close()
		if err != nil {
			return fail("%v", err)
		}
	}
	// The total, not each side: the runtime's noise moves misses between reads and writes,
	// and a kernel that writes a few bytes can show fewer write misses than its baseline.
	c, base := counts[0], counts[1]
	if c.LineSize != base.LineSize || c.LineSize <= 0 {
		return fail("line sizes %d and %d in the baseline", c.LineSize, base.LineSize)
	}
	// The simulator models no write-back: a line the kernel reads and then writes (an
	// in-place update, y += a·x) is one read miss and no write miss, though a real cache
	// writes it back. So the written lines are counted apart, outside valgrind, from what one
	// call changes in the case's own memory (Buffers), and the writes are the larger of those
	// and the simulated write misses (the fresh lines an out-of-place output allocates,
	// counted by both; scratch memory outside Buffers, counted by the simulator alone).
	reads := c.ReadMisses - base.ReadMisses
	writes := max(c.WriteMisses-base.WriteMisses, written*int64(row.calls))
	row.measured = (reads + writes) * c.LineSize
	// Misses only: a SIMD kernel's few instructions can be fewer than the runtime's
	// run-to-run difference in instructions, while its misses are not.
	if row.measured <= 0 {
		return fail("the baseline run counts as many misses as the run with the calls (%+d): the two runs must be the same program but for the calls", c.ReadMisses+c.WriteMisses-base.ReadMisses-base.WriteMisses)
	}
	row.ratio = float64(row.measured) / float64(row.formula)
	// The footprint of the case as built (its Shapes give an arbitrary-rank output), for all
	// the calls, as the formula and the measurement are.
	floor := audit.UnknownFloor("the case has no manifest entry")
	if p.Op != nil {
		if fp, err := p.Op.Footprint(p.Case.Case, p.Shapes); err != nil {
			floor = audit.UnknownFloor(err.Error())
		} else {
			floor = audit.FloorOf(fp, false).Times(row.calls)
		}
	}
	v, why := audit.Judge(row.formula, row.measured, floor, auditEps)
	row.verdict = string(v)
	var notes []string
	if why != "" {
		notes = append(notes, why)
	}
	if v == audit.Warn {
		notes = append(notes, fmt.Sprintf("simulated last-level cache: %d bytes (-LL)", ar.ll.Size))
	}
	if !haveBuffers {
		notes = append(notes, "its instance does not implement bench.Buffers, so lines it updates in place are not counted as written (docs/audit.md)")
	}
	if st := p.Storage; st > 0 && v != audit.Pass && st != p.Bytes {
		notes = append(notes, fmt.Sprintf("its tensors take %d bytes as stored, the formula counts %d", st, p.Bytes))
	}
	row.note = strings.Join(notes, "; ")
	return row
}

// writtenLines returns how many lines of the case's own memory (Buffers) one call writes,
// found outside the simulation: a data build, a warm-up call, a copy of the memory, a second
// call, and every 64-byte line that differs from the copy. A line the call writes with the
// value it held is not seen; the inputs are random, so the kernels here write new values.
// ok is false when the instance does not name its memory.
func (ar auditRun) writtenLines(p bench.Planned) (lines int64, ok bool, err error) {
	in, err := ar.e.reg.Build(p.Case.Case, bench.BuildOptions{Seed: 1})
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.Name(), err)
	}
	b, ok := in.(bench.Buffers)
	if !ok {
		return 0, false, nil
	}
	if err := in.Run(); err != nil {
		return 0, true, fmt.Errorf("%s: %w", p.Name(), err)
	}
	bufs := b.Buffers()
	before := make([][]byte, len(bufs))
	for i, buf := range bufs {
		before[i] = bytes.Clone(buf)
	}
	if err := in.Run(); err != nil {
		return 0, true, fmt.Errorf("%s: %w", p.Name(), err)
	}
	const line = 64
	for i, buf := range bufs {
		for off := 0; off < len(buf); off += line {
			end := min(off+line, len(buf))
			if !bytes.Equal(buf[off:end], before[i][off:end]) {
				lines++
			}
		}
	}
	return lines, true, nil
}

// runValgrind runs this program under cachegrind for one case: -repeat cold calls, or with
// base everything but the calls (audit.RunCachegrind says how the child is set up).
func (ar auditRun) runValgrind(p bench.Planned, calls int, base bool, out string) error {
	args := []string{"audit", "-call",
		"-op", regexp.QuoteMeta(p.Case.Case.Op), "-workload", "^" + regexp.QuoteMeta(p.Case.Case.Label) + "$", "-dtype", "^" + regexp.QuoteMeta(p.DType) + "$",
		"-repeat", strconv.Itoa(calls), "-evict", strconv.FormatInt(2*(ar.ll.Size+ar.d1.Size), 10)}
	if ar.manifests != "" {
		args = append(args, "-manifests", ar.manifests)
	}
	if base {
		args = append(args, "-baseline")
	}
	return audit.RunCachegrind(ar.vg, ar.d1, ar.ll, out, ar.timeout, ar.self, args...)
}

// callCase is the program valgrind runs: a warm-up call of case c (it binds shapes and
// touches every page), then repeat times the eviction read and, unless baseline, one call.
func (e *env) callCase(c bench.Case, repeat int, evictSize int64, baseline bool) error {
	if !e.reg.Has(c.Case.Op) {
		return fmt.Errorf("%s: %s", c.Name(), bench.SkipNoBuilder)
	}
	in, err := e.reg.Build(c.Case, bench.BuildOptions{Seed: 1})
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name(), err)
	}
	if err := in.Run(); err != nil {
		return fmt.Errorf("%s: %w", c.Name(), err)
	}
	buf := make([]byte, evictSize)
	for range repeat {
		evictRead(buf)
		if !baseline {
			if err := in.Run(); err != nil {
				return fmt.Errorf("%s: %w", c.Name(), err)
			}
		}
	}
	return nil
}

// evictSink keeps the eviction reads from being optimized away.
var evictSink atomic.Uint32

// evictRead reads one byte of every 64-byte line of buf: with buf twice the simulated caches,
// every line a call left there is evicted and the next call starts cold.
func evictRead(buf []byte) {
	var s byte
	for i := 0; i < len(buf); i += 64 {
		s += buf[i]
	}
	evictSink.Store(uint32(s))
}
