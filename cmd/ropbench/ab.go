package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/abtest"
	"github.com/ropgen/ropgen/perf/bench"
)

// knob is a setting an arm changes while it runs.
type knob struct {
	doc string
	// max is the largest value the knob takes on this machine.
	max func() int
	// set applies value and returns the function that restores the previous setting.
	set func(value int) (restore func())
}

// knobs are the settings an arm can change, by name. procs is GOMAXPROCS: the kernels split
// work with parallelFor, which runs serially under one P, so procs=1 against procs=2 prices
// the kernels' serial-or-parallel choice (the grain sizes) on one workload.
var knobs = map[string]knob{
	"procs": {
		doc: "GOMAXPROCS during the arm (1: every kernel runs serially; at most 4 × the CPUs)",
		// More Ps than a few per CPU only add scheduling, and a million make every parallel
		// kernel start a million goroutines: the trial would never finish.
		max: func() int { return 4 * runtime.NumCPU() },
		set: func(v int) func() {
			prev := runtime.GOMAXPROCS(v)
			return func() { runtime.GOMAXPROCS(prev) }
		},
	},
	"simd": {
		doc: "the kernels' SIMD level (1: Go loops, 2: AVX2+FMA, 3: AVX-512; capped at the CPU's)",
		set: ops.SetSIMD,
	},
}

// parseArm parses an arm's settings, "procs=1" (comma-separated knob=value pairs).
func parseArm(spec string) (abtest.Arm, error) {
	type setting struct {
		k knob
		v int
	}
	var settings []setting
	for _, pair := range strings.Split(spec, ",") {
		name, val, ok := strings.Cut(pair, "=")
		k, known := knobs[name]
		if !ok || !known {
			return abtest.Arm{}, fmt.Errorf("%q is not knob=value with a known knob (%s)", pair, knobList())
		}
		v, err := strconv.Atoi(val)
		if err != nil || v < 1 {
			return abtest.Arm{}, fmt.Errorf("%s: %q is not a positive integer", name, val)
		}
		if hi := k.max(); v > hi {
			return abtest.Arm{}, fmt.Errorf("%s: %d is above the most this machine takes (%d)", name, v, hi)
		}
		settings = append(settings, setting{k, v})
	}
	return abtest.Arm{Name: spec, Enter: func() func() {
		restore := make([]func(), len(settings))
		for i, s := range settings {
			restore[i] = s.k.set(s.v)
		}
		return func() {
			for _, r := range slices.Backward(restore) {
				r()
			}
		}
	}}, nil
}

func knobList() string {
	var list []string
	for name, k := range knobs {
		list = append(list, name+": "+k.doc)
	}
	slices.Sort(list)
	return strings.Join(list, "; ")
}

func runAB(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("ropbench ab", flag.ContinueOnError)
	fl.SetOutput(stderr)
	manifests := fl.String("manifest", "manifest", "manifest `PATH` (file or directory)")
	aSpec := fl.String("a", "", "arm A: `KNOB=VALUE,...` (knobs: "+knobList()+")")
	bSpec := fl.String("b", "", "arm B, the candidate judged against A: `KNOB=VALUE,...`")
	set := fl.String("set", "", "run one workload given here instead of a catalog row: `KEY=VALUE,...` (needs -dtype DTYPE)")
	rounds := fl.Int("rounds", 20, "paired rounds")
	target := fl.Duration("sample-time", 20*time.Millisecond, "each timed batch lasts at least this long")
	alpha := fl.Float64("alpha", 0.01, "sign test level: a verdict other than \"not stable\" needs p <= alpha")
	ff := addFilterFlags(fl)
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 || *ff.op == "" || *aSpec == "" || *bSpec == "" {
		fmt.Fprintln(stderr, "usage: ropbench ab -op NAME (-workload REGEX [-dtype REGEX] | -set KEY=VALUE,... -dtype DTYPE) -a KNOB=VALUE -b KNOB=VALUE [-rounds N]")
		return 2
	}
	switch {
	case !(*alpha > 0 && *alpha < 1):
		fmt.Fprintf(stderr, "ropbench ab: -alpha %v is not in (0, 1)\n", *alpha)
		return 2
	case *rounds < abtest.MinRounds(*alpha):
		fmt.Fprintf(stderr, "ropbench ab: -rounds %d can never reach p <= %v: use at least %d\n", *rounds, *alpha, abtest.MinRounds(*alpha))
		return 2
	case *target <= 0:
		fmt.Fprintf(stderr, "ropbench ab: -sample-time %v must be positive\n", *target)
		return 2
	}
	a, err := parseArm(*aSpec)
	if err == nil {
		b, errB := parseArm(*bSpec)
		if errB != nil {
			err = fmt.Errorf("-b: %w", errB)
		}
		if err == nil {
			return ab(*manifests, ff, *set, a, b, *rounds, *target, *alpha, stdout, stderr)
		}
	} else {
		err = fmt.Errorf("-a: %w", err)
	}
	fmt.Fprintf(stderr, "ropbench ab: %v\n", err)
	return 2
}

