// Command ropbench is the benchmark layer over ropgen's own op catalog (docs/model.md §8): the
// command any module gets for its ops from package perf/bench/benchcmd, over package ops,
// which ropgen must never import:
//
//	ropbench run      check and time every op × workload × dtype the CPU can run; write records
//	ropbench predict  price catalog workloads against a device profile, without running them
//	ropbench ab       compare two settings of one op: equality first, interleaved rounds, sign test
//	ropbench eval     run every workload through the generated EvalRoofline; failures at their rows
package main

import (
	"io"
	"os"

	"github.com/ropgen/ropgen/internal/opsbench"
	"github.com/ropgen/ropgen/perf/bench/benchcmd"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	return benchcmd.Main("ropbench", opsbench.Registry, args, stdout, stderr)
}
