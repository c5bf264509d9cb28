package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/gen"
	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/manifest"
)

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen generate", "[-check] [-v] [-manifests PATHS] [-ops DIR] [-formulas DIR]", `
Generate validates the manifests, checks every inline formula (names, layers, types) and the
op types' fields, and writes `+gen.File+` into each op package of ropgen.yaml (or ops/ from
manifest/ without one), atomically: a temporary file, fsync, rename; concurrent runs on one
package are serialized. Writes nothing when anything is wrong; leaves unchanged files
untouched. -manifests and -ops override the configuration (one package).`, stdout, stderr)
	check := fl.Bool("check", false, "write nothing; print a unified diff of what would change and exit 1 when stale")
	verbose := fl.Bool("v", false, "list the ops generated and the entries skipped, with the reason")
	manifests := fl.String("manifests", "", "manifest `PATHS`, comma-separated files or directories (default: each ropgen.yaml package's manifests, or manifest/ at the module root)")
	opsDir := fl.String("ops", "", "op package `DIR` to generate into (default: ropgen.yaml's packages, or ops/ at the module root)")
	formulasDir := fl.String("formulas", "", "func-mode formulas package `DIR` (default: ropgen.yaml's formulas, or perf/formulas/ at the module root)")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	// The packages to generate: ropgen.yaml's (or today's defaults: ops/ from manifest/),
	// so that `ropgen generate -check` with no flags does what go generate does. -manifests
	// and -ops override: one package.
	cfg, err := config.Load()
	if err == nil {
		err = cli.UseDTypes(cfg)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ropgen generate:", err)
		return 2
	}
	pkgs := cfg.Packages
	if *manifests != "" || *opsDir != "" {
		p := cfg.Packages[0]
		if *opsDir != "" {
			p.Dir = *opsDir
		}
		if *manifests != "" {
			p.Manifests = strings.Split(*manifests, ",")
		}
		pkgs = []config.Package{p}
	}
	if *formulasDir == "" && cfg.Formulas != "" {
		*formulasDir = config.Rel(cfg.Formulas)
	}
	exit := 0
	for _, p := range pkgs {
		exit = max(exit, generatePackage(p, *formulasDir, *check, *verbose, stdout, stderr))
	}
	return exit
}

// generatePackage generates one op package from its manifests. Unless it only checks, it
// holds the package directory's lock from loading the package to writing its file, so two
// runs on one package are serialized rather than interleaved.
func generatePackage(p config.Package, formulasDir string, check, verbose bool, stdout, stderr io.Writer) int {
	opsDir := config.Rel(p.Dir)
	manifests := config.RelAll(p.Manifests)
	// The op package must be a directory before anything is loaded: go/packages would
	// otherwise fail on its working directory and blame the go binary.
	if st, err := os.Stat(opsDir); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		fmt.Fprintf(stderr, "ropgen generate: op package %s: %v\n", opsDir, err)
		return 1
	}
	if !check {
		unlock, err := lockDir(opsDir)
		if err != nil {
			fmt.Fprintln(stderr, "ropgen generate:", err)
			return 1
		}
		defer unlock()
	}
	// What the generated file holds before generation: a run that finds it changed when it
	// is about to replace it knows another writer came in between.
	before := map[string][]byte{}
	if old, err := os.ReadFile(filepath.Join(opsDir, gen.File)); err == nil {
		before[gen.File] = old
	}
	cat, fs := manifest.Config{FormulasDir: formulasDir}.Load(manifests...)
	if len(fs) > 0 {
		printFindings(stderr, fs)
		return 1
	}
	// Absolute directories: LoadBinding resolves the formulas package relative to the op
	// package, which two relative paths from a subdirectory do not allow.
	absOps, err := filepath.Abs(opsDir)
	absFormulas := formulasDir
	if !slices.ContainsFunc(cat.Ops, func(op *manifest.Op) bool { return op.Implemented() && op.Roofline != nil && op.Roofline.Func != nil }) {
		absFormulas = "" // inline only: no formulas package is needed, nor need it exist
	}
	if err == nil && absFormulas != "" {
		absFormulas, err = filepath.Abs(formulasDir)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ropgen generate:", err)
		return 1
	}
	binding, err := gen.LoadBinding(absOps, absFormulas)
	if err != nil {
		fmt.Fprintln(stderr, "ropgen generate: loading the op packages:", err)
		return 1
	}
	out, fs := gen.Generate(gen.Config{Catalog: cat, Binding: binding})
	if len(fs) > 0 {
		printFindings(stderr, fs)
		return 1
	}
	if verbose {
		for _, name := range out.Generated {
			fmt.Fprintln(stdout, "generated", name)
		}
		for _, s := range out.Skipped {
			fmt.Fprintln(stdout, "skipped", s)
		}
	}
	changed, err := syncFiles(opsDir, out.Files, before, check, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "ropgen generate:", err)
		return 1
	}
	if check && changed {
		fmt.Fprintln(stderr, "ropgen generate: generated files are stale; run go generate ./...")
		return 1
	}
	return 0
}

// beforeCommit runs between writing a generated file's temporary copy and renaming it into
// place: a test hook (the signal tests stop the process there).
var beforeCommit = func() {}

// syncFiles brings the generated files in dir up to date. With check it writes nothing and
// prints a unified diff of each stale file. It refuses to touch a file that lacks the
// generated header, checks every file before writing any, and replaces each one atomically
// (internal/output: temporary file, fsync, rename; the mode kept; a symbolic link, a
// non-regular or read-only file refused; no temporary file left after SIGINT, SIGTERM or
// SIGHUP). A file that is not as before (its content when generation began) is an error,
// not overwritten: another writer that did not take the lock came in between. Last, the
// runtime's file of the two-file layout (gen.LegacyHelpersFile) is removed: it would
// redeclare the runtime that the one file holds.
func syncFiles(dir string, files, before map[string][]byte, check bool, stdout io.Writer) (changed bool, err error) {
	var todo []string
	readGenerated := func(path string) ([]byte, bool, error) {
		old, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		case !bytes.HasPrefix(old, []byte(gen.Header)):
			return nil, true, fmt.Errorf("refusing to overwrite %s: it does not start with %q", path, strings.TrimSpace(gen.Header))
		}
		return old, true, nil
	}
	for _, name := range sortedNames(files) {
		path := filepath.Join(dir, name)
		old, _, err := readGenerated(path)
		if err != nil {
			return false, err
		}
		if bytes.Equal(old, files[name]) {
			continue
		}
		if !check {
			if err := output.Check(path); err != nil {
				return false, err
			}
		}
		todo = append(todo, name)
		if check {
			fmt.Fprint(stdout, unifiedDiff(path, string(old), string(files[name])))
		}
	}
	legacy := filepath.Join(dir, gen.LegacyHelpersFile)
	legacyOld, legacyExists, legacyErr := readGenerated(legacy)
	removeLegacy := legacyExists && legacyErr == nil && legacyOld != nil
	if check {
		if removeLegacy {
			fmt.Fprint(stdout, unifiedDiff(legacy, string(legacyOld), ""))
		}
		return len(todo) > 0 || removeLegacy, nil
	}
	for _, name := range todo {
		if err := commitGenerated(filepath.Join(dir, name), before[name], files[name]); err != nil {
			return true, err
		}
	}
	if removeLegacy {
		if err := os.Remove(legacy); err != nil {
			return true, err
		}
	}
	return len(todo) > 0 || removeLegacy, nil
}

// commitGenerated replaces path, whose content was old when generation began (nil: absent),
// with data.
func commitGenerated(path string, old, data []byte) error {
	f, err := output.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	beforeCommit()
	now, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		now, err = nil, nil
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) {
		return fmt.Errorf("%s changed while it was generated (another ropgen generate?); rerun", path)
	}
	return f.Commit()
}

func printFindings(w io.Writer, fs diag.Findings) {
	for _, f := range fs {
		fmt.Fprintln(w, f)
	}
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
