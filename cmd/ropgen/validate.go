package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/manifest"
)

// runValidate is `ropgen validate [-json] [-v] [-formulas dir] [paths...]`.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen validate", "[-json] [-v] [-formulas DIR] [-manifests PATHS] [paths...]", `
Validate checks op manifests: YAML well-formedness, each entry against the manifest JSON
schema (manifest/manifest.schema.json; ropgen schema prints it), then dtypes, param types,
shapes, func-mode functions and every workload row against its op's signature and
shape_rules. Paths (arguments, or -manifests as every other command takes them) are manifest
files or directories of *.yaml files; the default is the
manifests of ropgen.yaml, or manifest/ at the module root (the nearest directory above the
working directory holding ropgen.yaml or go.mod). Every finding is printed, sorted, as
file:line:col: Op: field: message. Exit status: 0 clean, 1 findings, 2 bad usage.`, stdout, stderr)
	asJSON := fl.Bool("json", false, "print the findings to stdout as a JSON array (empty when clean) instead of lines on stderr")
	verbose := fl.Bool("v", false, "when clean, also print the ops by family and roofline mode")
	formulas := fl.String("formulas", "", "`DIR` of the formulas package, where func-mode functions must exist (default: ropgen.yaml's formulas, or perf/formulas at the module root)")
	manifests := fl.ManifestsFlag()
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	paths := append(cli.SplitList(*manifests), fl.Args()...)
	cfg, code, ok := fl.Config(len(paths) == 0)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		paths = cli.Manifests("", cfg)
	}
	if *formulas == "" && cfg != nil {
		*formulas = formulasDir(cfg)
	}
	cat, fs := manifest.Config{FormulasDir: *formulas}.Load(paths...)
	if *asJSON {
		if fs == nil {
			fs = diag.Findings{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(fs); err != nil {
			fmt.Fprintln(stderr, "ropgen validate:", err)
			return 2
		}
	} else {
		for _, f := range fs {
			fmt.Fprintln(stderr, f)
		}
	}
	if len(fs) > 0 {
		return 1
	}
	if !*asJSON {
		summary(stdout, cat, *verbose)
	}
	return 0
}

// summary prints one line about a clean catalog and, verbose, its ops by family and mode.
func summary(w io.Writer, cat *manifest.Catalog, verbose bool) {
	type counts struct{ ops, implemented, inline, fn int }
	byFamily := map[string]*counts{}
	var total counts
	for _, op := range cat.Ops {
		c := byFamily[op.Family.Value]
		if c == nil {
			c = &counts{}
			byFamily[op.Family.Value] = c
		}
		for _, c := range []*counts{c, &total} {
			c.ops++
			if op.Implemented() {
				c.implemented++
			}
			if op.Roofline.Func != nil {
				c.fn++
			} else {
				c.inline++
			}
		}
	}
	fmt.Fprintf(w, "%d ops (%d implemented, %d spec-only) in %d files\n", total.ops, total.implemented, total.ops-total.implemented, len(cat.Files))
	if !verbose {
		return
	}
	families := make([]string, 0, len(byFamily))
	for f := range byFamily {
		families = append(families, f)
	}
	slices.Sort(families)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "family\tops\timplemented\tspec-only\tinline\tfunc")
	for _, f := range families {
		c := byFamily[f]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", f, c.ops, c.implemented, c.ops-c.implemented, c.inline, c.fn)
	}
	tw.Flush()
}

// formulasDir is the formulas package the configuration names, or where the default one
// would be: a func-mode entry then fails with the path it looked in.
func formulasDir(cfg *config.Config) string {
	if cfg.Formulas != "" {
		return config.Rel(cfg.Formulas)
	}
	return config.Rel(filepath.Join(cfg.Root, config.DefaultFormulas))
}
