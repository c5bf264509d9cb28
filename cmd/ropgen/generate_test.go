package main

import (
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/gen"
)

// generateModule lays out a throwaway module holding the golden "basic" case: manifest.yaml,
// an ops package and a formulas package. It returns the module directory.
func generateModule(t *testing.T) string {
	t.Helper()
	src := filepath.Join(repoRoot(t), "testdata", "golden", "basic")
	dir := t.TempDir()
	write := func(rel, data string) {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write("go.mod", "module tmpmod\n\ngo 1.26\n")
	write("manifest/manifest.yaml", read("manifest.yaml"))
	write("ops/ops.go", read("ops/ops.go"))
	write("formulas/formulas.go", read("formulas/formulas.go"))
	return dir
}

func runGenerateIn(t *testing.T, dir string, extra ...string) (code int, stdout, stderr string) {
	t.Helper()
	args := append([]string{"generate", "-manifests", filepath.Join(dir, "manifest"),
		"-ops", filepath.Join(dir, "ops"), "-formulas", filepath.Join(dir, "formulas")}, extra...)
	return runCmd(args...)
}

func TestGenerateWritesChecksAndLeavesUnchangedFiles(t *testing.T) {
	dir := generateModule(t)
	methods := filepath.Join(dir, "ops", "zz_roofline.go")

	if code, _, stderr := runGenerateIn(t, dir, "-check"); code != 1 || !strings.Contains(stderr, "stale") {
		t.Fatalf("-check before any generation: exit %d, stderr %q; want 1 and a stale message", code, stderr)
	}
	if _, err := os.Stat(methods); err == nil {
		t.Fatal("-check wrote a file")
	}
	if code, _, stderr := runGenerateIn(t, dir); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	want, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "golden", "basic", "ops", "zz_roofline.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(methods)
	// The golden imports its formulas by the repository's path; here they are tmpmod's
	// (gofmt sorts the import block again).
	want, ferr := format.Source([]byte(strings.ReplaceAll(string(want), "github.com/ropgen/ropgen/testdata/golden/basic/formulas", "tmpmod/formulas")))
	if err != nil || ferr != nil || string(got) != string(want) {
		t.Fatalf("generated file differs from the golden (err %v)", err)
	}

	// Regenerating an up-to-date package writes nothing: the mtime stays put.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(methods, old, old); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runGenerateIn(t, dir); code != 0 {
		t.Fatalf("regenerate: exit %d\n%s", code, stderr)
	}
	if st, _ := os.Stat(methods); !st.ModTime().Equal(old) {
		t.Errorf("an unchanged file was rewritten (mtime %v, want %v)", st.ModTime(), old)
	}
	if code, stdout, _ := runGenerateIn(t, dir, "-check"); code != 0 || stdout != "" {
		t.Errorf("-check on current files: exit %d, stdout %q; want 0 and nothing", code, stdout)
	}

	// A hand edit is stale: -check prints a unified diff that would undo it, and writes nothing.
	edited := strings.Replace(string(got), `ComputeRoof() string { return "vector.fp16" }`, `ComputeRoof() string { return "vector.fp32" }`, 1)
	if err := os.WriteFile(methods, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runGenerateIn(t, dir, "-check")
	if code != 1 || !strings.Contains(stdout, "--- "+methods) || !strings.Contains(stdout, `-func (op *AttentionFwd) ComputeRoof() string { return "vector.fp32" }`) ||
		!strings.Contains(stdout, `+func (op *AttentionFwd) ComputeRoof() string { return "vector.fp16" }`) || !strings.Contains(stdout, "@@ ") {
		t.Errorf("-check on an edited file: exit %d, want 1 and a unified diff; stdout:\n%s", code, stdout)
	}
	if now, _ := os.ReadFile(methods); string(now) != edited {
		t.Error("-check modified the file")
	}
}

// A stale generated file that no longer compiles (it names a type that was removed) must
// not stop its own regeneration: the generator leaves generated files out of its type check.
func TestGenerateRecoversFromStaleGeneratedCode(t *testing.T) {
	dir := generateModule(t)
	if code, _, stderr := runGenerateIn(t, dir); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	manifest := filepath.Join(dir, "manifest", "manifest.yaml")
	m, _ := os.ReadFile(manifest)
	i, j := strings.Index(string(m), "LinearFwd:"), strings.Index(string(m), "AttentionFwd:")
	if err := os.WriteFile(manifest, append(m[:i:i], m[j:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	opsFile := filepath.Join(dir, "ops", "ops.go")
	o, _ := os.ReadFile(opsFile)
	k, l := strings.Index(string(o), "// LinearFwd is"), strings.Index(string(o), "// AttentionFwd is")
	if err := os.WriteFile(opsFile, append(o[:k:k], o[l:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runGenerateIn(t, dir); code != 0 {
		t.Fatalf("regenerate after removing LinearFwd: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ops", "zz_roofline.go")); strings.Contains(string(b), "LinearFwd") {
		t.Error("the regenerated file still mentions LinearFwd")
	}
}

func TestGenerateWritesNothingOnFindings(t *testing.T) {
	dir := generateModule(t)
	manifest := filepath.Join(dir, "manifest", "manifest.yaml")
	m, _ := os.ReadFile(manifest)
	bad := strings.Replace(string(m), `flops: "2 * M * N * K"`, `flops: "2 * M * N * K // 2"`, 1)
	if err := os.WriteFile(manifest, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGenerateIn(t, dir)
	if code != 1 || !strings.Contains(stderr, "manifest.yaml:13:27: GemmFwd: roofline.flops: `//` starts a comment in Go") {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and the finding at its position", code, stderr)
	}
	for _, name := range []string{gen.File, gen.LegacyHelpersFile} {
		if _, err := os.Stat(filepath.Join(dir, "ops", name)); err == nil {
			t.Errorf("%s was written although the manifest has findings", name)
		}
	}
}

func TestGenerateRefusesFilesWithoutTheHeader(t *testing.T) {
	dir := generateModule(t)
	methods := filepath.Join(dir, "ops", "zz_roofline.go")
	const mine = "package ops\n\n// hand-written, not generated\n"
	if err := os.WriteFile(methods, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGenerateIn(t, dir)
	if code != 1 || !strings.Contains(stderr, "refusing to overwrite") {
		t.Errorf("exit %d, stderr %q; want 1 and a refusal", code, stderr)
	}
	if b, _ := os.ReadFile(methods); string(b) != mine {
		t.Error("a file without the generated header was overwritten")
	}
	if _, err := os.Stat(filepath.Join(dir, "ops", gen.LegacyHelpersFile)); err == nil {
		t.Error("a second file was written although the run refused")
	}
}

// TestGenerateInlineOnlyNeedsNoFormulas: a package whose entries are all inline needs no
// formulas package, nor that the directory exist (issue 12: "stat …/perf/formulas:
// directory not found").
func TestGenerateInlineOnlyNeedsNoFormulas(t *testing.T) {
	dir := generateModule(t)
	manifest := filepath.Join(dir, "manifest", "manifest.yaml")
	m, _ := os.ReadFile(manifest)
	i, j := strings.Index(string(m), "AttentionFwd:"), strings.Index(string(m), "MoeFwd:")
	if i < 0 || j < i {
		t.Fatal("the basic manifest changed: no AttentionFwd before MoeFwd")
	}
	if err := os.WriteFile(manifest, append(m[:i:i], m[j:]...), 0o644); err != nil { // drop the func-mode entry
		t.Fatal(err)
	}
	opsFile := filepath.Join(dir, "ops", "ops.go")
	o, _ := os.ReadFile(opsFile)
	if err := os.WriteFile(opsFile, []byte(strings.Replace(string(o), "type AttentionFwd struct", "type attentionUnused struct", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "formulas"))
	code, _, stderr := runGenerateIn(t, dir)
	if code != 0 {
		t.Fatalf("inline-only package without a formulas directory: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ops", gen.File)); strings.Contains(string(b), "rooflineFormulas") {
		t.Error("an inline-only package's generated file imports the formulas package")
	}
}

// A missing op package is named as such, before go/packages can fail on its working
// directory and blame the go binary.
func TestGenerateMissingOpsDir(t *testing.T) {
	dir := generateModule(t)
	missing := filepath.Join(dir, "nonexistent")
	for _, extra := range [][]string{nil, {"-check"}} {
		args := append([]string{"generate", "-manifests", filepath.Join(dir, "manifest"), "-ops", missing, "-formulas", filepath.Join(dir, "formulas")}, extra...)
		code, _, stderr := runCmd(args...)
		if code != 1 || !strings.Contains(stderr, "op package "+missing+": ") || strings.Contains(stderr, "bin/go") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the op package named", extra, code, stderr)
		}
	}
}
