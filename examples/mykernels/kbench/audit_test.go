package kbench

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/bench/benchcmd"
)

// TestMain lets the audit run this test binary under valgrind as its bench command: the
// audit re-runs its own executable with "audit -call ...".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "audit" {
		os.Exit(benchcmd.Main("kbench", testRegistry, os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func audit(args ...string) (int, string) {
	var out bytes.Buffer
	code := benchcmd.Main("kbench", Registry, append([]string{"audit", "-manifests", "../manifest"}, args...), &out, &out)
	return code, out.String()
}

// TestAuditRefuses: a case too small to audit is an ERROR row (exit 1), never a PASS; without
// valgrind the audit says so and judges nothing (exit 0).
func TestAuditRefuses(t *testing.T) {
	if code, out := audit("-op", "ScaleFwd", "-workload", "cpu-small", "-dtype", "float32"); code != 1 || !strings.Contains(out, "ERROR") || !strings.Contains(out, "too small to audit") {
		t.Errorf("cpu-small: exit %d\n%s", code, out)
	}
	if code, out := audit("-op", "ScaleFwd", "-workload", "cpu-audit", "-valgrind", "no-such-valgrind"); code != 0 || !strings.Contains(out, "SKIP: no-such-valgrind not found") {
		t.Errorf("no valgrind: exit %d\n%s", code, out)
	}
	if code, out := audit("-workload", "cpu-audit"); code != 2 || !strings.Contains(out, "give -op") {
		t.Errorf("no -op: exit %d\n%s", code, out)
	}
}

// TestAuditPasses: ScaleFwd's formula (x read, y written) is the traffic its kernel moves
// in the cache simulation. Skipped without valgrind and under -short (two valgrind runs).
func TestAuditPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs under valgrind; skipped with -short")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed: the cache simulation cannot run")
	}
	code, out := audit("-op", "ScaleFwd", "-workload", "cpu-audit")
	if code != 0 || !strings.Contains(out, "ScaleFwd/cpu-audit/float32") || !strings.Contains(out, "PASS") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
