// Command ropgen validates op manifests and generates the EvalRoofline and ComputeRoof
// methods of the op catalog. It never imports package ops: a stale or broken generated file
// must never stop the generator from building.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: run parses its own flags from args and returns the exit code:
// 0 clean, 1 findings, 2 bad usage.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"validate":  {"check manifests against the schema and their workloads against their rules", runValidate},
	"generate":  {"generate EvalRoofline and ComputeRoof for the op packages", runGenerate},
	"report":    {"price benchmark records against a device profile: SOL table, JSON, CSV, chart", runReport},
	"audit":     {"compare formula bytes with measured traffic (Nsight Compute CSV or cache simulation)", runAudit},
	"roofline":  {"roofline calculators for a device profile: ridge points, tile and batch sizes, decode ceiling", runRoofline},
	"calibrate": {"measure this machine's memory bandwidth, FMA rate and latency floor into a device profile", runCalibrate},
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
		fmt.Fprintf(stderr, "ropgen: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ropgen <command> [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'ropgen <command> -h' for a command's flags.")
}
