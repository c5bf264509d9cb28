// Package cputime reads the CPU time this process has used, for benchmarks that must be
// read on a shared machine: the wall time of a run stretches with every other process's
// load, its CPU time much less.
package cputime

import "time"

// Process returns the user plus system CPU time this process has used so far (0 where the
// platform does not say).
func Process() time.Duration { return process() }
