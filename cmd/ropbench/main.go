// Command ropbench is the benchmark layer of the op catalog (spec §4.2) and the tools that
// need the compiled catalog, which ropgen must never import:
//
//	ropbench run      check and time every op × workload × dtype the CPU can run; write records
//	ropbench predict  price catalog workloads against a device profile, without running them
//	ropbench ab       compare two variants of one op: equality first, interleaved rounds, sign test
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"

	"ropgen/perf/bench"
)

// command is one subcommand: run parses its own flags from args and returns the exit code:
// 0 clean, 1 failures, 2 bad usage.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"run":     {"check kernels against references, time Forward, write Go benchmark format records", runBench},
	"predict": {"price catalog workloads against a device profile: bound, SOL time, attainable rate", runPredict},
	"ab":      {"A/B two variants of one op: equality first, interleaved rounds, sign test verdict", runAB},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run([]string{"-h"}, stdout, stderr)
			}
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ropbench: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ropbench <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'ropbench <command> -h' for a command's flags.")
}

// filterFlags are the -op, -workload and -dtype flags that select cases.
type filterFlags struct{ op, workload, dtype *string }

func addFilterFlags(fl *flag.FlagSet) filterFlags {
	return filterFlags{
		op:       fl.String("op", "", "only ops whose whole name matches `REGEX` (GemmFwd, or '.*Gemm.*')"),
		workload: fl.String("workload", "", "only workload labels containing a match of `REGEX`"),
		dtype:    fl.String("dtype", "", "only dtype labels containing a match of `REGEX` (float32, or q=bfloat16,k=float8_e4m3)"),
	}
}

// filter compiles the flags: -op anchored at both ends, the others as searches.
func (ff filterFlags) filter() (bench.Filter, error) {
	var f bench.Filter
	var err error
	if f.Op, err = bench.FullMatch(*ff.op); err != nil {
		return f, fmt.Errorf("-op: %v", err)
	}
	for _, c := range []struct {
		name, expr string
		re         **regexp.Regexp
	}{{"workload", *ff.workload, &f.Workload}, {"dtype", *ff.dtype, &f.DType}} {
		if c.expr != "" {
			if *c.re, err = regexp.Compile(c.expr); err != nil {
				return f, fmt.Errorf("-%s: %v", c.name, err)
			}
		}
	}
	return f, nil
}

// selectCases loads the catalog and returns the cases the flags select: the one row -set
// gives (with -op the exact op name and -dtype the row's dtype), or the catalog rows the
// filter flags match. The exit code goes with the error: 2 for bad usage, 1 otherwise.
func selectCases(manifests string, ff filterFlags, set string) ([]bench.Case, int, error) {
	opList, cases, err := bench.Load(manifests)
	if err != nil {
		return nil, 1, err
	}
	if set == "" {
		f, err := ff.filter()
		if err != nil {
			return nil, 2, err
		}
		return f.Select(cases), 0, nil
	}
	if *ff.op == "" || *ff.workload != "" {
		return nil, 2, errors.New("-set gives one row of one op: give -op NAME, and no -workload")
	}
	op, err := bench.FindOp(opList, *ff.op)
	if err != nil {
		return nil, 2, fmt.Errorf("-op: %w", err)
	}
	if cases, err = bench.SetCases(op, set, *ff.dtype); err != nil {
		return nil, 1, err
	}
	return cases, 0, nil
}
