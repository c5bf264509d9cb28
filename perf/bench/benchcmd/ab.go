package benchcmd

import (
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/perf/abtest"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/stats"
)

// builtinKnobs are the settings every registry's arms can change. procs is GOMAXPROCS:
// kernels that split work over goroutines run serially under one P, so procs=1 against
// procs=2 prices a kernel's serial-or-parallel choice on one workload.
var builtinKnobs = map[string]bench.Knob{
	"procs": {
		Doc: "GOMAXPROCS during the arm (1: every kernel runs serially; at most 4 × the CPUs)",
		// More Ps than a few per CPU only add scheduling, and a million make every parallel
		// kernel start a million goroutines: the trial would never finish.
		Max: func() int { return 4 * runtime.NumCPU() },
		Set: func(v int) func() {
			prev := runtime.GOMAXPROCS(v)
			return func() { runtime.GOMAXPROCS(prev) }
		},
	},
}

// knobs are the builtin knobs and the registry's own (bench.Knobber).
func knobs(reg bench.Registry) map[string]bench.Knob {
	all := maps.Clone(builtinKnobs)
	if k, ok := reg.(bench.Knobber); ok {
		maps.Copy(all, k.Knobs())
	}
	return all
}

// parseArm parses an arm's settings, "procs=1" (comma-separated knob=value pairs).
func parseArm(knobs map[string]bench.Knob, spec string) (abtest.Arm, error) {
	type setting struct {
		k bench.Knob
		v int
	}
	var settings []setting
	for _, pair := range strings.Split(spec, ",") {
		name, val, ok := strings.Cut(pair, "=")
		k, known := knobs[name]
		if !ok || !known {
			return abtest.Arm{}, fmt.Errorf("%q is not knob=value with a known knob (%s)", pair, knobList(knobs))
		}
		v, err := strconv.Atoi(val)
		if err != nil || v < 1 {
			return abtest.Arm{}, fmt.Errorf("%s: %q is not a positive integer", name, val)
		}
		if k.Max == nil {
			settings = append(settings, setting{k, v})
			continue
		}
		if hi := k.Max(); v > hi {
			return abtest.Arm{}, fmt.Errorf("%s: %d is above the most this machine takes (%d)", name, v, hi)
		}
		settings = append(settings, setting{k, v})
	}
	return abtest.Arm{Name: spec, Enter: func() func() {
		restore := make([]func(), len(settings))
		for i, s := range settings {
			restore[i] = s.k.Set(s.v)
		}
		return func() {
			for _, r := range slices.Backward(restore) {
				r()
			}
		}
	}}, nil
}

func knobList(knobs map[string]bench.Knob) string {
	var list []string
	for name, k := range knobs {
		list = append(list, name+": "+k.Doc)
	}
	slices.Sort(list)
	return strings.Join(list, "; ")
}

