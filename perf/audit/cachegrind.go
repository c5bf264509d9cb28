package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// RunCachegrind runs prog with args under valgrind (vg) with cachegrind's cache simulation:
// d1 for the first-level instruction and data caches, ll for the last level, its counts to
// out. The child gets one P (GOMAXPROCS=1: kernels run serially, so a measured run and its
// baseline schedule alike), no asynchronous preemption signals and the collector's default
// pacing (GOGC=100, whatever the caller's environment sets), so that the two runs differ
// only in the calls being audited and audit alike from any caller. Its runtime reads the clock without RDTSCP
// (cpu.rdtscp=off): on a virtual machine whose host hides RDTSCP, valgrind's CPU still
// offers it to the child but its decoder cannot run it, and the child dies of SIGILL in
// the scheduler. A failure carries the last lines valgrind printed.
func RunCachegrind(vg string, d1, ll SimCache, out string, timeout time.Duration, prog string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	vargs := append([]string{"--tool=cachegrind", "--cache-sim=yes",
		"--I1=" + d1.String(), "--D1=" + d1.String(), "--LL=" + ll.String(),
		"--cachegrind-out-file=" + out, prog}, args...)
	cmd := exec.CommandContext(ctx, vg, vargs...)
	godebug := "asyncpreemptoff=1,cpu.rdtscp=off"
	if v := os.Getenv("GODEBUG"); v != "" {
		godebug = v + "," + godebug
	}
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GOGC=100", "GODEBUG="+godebug)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("valgrind ran past its timeout %v", timeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		lines := strings.Split(strings.TrimRight(log.String(), "\n"), "\n")
		return fmt.Errorf("valgrind: %v:\n%s", err, strings.Join(lines[max(0, len(lines)-20):], "\n"))
	}
	return err
}
