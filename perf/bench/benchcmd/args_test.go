package benchcmd

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
)

// The command-line pieces of Main, tested here without a catalog or a timed run (those run
// through cmd/ropbench): arms, knobs, case selection, usage.

// knobRegistry is a registry with knobs of its own and nothing to build.
type knobRegistry struct {
	knobs map[string]bench.Knob
}

func (knobRegistry) Has(string) bool { return false }
func (knobRegistry) Build(manifest.Case, bench.BuildOptions) (bench.Instance, error) {
	return nil, errors.New("knobRegistry builds nothing")
}
func (r knobRegistry) Knobs() map[string]bench.Knob { return r.knobs }

// loggingKnob is a knob whose Set and restore append to log.
func loggingKnob(name string, max int, log *[]string) bench.Knob {
	k := bench.Knob{Doc: name + " doc", Set: func(v int) func() {
		*log = append(*log, name+" set")
		return func() { *log = append(*log, name+" restored") }
	}}
	if max > 0 {
		k.Max = func() int { return max }
	}
	return k
}

func TestParseArm(t *testing.T) {
	var log []string
	knobs := map[string]bench.Knob{"a": loggingKnob("a", 4, &log), "b": loggingKnob("b", 0, &log)}
	for _, tc := range []struct{ spec, err string }{
		{"c=1", `"c=1" is not knob=value with a known knob (a: a doc; b: b doc)`},
		{"a", `"a" is not knob=value with a known knob`},
		{"a=x", `a: "x" is not a positive integer`},
		{"a=0", `a: "0" is not a positive integer`},
		{"a=-2", `a: "-2" is not a positive integer`},
		{"a=5", "a: 5 is above the most this machine takes (4)"},
		{"a=1,", `"" is not knob=value`},
	} {
		_, err := parseArm(knobs, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parseArm(%q) = %v, want an error containing %q", tc.spec, err, tc.err)
		}
	}
	if len(log) != 0 {
		t.Errorf("a refused arm touched a knob: %v", log)
	}

	// A knob without Max takes any positive value; settings apply in order, restore backwards.
	arm, err := parseArm(knobs, "a=4,b=1000000")
	if err != nil {
		t.Fatal(err)
	}
	if arm.Name != "a=4,b=1000000" {
		t.Errorf("arm name %q, want the spec", arm.Name)
	}
	if len(log) != 0 {
		t.Errorf("parsing an arm touched a knob: %v", log)
	}
	arm.Enter()()
	if want := []string{"a set", "b set", "b restored", "a restored"}; !slices.Equal(log, want) {
		t.Errorf("enter and leave: %v, want %v", log, want)
	}
}

func TestKnobs(t *testing.T) {
	if got := slices.Sorted(maps.Keys(knobs(knobRegistry{}))); !slices.Equal(got, []string{"procs"}) {
		t.Errorf("knobs of a registry without its own: %v, want procs alone", got)
	}
	var log []string
	all := knobs(knobRegistry{map[string]bench.Knob{"simd": loggingKnob("simd", 2, &log)}})
	if _, ok := all["procs"]; !ok {
		t.Error("a registry's knobs replaced the builtin procs")
	}
	if _, ok := all["simd"]; !ok {
		t.Error("the registry's own knob is missing")
	}
	if _, ok := builtinKnobs["simd"]; ok {
		t.Error("knobs wrote the registry's knob into the builtin table")
	}
	if got, want := knobList(all), "procs: "+builtinKnobs["procs"].Doc+"; simd: simd doc"; got != want {
		t.Errorf("knobList = %q, want %q", got, want)
	}
}

// parsedFilter returns the filter flags after parsing args.
func parsedFilter(t *testing.T, args ...string) filterFlags {
	t.Helper()
	fl := cli.NewFlags("x", "x [flags]", "", io.Discard, io.Discard)
	ff := addFilterFlags(fl)
	if _, ok := fl.Parse(args); !ok {
		t.Fatalf("parse %v failed", args)
	}
	return ff
}

func testCases() []bench.Case {
	var cases []bench.Case
	for _, c := range []struct{ op, label, dtype string }{
		{"GemmFwd", "prefill", "float32"},
		{"GemmFwd", "decode", "bfloat16"},
		{"BatchedGemmFwd", "prefill", "float32"},
		{"AddFwd", "big", "float32"},
	} {
		cases = append(cases, bench.Case{Case: manifest.Case{Op: c.op, Label: c.label}, DType: c.dtype})
	}
	return cases
}

func names(cases []bench.Case) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Case.Op+"/"+c.Case.Label+"/"+c.DType)
	}
	return out
}

