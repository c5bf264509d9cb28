package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/internal/cputime"
)

var update = flag.Bool("update", false, "rewrite the stderr.golden files of testdata/validate")

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// generated are the corpus cases whose input is too large to commit: the test writes it.
var generated = map[string]func(dir string) error{
	// A 10 MB manifest: the loader refuses it by size before parsing a byte.
	"huge_file": func(dir string) error {
		const entry = "ReluFwd%07d:\n  family: elementwise\n  status: spec-only\n  signature:\n    inputs:\n      x: {dtype: float32}\n    outputs: {}\n  roofline: {flops: \"0\", bytes: \"0\"}\n"
		var b bytes.Buffer
		for i := 0; b.Len() < 10<<20; i++ {
			fmt.Fprintf(&b, entry, i)
		}
		return os.WriteFile(filepath.Join(dir, "big.yaml"), b.Bytes(), 0o644)
	},
}

// TestValidateCorpus runs every malformed manifest of testdata/validate/<case> through the
// command, as a user would, and compares stderr with the case's stderr.golden: exact text,
// so file:line:col and wording cannot drift unnoticed. Each case must exit 1, print
// nothing on stdout and finish within a second. A case's args file, if any, replaces the
// path argument. Directories starting with _ hold shared fixtures.
func TestValidateCorpus(t *testing.T) {
	root := repoRoot(t)
	corpus := filepath.Join(root, "testdata", "validate")
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, "_") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			caseDir := filepath.Join(corpus, name)
			workDir := root
			if gen, ok := generated[name]; ok {
				// Mirror the case's path under a temporary root so the output names the
				// same relative path as a committed case.
				workDir = t.TempDir()
				dir := filepath.Join(workDir, "testdata", "validate", name)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := gen(dir); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"validate", "-formulas", "testdata/validate/_formulas"}
			if data, err := os.ReadFile(filepath.Join(caseDir, "args")); err == nil {
				args = append(args, strings.Fields(string(data))...)
			} else {
				args = append(args, filepath.ToSlash(filepath.Join("testdata", "validate", name)))
			}
			t.Chdir(workDir)
			var stdout, stderr bytes.Buffer
			// The CPU time the check costs, which other processes' load does not stretch as
			// it does the wall time (wall time where the platform gives no CPU time).
			start, cpu := time.Now(), cputime.Process()
			code := run(args, &stdout, &stderr)
			d := cputime.Process() - cpu
			if cpu == 0 {
				d = time.Since(start)
			}
			if d > time.Second {
				t.Errorf("took %v of CPU; a malformed manifest must be rejected within a second", d)
			}
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout: %q, want nothing", stdout.String())
			}
			golden := filepath.Join(caseDir, "stderr.golden")
			if *update {
				if err := os.WriteFile(golden, stderr.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got := stderr.String(); got != string(want) {
				t.Errorf("stderr differs from %s\n--- got:\n%s--- want:\n%s", golden, got, want)
			}
		})
	}
	if n < 25 {
		t.Errorf("corpus has %d cases, want at least 25", n)
	}
}

// TestValidateManifestsFlag: validate takes -manifests as every other command does (issue 23
// item 12: it was refused), alone or with path arguments.
func TestValidateManifestsFlag(t *testing.T) {
	root := repoRoot(t)
	bad := filepath.Join(root, "testdata", "validate", "confusable_name", "m.yaml")
	good := filepath.Join(root, "testdata", "validate", "_good")
	for _, args := range [][]string{{"validate", "-manifests", bad}, {"validate", "-manifests", good, bad}} {
		code, _, stderr := runCmd(args...)
		if code != 1 || !strings.Contains(stderr, "confusable_name/m.yaml:2:1: RеluFwd: op name must be ASCII letters") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
}
