package main

import (
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
	"github.com/ropgen/ropgen/internal/genfiles"
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
		unlock, err := genfiles.Lock(opsDir)
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
	changed, err := genfiles.Sync(opsDir, out.Files, before, check, stdout)
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

func printFindings(w io.Writer, fs diag.Findings) {
	for _, f := range fs {
		fmt.Fprintln(w, f)
	}
}
