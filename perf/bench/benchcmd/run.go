package benchcmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/instrument"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// quickMaxTime is the timing budget per case under -quick, unless -max-time is given:
// -quick is for trying the command and for CI, which want the whole subset in well under a
// minute on a small shared machine, and its cases' budgets are most of that time.
const quickMaxTime = 150 * time.Millisecond

// run is `NAME run`: measure the selected cases and write their records.
func (e *env) run(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags(e.name+" run", "[-manifests PATHS] [-op REGEX] [-workload REGEX] [-dtype REGEX] [-quick] [-json] [-o FILE] [flags]", `
bench.Run builds every selected op × workload × dtype with random inputs, checks the kernel
against its reference (a mismatch is an error row and no record), times Forward and writes
one record per case: Go benchmark format (benchstat reads it), or JSON lines with -json,
with the op's own EvalRoofline counts and ComputeRoof. Progress and skipped cases go to
stderr. -o FILE is replaced only when the run completes: an interrupted run leaves it as it
was. Exit 1 when any case fails.`, stdout, stderr)
	rf := runFlags{
		manifests:  fl.ManifestsFlag(),
		out:        fl.String("o", "", "write the records to `FILE` (default: standard output)"),
		asJSON:     fl.Bool("json", false, "write JSON lines (record.JSONWriter) instead of Go benchmark format"),
		ff:         addFilterFlags(fl),
		quick:      fl.Bool("quick", false, "only the small cpu-* rows (32 MiB of tensors at most), with a short timing budget"),
		judgeFloor: fl.Float64("judge-floor", 0, "with -judge: size the selection by this cold-call floor in `SECONDS` instead of the one the run measures (make run passes ropgen history floor: the median of the device's recent runs, so that the case judged for an op stays the same from run to run)"),
		judge:      fl.String("judge", "", "only the cases that can earn a verdict on the profile `NAME|FILE`: per op, the cpu-* row with the smallest tensors whose speed-of-light time there is at least 10x the run's latency floor (bench.Judge)"),
		count:      fl.Int("count", bench.DefaultOptions.Count, "records per case (benchstat needs several for a p-value)"),
		samples:    fl.Int("samples", bench.DefaultOptions.Samples, "timed batches per record; the record is their median"),
		maxSamples: fl.Int("max-samples", 0, "with -judge: after -samples, double the samples, up to `N` in all (and about 30s of them), of a row whose verdict its samples leave open (the report's \"at the line\": the 80% line inside its judged efficiency's 99% interval), and time a row the report reads \"inconclusive\" once more at the end, keeping the look whose references sat nearer the calibration's typical machine; 0: none"),
		maxTime:    fl.Duration("max-time", bench.DefaultOptions.MaxTime, "timing budget per case, calibration included; -quick lowers the default to 150ms"),
		maxStorage: fl.Int64("max-bytes", bench.DefaultLimits.MaxStorage, "skip cases whose tensors (inputs and outputs) take more than `N` bytes as stored: the dtype's size an element (8 for float64) in a module's registry, 4 in ropgen's own float32-backed catalog"),
		maxFlops:   fl.Int64("max-flops", bench.DefaultLimits.FlopLimit, "skip cases above `N` FLOPs (a plain reference runs at about 1 GFLOP/s)"),
		warm:       fl.Bool("warm", false, "time every case in warm batches; by default every case is timed cold, one call a sample after evicting the caches"),
		verbose:    fl.Bool("v", false, "list every skipped case"),
		sameTime:   fl.Int64("same-time-mib", sameTimeMiB(), "after every sample of a cold case with more than `N` MiB of tensors, time the same-time reference (one cold call of the calibration's triad_cold mix, or copy_cold where it has none) for the report's physics check and verdicts (default: this host's last-level cache or the reference's own array size, the smaller, so the cases that stream from DRAM); 0: none"),
		evictSize:  fl.Int64("evict-mib", cold.DefaultEvictSize()>>20, "cold: read a buffer of `N` MiB before each sample to evict the caches (default: twice this host's last-level cache; smaller leaves data cached, so the times are not cold: for trying the command, not for measurements)"),
		probe:      fl.Bool("probe", true, "after every sample of a cold case, run the same-time compute probe (one short dispatch of this host's vector.fp32 roof kernel on every worker; record probe_rate) for the report's verdicts; false: none"),
		refSize:    fl.Int64("ref-mib", refMiB(), "time the drift reference (the calibration's copy) at the start and end of the run on arrays of `N` MiB each (default: the calibration's size, so the report can compare it with the profile); 0: none"),
	}
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	opt, judged, err := rf.options(fl, ImplName(e.name))
	if err != nil {
		return fl.Fail("%v", err)
	}
	f, err := rf.ff.filter()
	if err != nil {
		return fl.Fail("%v", err)
	}
	cat, code, ok := e.load(fl, *rf.manifests)
	if !ok {
		return code
	}
	if *rf.out != "" {
		// Refused before anything is measured: -o must not name a manifest read, nor
		// anything but a regular file or a stream (/dev/null, a pipe) written in place.
		if err := output.Check(*rf.out, cat.files...); err != nil {
			return fl.Errorf("%v", err)
		}
	}
	lim := bench.Limits{MaxStorage: *rf.maxStorage, FlopLimit: *rf.maxFlops, Quick: *rf.quick}
	plans, err := bench.Plan(e.reg, f.Select(cat.cases), lim)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	// The cold-call floor is timed on the smallest cases of the whole catalog, whatever this
	// run selects, so every run's floor is the same calls'.
	catalog, err := bench.Plan(e.reg, cat.cases, bench.Limits{})
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if len(plans) == 0 {
		return fl.Errorf("no case selected")
	}
	// The evictor is made once a run has cases to time; the references time with it too.
	if !*rf.warm {
		opt.Evictor = cold.NewEvictor(*rf.evictSize << 20)
		if *rf.sameTime > 0 {
			opt.SameTime = sameTimeReference(opt.Evictor, *rf.sameTime<<20)
		}
	}
	refs := bench.References{Reg: e.reg, Opt: opt, Copy: copyReference(*rf.refSize)}
	if *rf.probe && opt.Evictor != nil {
		// After refs took its copy of opt: the floor's calls are dispatch, not work to judge.
		if p := instrument.NewProbe(); p != nil {
			opt.Probe = p.Sample
		}
	}
	var start []record.Record
	if judged != nil {
		// -judge sizes the selection by the floor this run measures, so the references of
		// the start come first.
		if start, err = refs.Start(catalog); err != nil {
			return fl.Errorf("%v", err)
		}
		floor := judgeFloor(judged, start, *rf.judgeFloor)
		plans = bench.Judge(plans, judged, floor, *rf.warm)
		if *rf.maxSamples > *rf.samples {
			opt.Settle = settle(judged, *rf.maxSamples)
		}
		fmt.Fprintf(stderr, "-judge %s: the cases whose speed-of-light time is at least %dx the latency floor %.3g s\n", judged.Name, bench.JudgeMargin, floor)
	}
	todo := reportSkips(plans, *rf.verbose, stderr)
	if len(todo) == 0 {
		return fl.Errorf("no case selected")
	}
	startRefs := func() ([]record.Record, error) {
		if start != nil {
			return start, nil
		}
		return refs.Start(catalog)
	}
	failed, err := e.measure(todo, opt, rf, cat.files, startRefs, refs.End, stdout, stderr)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// runFlags are run's flags.
type runFlags struct {
	manifests, out, judge                              *string
	asJSON, quick, warm, verbose, probe                *bool
	ff                                                 filterFlags
	judgeFloor                                         *float64
	count, samples, maxSamples                         *int
	maxTime                                            *time.Duration
	maxStorage, maxFlops, sameTime, evictSize, refSize *int64
}

// options checks the flags against each other and returns the timing options and the -judge
// profile (nil without -judge).
func (rf *runFlags) options(fl *cli.Flags, impl string) (bench.Options, *profiles.Profile, error) {
	opt := bench.DefaultOptions
	opt.Count, opt.Samples, opt.MaxTime = *rf.count, *rf.samples, *rf.maxTime
	if *rf.quick && !fl.IsSet("max-time") {
		opt.MaxTime = quickMaxTime
	}
	opt.Device = profiles.HostDeviceName()
	opt.Impl = impl
	if err := opt.Check(); err != nil {
		return opt, nil, err
	}
	if !*rf.warm {
		if *rf.evictSize < 1 {
			return opt, nil, fmt.Errorf("-evict-mib %d: a cold run needs a buffer of at least 1 MiB (-warm times without evicting)", *rf.evictSize)
		}
		if avail := instrument.MemAvailable(); avail > 0 && *rf.evictSize > avail>>21 {
			return opt, nil, fmt.Errorf("-evict-mib %d: more than half the memory available (%d MiB)", *rf.evictSize, avail>>20)
		}
	}
	if *rf.maxSamples != 0 && (*rf.judge == "" || *rf.maxSamples < *rf.samples) {
		return opt, nil, fmt.Errorf("-max-samples %d: needs -judge (the verdict is the profile's) and at least -samples (%d)", *rf.maxSamples, *rf.samples)
	}
	if f := *rf.judgeFloor; f != 0 && (*rf.judge == "" || !(f > 0) || math.IsInf(f, 0)) {
		return opt, nil, fmt.Errorf("-judge-floor %g: a cold-call floor in seconds, above 0, for -judge", f)
	}
	if *rf.judge == "" {
		return opt, nil, nil
	}
	if *rf.quick {
		return opt, nil, errors.New("-judge and -quick are exclusive: -quick keeps the small rows, -judge the ones that can earn a verdict")
	}
	judged, err := profiles.Open(*rf.judge)
	if err != nil {
		return opt, nil, fmt.Errorf("-judge: %v", err)
	}
	return opt, judged, nil
}

// judgeFloor is the cold-call floor -judge sizes its selection by: the run's own (its start
// references' ref.floor), or the profile's latency floor when larger; with given (-judge-floor:
// make run's, the median of the history's recent runs), that one, so that an op's judged case
// does not move with this run's few cold calls, but never under a fifth of the run's own,
// which keeps every judged row's speed-of-light time above twice it (the report's latency
// rule).
func judgeFloor(judged *profiles.Profile, start []record.Record, given float64) float64 {
	floor := judged.LatencyFloor
	for _, r := range start {
		if r.Op == record.RefFloor {
			floor = max(floor, r.Seconds)
		}
	}
	if given > 0 {
		floor = max(judged.LatencyFloor, given, floor*2/bench.JudgeMargin)
	}
	return floor
}

// measure times todo and writes its records between the run's start and end references to
// -o (a temporary file renamed over it when the run completes: an interrupted run leaves the
// old records as they were) or stdout; it returns how many cases failed.
func (e *env) measure(todo []bench.Planned, opt bench.Options, rf runFlags, inputs []string, start, end func() ([]record.Record, error), stdout, stderr io.Writer) (int, error) {
	w, commit := stdout, func() error { return nil }
	if *rf.out != "" {
		file, err := output.Create(*rf.out, inputs...)
		if err != nil {
			return 0, err
		}
		defer file.Abort()
		w, commit = file, file.Commit
	}
	var rw bench.RecordWriter = record.NewBenchWriter(w)
	if *rf.asJSON {
		rw = record.NewJSONWriter(w)
	}
	fmt.Fprintf(stderr, "device %q: %d cases, %d record(s) of %d samples each; %s\n",
		opt.Device, len(todo), opt.Count, opt.Samples, timingNote(opt))
	began := time.Now()
	failed := 0
	err := writeReferences(rw, stderr, start)
	if err == nil {
		failed, err = bench.Run(e.reg, todo, opt, rw, stderr)
	}
	if err == nil {
		err = writeReferences(rw, stderr, end)
	}
	if err == nil {
		err = commit()
	}
	if err != nil {
		return failed, err
	}
	fmt.Fprintf(stderr, "%d cases in %.1fs, %d failed\n", len(todo), time.Since(began).Seconds(), failed)
	return failed, nil
}

// settleTime bounds the extra samples of one record (bench.Settle.MaxTime): a DRAM-sized
// cold sample and its reference calls take a fraction of a second, so the budget of
// -max-samples is reached first; a slow case stops here.
const settleTime = 30 * time.Second

// settle is -max-samples' bench.Settle: a record's verdict is open while the report, pricing
// it on prof, reads it as at the line, or cannot tell whether it breaches the same-time line
// (report.Row.RefUnsure): both are its samples' uncertainty, which more samples narrow. A
// record the report reads as inconclusive with a reference timed beside it (the machine
// was off its calibrated state while it ran) gets a second look at the end of the run, and
// the look whose references sat nearer the calibration's typical machine is kept
// (report.MachineOff).
func settle(prof *profiles.Profile, maxSamples int) *bench.Settle {
	pricer := report.NewPricer(prof, nil, profiles.Effective)
	return &bench.Settle{Max: maxSamples, MaxTime: settleTime,
		Open: func(rec record.Record) bool {
			row := pricer.Price(&rec)
			return row.Verdict == report.AtLine || row.RefUnsure
		},
		Revisit: func(rec record.Record) bool {
			return (rec.RefRate > 0 || rec.ProbeRate > 0) && pricer.Price(&rec).Verdict == report.Inconclusive
		},
		Nearer: func(a, b record.Record) bool {
			return report.MachineOff(prof, &a) < report.MachineOff(prof, &b)
		},
	}
}

// copyReference is the drift reference of a run (bench.References.Copy): the calibration's
// own copy mix, timed as its rounds time it (instrument.CopyReference), on arrays of mib MiB,
// five rounds; nil for mib 0. At the calibration's size (refMiB) its rate compares with the
// profile's copy mix.
func copyReference(mib int64) func() (int64, profiles.Spread) {
	if mib <= 0 {
		return nil
	}
	return func() (moved int64, rate profiles.Spread) {
		size := mib << 20
		rate = instrument.CopyReference(size, copyRounds)
		// What one copy reads and writes: two arrays of size bytes (whole float32s, at
		// least 1 MiB, as CopyReference rounds them).
		return 2 * (max(size, 1<<20) / 4 * 4), rate
	}
}

// sameTimeReference is the same-time reference of a run (bench.SameTime): the instrument's
// cold mixes (instrument.SameTime), beside every cold case with more than above bytes of
// tensors. Its arrays are made at its first sample, so a run without such a case (-quick)
// pays nothing for it.
func sameTimeReference(ev *cold.Evictor, above int64) *bench.SameTime {
	ref := instrument.NewSameTime(ev)
	return &bench.SameTime{Above: above, Names: ref.Names(), Sample: ref.Sample}
}

// sameTimeMiB is the default -same-time-mib: this host's last-level cache or the
// reference's array size, whichever is smaller. Beyond the first nothing holds the row's
// tensors; beyond the second the row streams from DRAM as the reference's calls do, which a
// virtual machine whose /sys names a last-level cache of hundreds of MiB needs: its rows
// priced on DRAM would otherwise run without a reference.
func sameTimeMiB() int64 {
	const arr = instrument.SameTimeArrayMiB
	if llc := profiles.HostCPU().LLCBytes; llc > 0 {
		return max(min(llc>>20, arr), 1)
	}
	return min(cold.DefaultEvictSize()>>21, arr)
}

// refMiB is the default size of a drift reference's arrays: the calibration's.
func refMiB() int64 {
	return int64(instrument.DefaultArrayMiB(profiles.HostCPU(), instrument.MemAvailable()))
}

// copyRounds is how many copies a drift reference times.
const copyRounds = 5

// writeReferences writes the reference records measure returns, each with a progress line.
func writeReferences(w bench.RecordWriter, progress io.Writer, measure func() ([]record.Record, error)) error {
	recs, err := measure()
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return err
		}
		fmt.Fprintln(progress, bench.ReferenceLine(r))
	}
	return nil
}