func ab(manifests string, ff filterFlags, set string, a, b abtest.Arm, rounds int, target time.Duration, alpha float64, stdout, stderr io.Writer) int {
	c, code, err := oneCase(manifests, ff, set)
	if err != nil {
		fmt.Fprintf(stderr, "ropbench ab: %v\n", err)
		return code
	}
	in, err := ops.Build(c.Case, ops.BuildOptions{Seed: bench.DefaultOptions.Seed})
	if err != nil {
		fmt.Fprintf(stderr, "ropbench ab: %v\n", err)
		return 1
	}
	a.Call, b.Call = in.Run, in.Run
	trial := abtest.Trial{A: a, B: b, Equal: func() error { return sameOutputs(in, a, b) },
		Rounds: rounds, Target: target, Alpha: alpha}
	fmt.Fprintf(stdout, "%s: A %s, B %s; %d rounds, batches of at least %v, alternating order\n", c.Name(), a.Name, b.Name, rounds, target)
	res, err := abtest.Run(trial)
	if err != nil {
		fmt.Fprintf(stderr, "ropbench ab: %v\n", err)
		return 1
	}
	writeAB(stdout, res)
	return 0
}

// oneCase resolves the flags to exactly one case.
func oneCase(manifests string, ff filterFlags, set string) (bench.Case, int, error) {
	cases, code, err := selectCases(manifests, ff, set)
	if err != nil {
		return bench.Case{}, code, err
	}
	if len(cases) != 1 {
		var names []string
		for _, c := range cases {
			names = append(names, c.Name())
		}
		return bench.Case{}, 2, fmt.Errorf("the flags select %d cases, want exactly one: %s", len(cases), strings.Join(names, ", "))
	}
	return cases[0], 0, nil
}

// sameOutputs checks each arm's kernel against the reference, then the two arms' outputs
// against each other within the op's tolerance.
func sameOutputs(in *ops.Instance, a, b abtest.Arm) error {
	check := func(arm abtest.Arm) error {
		leave := arm.Enter()
		defer leave()
		if err := in.Check(); err != nil {
			return fmt.Errorf("%s: %w", arm.Name, err)
		}
		return nil
	}
	if err := check(a); err != nil {
		return err
	}
	want := make([]*ops.Tensor, len(in.Outputs))
	for i, o := range in.Outputs {
		want[i] = &ops.Tensor{Shape: o.T.Shape, DType: o.T.DType, Data: slices.Clone(o.T.Data)}
	}
	if err := check(b); err != nil {
		return err
	}
	for i, o := range in.Outputs {
		if err := ops.Compare(o.T, want[i], in.Tol); err != nil {
			return fmt.Errorf("output %s: %s vs %s: %w", o.Name, b.Name, a.Name, err)
		}
	}
	return nil
}

// writeAB prints the trial: each arm's median time per call and the median per-round ratio
// for orientation, then the signs and the verdict, which rest on the signs alone.
func writeAB(w io.Writer, r *abtest.Result) {
	fmt.Fprintf(w, "equal: both arms match the reference and each other\n")
	fmt.Fprintf(w, "A %-12s median %s per call (%d calls a batch)\n", r.A, bench.Seconds(bench.Median(r.SecondsA)), r.CallsA)
	fmt.Fprintf(w, "B %-12s median %s per call (%d calls a batch)\n", r.B, bench.Seconds(bench.Median(r.SecondsB)), r.CallsB)
	ratios := make([]float64, len(r.SecondsA))
	for i := range ratios {
		ratios[i] = r.SecondsB[i] / r.SecondsA[i]
	}
	fmt.Fprintf(w, "median B/A time ratio per round: %.3f\n", bench.Median(ratios))
	fmt.Fprintf(w, "B faster in %d of %d rounds, slower in %d, %d ties; two-sided sign test p = %.3g (alpha %v)\n",
		r.BFaster, r.BFaster+r.BSlower+r.Ties, r.BSlower, r.Ties, r.P, r.Alpha)
	switch r.Verdict {
	case abtest.NotStable:
		fmt.Fprintf(w, "verdict: not stable: the signs do not settle; refuse rather than average\n")
	default:
		fmt.Fprintf(w, "verdict: B (%s) is %s than A (%s)\n", r.B, r.Verdict, r.A)
	}
}
