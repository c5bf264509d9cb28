// Command kbench is ropgen's benchmark layer over example.com/mykernels' ops:
//
//	kbench eval                      every workload through the generated EvalRoofline
//	kbench predict -profile h200     the roofline of every workload on a device
//	kbench run -o records.txt        check and time the kernels; records for ropgen report
//	kbench ab -op ScaleFwd -workload cpu-small -dtype float32 -a procs=1 -b procs=2
package main

import (
	"os"

	"github.com/ropgen/ropgen/perf/bench/benchcmd"

	"example.com/mykernels/kbench"
)

func main() {
	os.Exit(benchcmd.Main("kbench", kbench.Registry, os.Args[1:], os.Stdout, os.Stderr))
}
