package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
)

// quickMaxTime is the timing budget per case under -quick, unless -max-time is given: the
// quick subset has some sixty cases and must finish well under a minute on two cores.
const quickMaxTime = 150 * time.Millisecond

func runBench(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("ropbench run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	manifests := fl.String("manifest", "manifest", "manifest `PATH` (file or directory)")
	out := fl.String("o", "", "write the records to `FILE` (default: standard output)")
	ff := addFilterFlags(fl)
	quick := fl.Bool("quick", false, "only the small cpu-* rows (32 MiB of tensors at most), with a short timing budget")
	count := fl.Int("count", bench.DefaultOptions.Count, "records per case (benchstat needs several for a p-value)")
	samples := fl.Int("samples", bench.DefaultOptions.Samples, "timed batches per record; the record is their median")
	maxTime := fl.Duration("max-time", bench.DefaultOptions.MaxTime, "timing budget per case, calibration included; -quick lowers the default to 150ms")
	maxStorage := fl.Int64("max-bytes", bench.DefaultLimits.MaxStorage, "skip cases whose CPU tensors (4 bytes an element) exceed `N` bytes")
	maxFlops := fl.Int64("max-flops", bench.DefaultLimits.FlopLimit, "skip cases above `N` FLOPs (the plain reference runs at about 1 GFLOP/s)")
	warm := fl.Bool("warm", false, "time every case in warm batches; by default a case that fits in twice the last-level cache is timed cold, one call after evicting the caches")
	verbose := fl.Bool("v", false, "list every skipped case")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "ropbench run: unexpected arguments %q\n", fl.Args())
		return 2
	}
	f, err := ff.filter()
	if err != nil {
		fmt.Fprintf(stderr, "ropbench run: %v\n", err)
		return 2
	}
	opt := bench.DefaultOptions
	opt.Count, opt.Samples, opt.MaxTime = *count, *samples, *maxTime
	if *quick && !flagSet(fl, "max-time") {
		opt.MaxTime = quickMaxTime
	}
	opt.Device = profiles.HostDeviceName()
	if !*warm {
		opt.Evictor = bench.NewEvictor(bench.DefaultEvictSize())
	}
	lim := bench.Limits{MaxStorage: *maxStorage, FlopLimit: *maxFlops, Quick: *quick}

	_, cases, err := bench.Load(*manifests)
	if err != nil {
		fmt.Fprintf(stderr, "ropbench run: %v\n", err)
		return 1
	}
	plans, err := bench.Plan(f.Select(cases), lim)
	if err != nil {
		fmt.Fprintf(stderr, "ropbench run: %v\n", err)
		return 1
	}
	todo := reportSkips(plans, *verbose, stderr)
	if len(todo) == 0 {
		fmt.Fprintln(stderr, "ropbench run: no case selected")
		return 1
	}

	// -o FILE is written to a temporary file renamed over FILE when the run completes: an
	// interrupted run leaves the old records as they were.
	w, commit := stdout, func() error { return nil }
	if *out != "" {
		file, err := output.Create(*out, *manifests)
		if err != nil {
			fmt.Fprintf(stderr, "ropbench run: %v\n", err)
			return 1
		}
		defer file.Abort()
		w, commit = file, file.Commit
	}
	buf := bufio.NewWriter(w)
	fmt.Fprintf(stderr, "device %q: %d cases, %d record(s) of %d samples each; %s\n",
		opt.Device, len(todo), opt.Count, opt.Samples, timingNote(opt))
	start := time.Now()
	failed, err := bench.Run(todo, opt, record.NewBenchWriter(buf), buf.Flush, stderr)
	if err == nil {
		err = commit()
	}
	if err != nil {
		fmt.Fprintf(stderr, "ropbench run: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "%d cases in %.1fs, %d failed\n", len(todo), time.Since(start).Seconds(), failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// timingNote says how the cases are timed.
func timingNote(opt bench.Options) string {
	warm := fmt.Sprintf("warm batches of about %v in all per case", opt.MaxTime)
	if opt.Evictor == nil {
		return "every case in " + warm
	}
	return fmt.Sprintf("cases under %d MiB cold (one call after evicting the caches), larger ones in %s", opt.Evictor.Size()>>20, warm)
}

// flagSet reports whether the flag named name was given on the command line.
func flagSet(fl *flag.FlagSet, name string) bool {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// reportSkips says which planned cases are skipped and why, and returns the others. The
// rows -quick leaves out are only counted, per reason, unless verbose: they are most of the
// catalog.
func reportSkips(plans []bench.Planned, verbose bool, w io.Writer) []bench.Planned {
	var todo []bench.Planned
	quickReasons := []string{bench.SkipNotCPU, bench.SkipQuickLarge}
	counted := map[string]int{}
	for _, p := range plans {
		switch {
		case p.Skip == "":
			todo = append(todo, p)
		case !verbose && slices.Contains(quickReasons, p.Skip):
			counted[p.Skip]++
		default:
			fmt.Fprintf(w, "skip %s: %s\n", p.Name(), p.Skip)
		}
	}
	for _, r := range quickReasons {
		if counted[r] > 0 {
			fmt.Fprintf(w, "skip %d cases: %s\n", counted[r], r)
		}
	}
	return todo
}
