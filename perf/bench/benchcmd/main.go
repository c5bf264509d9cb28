// Package benchcmd is the benchmark layer as a command: run, predict, ab and eval over a
// module's Registry (package bench), with the manifests of its ropgen.yaml. ropbench is Main
// over ropgen's own catalog; a module that uses ropgen gets the same command for its own ops
// from a main of one line (docs/using.md).
package benchcmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
)

// Main is the benchmark command of a module, named name, over the ops reg builds:
//
//	name run      check and time every op × workload × dtype this machine can run; write records
//	name predict  price catalog workloads against a device profile, without running them
//	name ab       compare two settings of one op: equality first, interleaved rounds, sign test
//	name eval     run every workload through the generated EvalRoofline; failures at their rows
//	name audit    formula bytes against the traffic valgrind's cache simulation measures
//
// The manifests are -manifests, else those of the module's ropgen.yaml (found from the
// working directory up, as go.mod is), else manifest/ at the module root. args are the
// arguments after the command name; Main returns the exit code (0 clean, 1 failures or
// findings, 2 bad usage). A module's benchmark command is
//
//	func main() { os.Exit(benchcmd.Main("mybench", myops.Registry{}, os.Args[1:], os.Stdout, os.Stderr)) }
func Main(name string, reg bench.Registry, args []string, stdout, stderr io.Writer) int {
	e := &env{name: name, reg: reg}
	commands := map[string]cli.Command{
		"run":     {Summary: "check kernels against references, time Forward, write records (Go benchmark format or JSON lines)", Run: e.run},
		"predict": {Summary: "price catalog workloads against a device profile: bound, SOL time, attainable rate", Run: e.predict},
		"ab":      {Summary: "A/B two settings of one op: equality first, interleaved rounds, sign test verdict", Run: e.ab},
		"eval":    {Summary: "run every manifest workload through the generated EvalRoofline; report failures at their rows", Run: e.eval},
		"audit":   {Summary: "check formula bytes against the traffic a cache simulation (valgrind) measures, both ways", Run: e.audit},
	}
	return cli.Dispatch(name, commands, args, stdout, stderr)
}

// env is what every subcommand of Main shares.
type env struct {
	name string
	reg  bench.Registry
}

// catalog is the loaded catalog a subcommand works on.
type catalog struct {
	ops   []*manifest.Op
	cases []bench.Case
	files []string // the manifest files read: inputs no output may replace
}

// load loads the catalog the -manifests flag value names, or the configuration's. When ok
// is false the subcommand returns code.
func (e *env) load(fl *cli.Flags, manifests string) (cat catalog, code int, ok bool) {
	cfg, code, ok := fl.Config(manifests == "")
	if !ok {
		return cat, code, false
	}
	var mc manifest.Config
	if cfg != nil {
		mc.FormulasDir = cfg.Formulas
		if mc.FormulasDir == "" {
			mc.FormulasDir = filepath.Join(cfg.Root, config.DefaultFormulas)
		}
		mc.FormulasDir = config.Rel(mc.FormulasDir)
	}
	paths := cli.Manifests(manifests, cfg)
	var err error
	if cat.ops, cat.cases, err = bench.Load(mc, paths...); err != nil {
		return cat, fl.Errorf("%v", err), false
	}
	var ignored diag.Findings // Load has reported every path that does not expand
	cat.files = manifest.ExpandPaths(paths, &ignored)
	return cat, 0, true
}

// filterFlags are the -op, -workload and -dtype flags that select cases.
type filterFlags struct{ op, workload, dtype *string }

func addFilterFlags(fl *cli.Flags) filterFlags {
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

// selectCases returns the cases the flags select from cat: the one row -set gives (with
// -op the exact op name and -dtype the row's dtype), or the catalog rows the filter flags
// match. The exit code goes with the error: 2 for bad usage, 1 otherwise.
func selectCases(cat catalog, ff filterFlags, set string) ([]bench.Case, int, error) {
	if set == "" {
		f, err := ff.filter()
		if err != nil {
			return nil, 2, err
		}
		return f.Select(cat.cases), 0, nil
	}
	if *ff.op == "" || *ff.workload != "" {
		return nil, 2, errors.New("-set gives one row of one op: give -op NAME, and no -workload")
	}
	op, err := bench.FindOp(cat.ops, *ff.op)
	if err != nil {
		return nil, 2, fmt.Errorf("-op: %w", err)
	}
	cases, err := bench.SetCases(op, set, *ff.dtype)
	if err != nil {
		return nil, 1, err
	}
	return cases, 0, nil
}
