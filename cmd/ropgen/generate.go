package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/gen"
	"github.com/ropgen/ropgen/manifest"
)

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("generate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	check := fl.Bool("check", false, "write nothing; print a unified diff of what would change and exit 1 when stale")
	verbose := fl.Bool("v", false, "list the ops generated and the entries skipped, with the reason")
	manifests := fl.String("manifests", "", "manifest `PATHS`, comma-separated files or directories (default: each ropgen.yaml package's manifests, or manifest/ at the module root)")
	opsDir := fl.String("ops", "", "op package `DIR` to generate into (default: ropgen.yaml's packages, or ops/ at the module root)")
	formulasDir := fl.String("formulas", "", "func-mode formulas package `DIR` (default: ropgen.yaml's formulas, or perf/formulas/ at the module root)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: ropgen generate [-check] [-v] [-manifests DIR] [-ops DIR] [-formulas DIR]")
		fmt.Fprintln(stderr, "\nValidates the manifests, checks every inline formula (names, layers, types) and the op")
		fmt.Fprintln(stderr, "types' fields, and writes "+gen.MethodsFile+" and "+gen.HelpersFile+" into the op package.")
		fmt.Fprintln(stderr, "Writes nothing when anything is wrong; leaves unchanged files untouched.\n\nflags:")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return usageExit(err)
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "ropgen generate: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	// The packages to generate: ropgen.yaml's (or today's defaults: ops/ from manifest/),
	// so that `ropgen generate -check` with no flags does what go generate does. -manifests
	// and -ops override: one package.
	cfg, err := config.Load()
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

// generatePackage generates one op package from its manifests.
func generatePackage(p config.Package, formulasDir string, check, verbose bool, stdout, stderr io.Writer) int {
	opsDir := config.Rel(p.Dir)
	manifests := config.RelAll(p.Manifests)
	cat, fs := manifest.Config{FormulasDir: formulasDir}.Load(manifests...)
	if len(fs) > 0 {
		printFindings(stderr, fs)
		return 1
	}
	// Absolute directories: LoadBinding resolves the formulas package relative to the op
	// package, which two relative paths from a subdirectory do not allow.
	absOps, err := filepath.Abs(opsDir)
	absFormulas := formulasDir
	if err == nil && formulasDir != "" {
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
	changed, err := syncFiles(opsDir, out.Files, check, stdout)
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

// syncFiles brings the generated files in dir up to date. With check it writes nothing and
// prints a unified diff of each stale file. It refuses to touch a file that lacks the
// generated header, checks every file before writing any, and replaces each one atomically.
func syncFiles(dir string, files map[string][]byte, check bool, stdout io.Writer) (changed bool, err error) {
	var stale []string
	for _, name := range sortedNames(files) {
		path := filepath.Join(dir, name)
		old, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			old = nil
		case err != nil:
			return false, err
		case !bytes.HasPrefix(old, []byte(gen.Header)):
			return false, fmt.Errorf("refusing to overwrite %s: it does not start with %q", path, strings.TrimSpace(gen.Header))
		}
		if bytes.Equal(old, files[name]) {
			continue
		}
		stale = append(stale, name)
		if check {
			fmt.Fprint(stdout, unifiedDiff(path, string(old), string(files[name])))
		}
	}
	if check {
		return len(stale) > 0, nil
	}
	for _, name := range stale {
		if err := writeAtomic(filepath.Join(dir, name), files[name]); err != nil {
			return true, err
		}
	}
	return len(stale) > 0, nil
}

// writeAtomic writes data to a temporary file in path's directory and renames it over path,
// so a reader never sees a half-written file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func printFindings(w io.Writer, fs diag.Findings) {
	for _, f := range fs {
		fmt.Fprintln(w, f)
	}
}

func usageExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
