package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
)

// TestConfiguredModule: in a module with a ropgen.yaml, validate and generate with no flags
// work from a subdirectory, and generate -check then agrees that nothing is stale.
func TestConfiguredModule(t *testing.T) {
	dir := generateModule(t)
	cfg := "manifests: manifest\npackages:\n  - dir: ops\nformulas: formulas\n"
	if err := os.WriteFile(filepath.Join(dir, "ropgen.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "ops"))
	if code, stdout, stderr := runCmd("validate"); code != 0 || !strings.Contains(stdout, "in 1 files") {
		t.Fatalf("validate from ops/: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCmd("generate", "-check"); code != 1 || !strings.Contains(stderr, "stale") {
		t.Fatalf("generate -check before generating: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd("generate"); code != 0 {
		t.Fatalf("generate from ops/: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ops", "zz_roofline.go")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCmd("generate", "-check"); code != 0 {
		t.Fatalf("generate -check after generating: exit %d\n%s%s", code, stdout, stderr)
	}
	// A broken config is reported at its position by every command that reads it.
	if err := os.WriteFile(filepath.Join(dir, "ropgen.yaml"), []byte("manifests: manifest\nformula: formulas\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "generate"} {
		code, _, stderr := runCmd(cmd)
		if code == 0 || !strings.Contains(stderr, `ropgen.yaml:2:1: unknown key "formula"`) {
			t.Errorf("%s with a broken config: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}

// TestConfiguredDTypes: a dtype the module adds in ropgen.yaml is one its manifests may name;
// without it the same manifest is refused at the dtype's position.
func TestConfiguredDTypes(t *testing.T) {
	t.Cleanup(func() { manifest.SetDTypes() })
	dir := generateModule(t)
	packed := "PackedFwd:\n  family: elementwise\n  status: spec-only\n  signature:\n    inputs:\n      x: {dtype: \"uint4x2 | uint8\"}\n" +
		"    outputs:\n      y: {dtype: \"same_as(x)\"}\n  workloads:\n    - {x_shape: [4, 8], dtypes: [uint4x2, uint8]}\n" +
		"  roofline:\n    flops: \"0\"\n    bytes: \"2 * product(x.shape) * elem_bytes\"\n"
	if err := os.WriteFile(filepath.Join(dir, "manifest", "packed.yaml"), []byte(packed), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "manifests: manifest\npackages:\n  - dir: ops\nformulas: formulas\n"
	if err := os.WriteFile(filepath.Join(dir, "ropgen.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, _, stderr := runCmd("validate"); code != 1 || !strings.Contains(stderr, `manifest/packed.yaml:6:18: PackedFwd: signature.inputs.x.dtype: unknown dtype "uint4x2"`) {
		t.Fatalf("validate without the dtype: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "ropgen.yaml"), []byte(cfg+"dtypes: {uint4x2: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCmd("validate"); code != 0 || !strings.Contains(stdout, "9 ops (7 implemented, 2 spec-only) in 2 files") {
		t.Errorf("validate with the dtype: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCmd("generate"); code != 0 {
		t.Errorf("generate with the dtype: exit %d\n%s", code, stderr)
	}
}

// TestInlineOnlyModule: a module whose rooflines are all inline needs no formulas package:
// its ropgen.yaml names none, and validate and generate work without one.
func TestInlineOnlyModule(t *testing.T) {
	dir := generateModule(t)
	gemm := "GemmFwd:\n  family: gemm\n  status: implemented\n  signature:\n    inputs:\n" +
		"      a: {dtype: \"float16\", shape: \"[M, K]\"}\n      b: {dtype: \"same_as(a)\", shape: \"[K, N]\"}\n" +
		"    outputs:\n      c: {dtype: \"same_as(a)\", shape: \"[M, N]\"}\n  workloads:\n    - {M: 1, N: 64, K: 64, dtypes: [float16]}\n" +
		"  roofline:\n    flops: \"2 * M * N * K\"\n    bytes: \"(M * K + K * N + M * N) * elem_bytes\"\n"
	for name, data := range map[string]string{"manifest/manifest.yaml": gemm, "ropgen.yaml": "manifests: manifest\npackages:\n  - dir: ops\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, "formulas")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "ops"))
	for _, args := range [][]string{{"validate"}, {"generate"}, {"generate", "-check"}} {
		if code, stdout, stderr := runCmd(args...); code != 0 {
			t.Errorf("%q: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
}

// TestValidateFromSubdirectory: ropgen's own catalog validates with no argument from the
// module root and from a directory below it.
func TestValidateFromSubdirectory(t *testing.T) {
	for _, dir := range []string{repoRoot(t), filepath.Join(repoRoot(t), "perf", "bench")} {
		t.Chdir(dir)
		if code, stdout, stderr := runCmd("validate"); code != 0 || !strings.Contains(stdout, " ops (") {
			t.Errorf("validate in %s: exit %d\n%s%s", dir, code, stdout, stderr)
		}
	}
}

func TestInit(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module example.com/k\n", "manifest/a.yaml": "", "kernels/gen.go": "package kernels\n\n//go:generate go tool ropgen generate\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	t.Chdir(filepath.Join(dir, "kernels"))
	if code, stdout, stderr := runCmd("init"); code != 0 || !strings.Contains(stdout, "wrote ../ropgen.yaml") || stderr != "" {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "ropgen.yaml"))
	if err != nil || !strings.Contains(string(data), "  - dir: kernels\n") {
		t.Fatalf("ropgen.yaml: %v\n%s", err, data)
	}
	if code, _, stderr := runCmd("init"); code != 1 || !strings.Contains(stderr, "exists already") {
		t.Errorf("second init: exit %d, stderr %q", code, stderr)
	}
}

func TestSchemaAndVersion(t *testing.T) {
	code, stdout, _ := runCmd("schema")
	disk, err := os.ReadFile(filepath.Join(repoRoot(t), "manifest", "manifest.schema.json"))
	if code != 0 || err != nil || stdout != string(disk) {
		t.Errorf("schema: exit %d, %v; output differs from manifest/manifest.schema.json", code, err)
	}
	code, stdout, _ = runCmd("schema", "-config")
	disk, err = os.ReadFile(filepath.Join(repoRoot(t), "config", "ropgen.schema.json"))
	if code != 0 || err != nil || stdout != string(disk) {
		t.Errorf("schema -config: exit %d, %v; output differs from config/ropgen.schema.json", code, err)
	}
	if code, stdout, _ := runCmd("version"); code != 0 || !strings.HasPrefix(stdout, "ropgen ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
	asTool := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "example.com/k"},
		Deps: []*debug.Module{{Path: modulePath, Version: "v0.3.0", Replace: &debug.Module{Path: "../ropgen"}}}}
	if got := versionLine(asTool); got != "ropgen v0.3.0 => ../ropgen go1.26.0" {
		t.Errorf("as a tool: %q", got)
	}
	installed := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: modulePath, Version: "v0.3.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}
	if got := versionLine(installed); got != "ropgen v0.3.1 rev abc123 go1.26.0" {
		t.Errorf("installed: %q", got)
	}
	// Built in a clone: no module version, the revision and whether the tree was edited.
	clone := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: modulePath, Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	if got := versionLine(clone); got != "ropgen (devel) rev abc123 (modified) go1.26.0" {
		t.Errorf("in a clone: %q", got)
	}
}

// TestUsageOneWay: every subcommand on the shared flag helper answers -h with its synopsis
// on stdout and exit 0, and a bad flag with the synopsis on stderr and exit 2.
func TestUsageOneWay(t *testing.T) {
	for _, name := range []string{"validate", "generate", "audit", "roofline", "init", "version", "schema", "report", "calibrate"} {
		code, stdout, stderr := runCmd(name, "-h")
		if code != 0 || !strings.HasPrefix(stdout, "usage: ropgen "+name) || stderr != "" {
			t.Errorf("%s -h: exit %d, stdout %q, stderr %q", name, code, stdout, stderr)
		}
		code, stdout, stderr = runCmd(name, "-no-such-flag")
		if code != 2 || stdout != "" || !strings.Contains(stderr, "usage: ropgen "+name) || !strings.Contains(stderr, "Run 'ropgen "+name+" -h' for details.") {
			t.Errorf("%s -no-such-flag: exit %d, stdout %q, stderr %q", name, code, stdout, stderr)
		}
		if code, stdout, _ := runCmd("help", name); code != 0 || !strings.HasPrefix(stdout, "usage: ropgen "+name) {
			t.Errorf("help %s: exit %d, stdout %q", name, code, stdout)
		}
	}
}
