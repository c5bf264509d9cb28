package ops

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoManifestDeps: the op catalog builds without the manifest model and the libraries it
// reads manifests with (YAML, JSON Schema, expr-lang), so that a program that only runs the
// kernels compiles none of them. What ties an op to a manifest case lives in
// internal/opsbench.
func TestNoManifestDeps(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the package's dependencies with")
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, banned := range []string{"manifest", "yaml", "jsonschema", "expr-lang"} {
			if strings.Contains(p, banned) {
				t.Errorf("package ops depends on %s", p)
			}
		}
	}
}
