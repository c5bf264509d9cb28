package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
)

// runValidate is `ropgen validate [-json] [-v] [-formulas dir] [paths...]`.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	asJSON := fl.Bool("json", false, "print the findings to stdout as a JSON array (empty when clean) instead of lines on stderr")
	verbose := fl.Bool("v", false, "when clean, also print the ops by family and roofline mode")
	formulas := fl.String("formulas", "", "directory of package perf/formulas, where func-mode functions must exist\n(default: perf/formulas under the module root, found from the working directory up to go.mod)")
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), `usage: ropgen validate [-json] [-v] [-formulas dir] [paths...]

Validate checks op manifests: YAML well-formedness, each entry against the manifest JSON
schema (manifest/manifest.schema.json), then dtypes, param types, shapes, func-mode functions
and every workload row against its op's signature and shape_rules. Paths are manifest files
or directories of *.yaml files; the default is manifest/. Every finding is printed, sorted,
as file:line:col: Op: field: message. Exit status: 0 clean, 1 findings, 2 bad usage.

flags:
`)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	paths := fl.Args()
	if len(paths) == 0 {
		paths = []string{"manifest"}
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