func TestSelectCasesFilter(t *testing.T) {
	cat := catalog{cases: testCases()}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, names(testCases())},
		// -op matches the whole name: GemmFwd is not BatchedGemmFwd.
		{[]string{"-op", "GemmFwd"}, []string{"GemmFwd/prefill/float32", "GemmFwd/decode/bfloat16"}},
		{[]string{"-op", ".*Gemm.*", "-workload", "pre"}, []string{"GemmFwd/prefill/float32", "BatchedGemmFwd/prefill/float32"}},
		{[]string{"-dtype", "bf"}, []string{"GemmFwd/decode/bfloat16"}},
		{[]string{"-op", "Gemm"}, nil},
	} {
		got, code, err := selectCases(cat, parsedFilter(t, tc.args...), "")
		if err != nil || code != 0 {
			t.Errorf("%v: code %d, %v", tc.args, code, err)
			continue
		}
		if !slices.Equal(names(got), tc.want) {
			t.Errorf("%v selects %v, want %v", tc.args, names(got), tc.want)
		}
	}
}

func TestSelectCasesErrors(t *testing.T) {
	cat := catalog{cases: testCases(), ops: []*manifest.Op{{Name: "GemmFwd"}}}
	for _, tc := range []struct {
		args []string
		set  string
		code int
		err  string
	}{
		{[]string{"-op", "("}, "", 2, "-op: "},
		{[]string{"-workload", "["}, "", 2, "-workload: "},
		{[]string{"-dtype", "*"}, "", 2, "-dtype: "},
		{nil, "M=1", 2, "-set gives one row of one op: give -op NAME, and no -workload"},
		{[]string{"-op", "GemmFwd", "-workload", "x"}, "M=1", 2, "-set gives one row of one op"},
		{[]string{"-op", "NoSuchFwd"}, "M=1", 2, "-op: "},
	} {
		_, code, err := selectCases(cat, parsedFilter(t, tc.args...), tc.set)
		if err == nil || code != tc.code || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v -set %q: code %d, %v; want code %d and an error containing %q", tc.args, tc.set, code, err, tc.code, tc.err)
		}
	}
}

func TestMainUsage(t *testing.T) {
	subcommands := []string{"ab", "audit", "eval", "predict", "run"}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, ""},
		{[]string{"nope"}, 2, `mybench: unknown command "nope"`},
		{[]string{"help"}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := Main("mybench", knobRegistry{}, tc.args, &stdout, &stderr)
		if code != tc.code {
			t.Errorf("Main %v: exit %d, want %d", tc.args, code, tc.code)
		}
		if !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("Main %v: stderr %q, want it to contain %q", tc.args, stderr.String(), tc.stderr)
		}
		usage := stderr.String() + stdout.String()
		if !strings.Contains(usage, "usage: mybench <command>") {
			t.Errorf("Main %v: no usage naming the command: %q", tc.args, usage)
		}
		for _, s := range subcommands {
			if !strings.Contains(usage, "\n  "+s+" ") {
				t.Errorf("Main %v: usage does not list %s: %q", tc.args, s, usage)
			}
		}
	}
}

func TestFixed(t *testing.T) {
	if got := fixed(math.NaN(), "%.2f"); got != "" {
		t.Errorf("a blank cell printed %q", got)
	}
	if got := fixed(1.5, "%.2f"); got != "1.50" {
		t.Errorf("fixed(1.5) = %q, want 1.50", got)
	}
	if got := fixed(0, "%.1f%%"); got != "0.0%" {
		t.Errorf("fixed(0) = %q, want 0.0%%", got)
	}
}

// TestMaxSamplesNeedsJudge: -max-samples is refused, before anything is loaded or measured,
// without -judge (the verdict it settles is a profile's) or below -samples.
func TestMaxSamplesNeedsJudge(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-max-samples", "30"}, "-max-samples 30: needs -judge"},
		{[]string{"run", "-judge", "h200", "-samples", "15", "-max-samples", "10"}, "-max-samples 10: needs -judge (the verdict is the profile's) and at least -samples (15)"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main("mybench", knobRegistry{}, tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestAuditTimeoutPositive: audit -timeout -5s (or 0s) ran every case and reported that
// valgrind ran past its timeout, exit 1 (issue 40 item 19): it is bad usage, before anything
// is loaded or run.
func TestAuditTimeoutPositive(t *testing.T) {
	for _, d := range []string{"-5s", "0s"} {
		var stdout, stderr bytes.Buffer
		args := []string{"audit", "-op", "AddFwd", "-timeout", d}
		if code := Main("mybench", knobRegistry{}, args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-timeout "+strings.TrimSuffix(d, "s")) || !strings.Contains(stderr.String(), "want a positive duration") {
			t.Errorf("%v: exit %d, stderr %q; want 2, a positive duration", args, code, stderr.String())
		}
	}
}

// TestAuditSmallCaseShowsItsBytes: a case below the audit's size limit was shown with
// "formula B" 0 while its note said 49152 (issue 40 item 14): the row shows the formula
// bytes of its one call.
func TestAuditSmallCaseShowsItsBytes(t *testing.T) {
	const small = 48 << 10 // below auditMinCall; a plan's bytes are the op's, not counted here
	row := auditRun{}.auditCase(0, bench.Planned{Bytes: small})
	if row.verdict != "ERROR" || row.formula != small || row.calls != 1 || !strings.Contains(row.note, "49152 formula bytes a call: too small to audit") {
		t.Errorf("row %+v", row)
	}
}
