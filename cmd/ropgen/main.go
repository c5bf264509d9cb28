// Command ropgen validates op manifests and generates the EvalRoofline and ComputeRoof
// methods of the op catalog. It never imports package ops: a stale or broken generated file
// must never stop the generator from building.
package main

import (
	"io"
	"os"

	"github.com/ropgen/ropgen/internal/cli"
)

var commands = map[string]cli.Command{
	"validate":  {Summary: "check manifests against the schema and their workloads against their rules", Run: runValidate},
	"generate":  {Summary: "generate EvalRoofline and ComputeRoof for the op packages", Run: runGenerate},
	"report":    {Summary: "price benchmark records against a device profile: SOL table, JSON, CSV, chart", Run: runReport},
	"audit":     {Summary: "compare formula bytes with measured traffic (Nsight Compute CSV or cache simulation)", Run: runAudit},
	"roofline":  {Summary: "roofline calculators for a device profile: ridge points, tile and batch sizes, decode ceiling", Run: runRoofline},
	"init":      {Summary: "write a starting ropgen.yaml at the module root", Run: runInit},
	"version":   {Summary: "print the ropgen version this binary was built from", Run: runVersion},
	"schema":    {Summary: "print the manifest JSON Schema (for an editor's modeline)", Run: runSchema},
	"history":   {Summary: "keep every run in a database: add, runs, show, diff (the regression gate), page", Run: runHistory},
	"calibrate": {Summary: "measure this machine's memory bandwidth, FMA rate and latency floor into a device profile", Run: runCalibrate},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	return cli.Dispatch("ropgen", commands, args, stdout, stderr)
}