// timingNote says how the cases are timed.
func timingNote(opt bench.Options) string {
	warm := fmt.Sprintf("warm batches of about %v in all per case", opt.MaxTime)
	if opt.Evictor == nil {
		return "every case in " + warm
	}
	note := fmt.Sprintf("every case cold: one call a sample, after reading a %d MiB buffer to evict the caches (not timed)", opt.Evictor.Size()>>20)
	if opt.Evictor.Size() < cold.DefaultEvictSize() {
		note += fmt.Sprintf(" (smaller than this host's %d MiB, twice its last-level cache: a case's data can stay cached, so its times are not cold ones)", cold.DefaultEvictSize()>>20)
	}
	if opt.SameTime != nil {
		note += fmt.Sprintf("; after each sample of a case with more than %d MiB of tensors, one cold call of the same-time reference (the calibration's %s)", opt.SameTime.Above>>20, strings.Join(opt.SameTime.Names, ", "))
	}
	if opt.Probe != nil {
		note += "; after each sample, one dispatch of the same-time compute probe (the " + profiles.ProbeKey + " roof kernel on every worker)"
	}
	return note
}

// reportSkips says which planned cases are skipped and why, and returns the others. The
// rows -quick leaves out are only counted, per reason, unless verbose: they are most of the
// catalog.
func reportSkips(plans []bench.Planned, verbose bool, w io.Writer) []bench.Planned {
	var todo []bench.Planned
	quickReasons := []string{bench.SkipNotCPU, bench.SkipQuickLarge}
	counted := map[string]int{}
	judged := 0
	for _, p := range plans {
		switch {
		case p.Skip == "":
			todo = append(todo, p)
		case !verbose && slices.Contains(quickReasons, p.Skip):
			counted[p.Skip]++
		case !verbose && bench.IsJudgeSkip(p.Skip):
			judged++
		default:
			fmt.Fprintf(w, "skip %s: %s\n", p.Name(), p.Skip)
		}
	}
	for _, r := range quickReasons {
		if counted[r] > 0 {
			fmt.Fprintf(w, "skip %d cases: %s\n", counted[r], r)
		}
	}
	if judged > 0 {
		fmt.Fprintf(w, "skip %d cases that cannot earn a verdict or have a smaller one of their op that can (-judge; -v lists them)\n", judged)
	}
	return todo
}

// ImplName is the implementation a module's bench command writes into its records
// (record.Record.Impl): the last element of the main module's path ("ropgen" for ropbench,
// built from github.com/ropgen/ropgen), so that the report never pools two modules' kernels
// into one row; the command's name when the binary carries no module path.
func ImplName(command string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path == "" {
		return command
	}
	return moduleImpl(bi.Main.Path)
}

// moduleImpl is the implementation name of a module path: its last element, or the one
// before a major version suffix (example.com/k/v2 is k).
func moduleImpl(path string) string {
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	return last
}