// ab is `NAME ab`: an A/B trial of two settings on one case.
func (e *env) ab(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags(e.name+" ab", "-op NAME (-workload REGEX [-dtype REGEX] | -set KEY=VALUE,... -dtype DTYPE) -a KNOB=VALUE -b KNOB=VALUE [-rounds N]", `
Ab compares two settings (arms) of one op on one case. Equality first: each arm's kernel
must match the reference, and the two arms each other; then paired rounds in alternating
order, and a two-sided sign test on the rounds B won and lost. The verdict rests on the
signs alone ("not stable" rather than an average).`, stdout, stderr)
	manifests := fl.ManifestsFlag()
	knobs := knobs(e.reg)
	aSpec := fl.String("a", "", "arm A: `KNOB=VALUE,...` (knobs: "+knobList(knobs)+")")
	bSpec := fl.String("b", "", "arm B, the candidate judged against A: `KNOB=VALUE,...`")
	set := fl.List("set", "run one workload given here instead of a catalog row: `KEY=VALUE,...` (needs -dtype DTYPE)")
	rounds := fl.Int("rounds", 20, "paired rounds")
	target := fl.Duration("sample-time", 20*time.Millisecond, "each timed batch lasts at least this long")
	alpha := fl.Float64("alpha", 0.01, "sign test level: a verdict other than \"not stable\" needs p <= alpha")
	ff := addFilterFlags(fl)
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	switch {
	case *ff.op == "" || *aSpec == "" || *bSpec == "":
		return fl.Fail("give -op, -a and -b")
	case !(*alpha > 0 && *alpha < 1):
		return fl.Fail("-alpha %v is not in (0, 1)", *alpha)
	case *rounds < abtest.MinRounds(*alpha):
		return fl.Fail("-rounds %d can never reach p <= %v: use at least %d", *rounds, *alpha, abtest.MinRounds(*alpha))
	case *target <= 0:
		return fl.Fail("-sample-time %v must be positive", *target)
	}
	a, err := parseArm(knobs, *aSpec)
	if err != nil {
		return fl.Fail("-a: %v", err)
	}
	b, err := parseArm(knobs, *bSpec)
	if err != nil {
		return fl.Fail("-b: %v", err)
	}

	cat, code, ok := e.load(fl, *manifests)
	if !ok {
		return code
	}
	cases, code, err := selectCases(cat, ff, *set)
	if err == nil && len(cases) != 1 {
		names := make([]string, len(cases))
		for i, c := range cases {
			names[i] = c.Name()
		}
		code, err = 2, fmt.Errorf("the flags select %d cases, want exactly one: %s", len(cases), strings.Join(names, ", "))
	}
	switch {
	case err != nil && code == 2:
		return fl.Fail("%v", err)
	case err != nil:
		return fl.Errorf("%v", err)
	}
	c := cases[0]
	if !e.reg.Has(c.Case.Op) {
		return fl.Errorf("%s: %s", c.Name(), bench.SkipNoBuilder)
	}
	in, err := e.reg.Build(c.Case, bench.BuildOptions{Seed: bench.DefaultOptions.Seed})
	if err != nil {
		return fl.Errorf("%v", err)
	}
	a.Call, b.Call = in.Run, in.Run
	trial := abtest.Trial{A: a, B: b, Equal: func() error { return sameOutputs(in, a, b) },
		Rounds: *rounds, Target: *target, Alpha: *alpha}
	fmt.Fprintf(stdout, "%s: A %s, B %s; %d rounds, batches of at least %v, alternating order\n", c.Name(), a.Name, b.Name, *rounds, *target)
	res, err := abtest.Run(trial)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	writeAB(stdout, res, in)
	return 0
}

// sameOutputs checks each arm's kernel against the reference, then, when the instance can
// take a snapshot of its outputs, the two arms' outputs against each other.
func sameOutputs(in bench.Instance, a, b abtest.Arm) error {
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
	snap, ok := in.(bench.Snapshotter)
	var same func() error
	if ok {
		same = snap.Snapshot()
	}
	if err := check(b); err != nil {
		return err
	}
	if same != nil {
		if err := same(); err != nil {
			return fmt.Errorf("%s vs %s: %w", b.Name, a.Name, err)
		}
	}
	return nil
}

// writeAB prints the trial: each arm's median time per call and the median per-round ratio
// for orientation, then the signs and the verdict, which rest on the signs alone.
func writeAB(w io.Writer, r *abtest.Result, in bench.Instance) {
	if _, ok := in.(bench.Snapshotter); ok {
		fmt.Fprintf(w, "equal: both arms match the reference and each other\n")
	} else {
		fmt.Fprintf(w, "equal: both arms match the reference\n")
	}
	fmt.Fprintf(w, "A %-12s median %s per call (%d calls a batch)\n", r.A, bench.Seconds(stats.Median(r.SecondsA)), r.CallsA)
	fmt.Fprintf(w, "B %-12s median %s per call (%d calls a batch)\n", r.B, bench.Seconds(stats.Median(r.SecondsB)), r.CallsB)
	ratios := make([]float64, len(r.SecondsA))
	for i := range ratios {
		ratios[i] = r.SecondsB[i] / r.SecondsA[i]
	}
	fmt.Fprintf(w, "median B/A time ratio per round: %.3f\n", stats.Median(ratios))
	fmt.Fprintf(w, "B faster in %d of %d rounds, slower in %d, %d ties; two-sided sign test p = %.3g (alpha %v)\n",
		r.BFaster, r.BFaster+r.BSlower+r.Ties, r.BSlower, r.Ties, r.P, r.Alpha)
	switch r.Verdict {
	case abtest.NotStable:
		fmt.Fprintf(w, "verdict: not stable: the signs do not settle; refuse rather than average\n")
	default:
		fmt.Fprintf(w, "verdict: B (%s) is %s than A (%s)\n", r.B, r.Verdict, r.A)
	}
}
