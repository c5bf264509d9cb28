package ops

import (
	"go/build/constraint"
	"os"
	"os/exec"
	"path/filepath"
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

// TestNoArchFiles: package ops holds the ops' semantics only, the same on every
// architecture and in the purego build; a kernel's dispatch (the SIMD level's choice, the
// build tags) is internal/asm/f32's. A file named for an architecture or carrying a build
// constraint would put some of that back here.
func TestNoArchFiles(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(f, ".go"), "_test")
		for _, arch := range []string{"amd64", "arm64", "386", "arm", "riscv64", "ppc64le", "s390x", "wasm"} {
			if strings.HasSuffix(name, "_"+arch) {
				t.Errorf("%s: named for an architecture; its kernels and dispatch belong in internal/asm/f32", f)
			}
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "package ") {
				break
			}
			if constraint.IsGoBuild(line) || constraint.IsPlusBuild(line) {
				t.Errorf("%s: %s: a build constraint; the code it selects belongs in internal/asm/f32", f, line)
			}
		}
	}
}
