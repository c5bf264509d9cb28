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

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/perf/bench"
)

var commands = map[string]cli.Command{
	"run":     {Summary: "check kernels against references, time Forward, write Go benchmark format records", Run: runBench},
	"predict": {Summary: "price catalog workloads against a device profile: bound, SOL time, attainable rate", Run: runPredict},
	"ab":      {Summary: "A/B two variants of one op: equality first, interleaved rounds, sign test verdict", Run: runAB},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	return cli.Dispatch("ropbench", commands, args, stdout, stderr)
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
