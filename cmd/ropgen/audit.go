package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/audit"
	"github.com/ropgen/ropgen/perf/record"
)

// runAudit is `ropgen audit`: the bytes audit of docs/model.md §9 over benchmark records and a file
// of measured traffic. It only reads files; measuring is done by ncu on a GPU machine or by
// roprun -cachegrind under valgrind.
func runAudit(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen audit", "-records FILE (-ncu FILE | -cachegrind DIR) [-eps E] [-reads] [-manifests PATHS] [-work FILE] [-json]", `
Audit compares each record's formula bytes with measured traffic, one rule for every
measurement (docs/audit.md): PASS within formula×(1±ε); FAIL below (an overcount);
above, FAIL when the formula counts less than its tensors' stored footprint (an
undercount), else WARN (the kernel's own extra traffic, with the factor); ERROR no usable
measurement. The footprint comes from the manifests (-manifests, or ropgen.yaml's).
Exits 1 on any FAIL or ERROR. See docs/audit.md.`, stdout, stderr)
	records := fl.String("records", "", "benchmark records `FILE` (Go benchmark format or JSON lines): the formula bytes")
	ncu := fl.String("ncu", "", "Nsight Compute CSV `FILE` (ncu --csv, page details or raw): measured DRAM bytes")
	sim := fl.String("cachegrind", "", "cache simulation `DIR` written by roprun -cachegrind: measured LL-miss bytes")
	eps := fl.Float64("eps", audit.DefaultEps, "tolerance ε, both ways: PASS when measured is within formula × (1 ± ε)")
	reads := fl.Bool("reads", false, "audit the read side only: measured reads against formula bytes minus output bytes")
	manifests := fl.ManifestsFlag()
	work := fl.String("work", "", "the work list `FILE` (NAME eval -json) the records were measured from: every tensor's shape, so the footprint of an arbitrary-rank output is known (default with -cachegrind: DIR/work.jsonl when roprun wrote it)")
	asJSON := fl.Bool("json", false, "print the rows as JSON")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	switch {
	case *records == "":
		return fl.Fail("-records is required")
	case (*ncu == "") == (*sim == ""):
		return fl.Fail("give exactly one of -ncu and -cachegrind")
	case !(*eps >= 0 && *eps < 1):
		return fl.Fail("-eps %v is not in [0, 1)", *eps)
	}

	recs, findings := record.ReadFiles(*records)
	var measured []audit.Measured
	var fs diag.Findings
	if *ncu != "" {
		f, err := os.Open(*ncu)
		if err != nil {
			fmt.Fprintf(stderr, "ropgen audit: %v\n", err)
			return 1
		}
		measured, fs = audit.ParseNCU(f, *ncu)
		f.Close()
	} else {
		measured, fs = audit.ReadSimDir(*sim)
	}
	findings = append(findings, fs...)
	opt := audit.Options{Eps: *eps, Reads: *reads}
	// The manifests give the tensors' footprint, which tells an undercount from a kernel's
	// own traffic, and (-reads) the outputs' sizes. Outside a module, and without
	// -manifests, the footprint is unknown and the rows say so.
	cfg, code, ok := fl.Config(*reads && *manifests == "")
	if !ok {
		return code
	}
	var shapes audit.WorkShapes
	if *work == "" && *sim != "" {
		// roprun writes the work list of its cases beside the index.
		if w := filepath.Join(*sim, audit.WorkFile); fileExists(w) {
			*work = w
		}
	}
	if *work != "" {
		var wfs diag.Findings
		shapes, wfs = audit.ReadWorkShapes(*work)
		findings = append(findings, wfs...)
	}
	if *manifests != "" || cfg != nil {
		cat, mfs := manifest.Load(cli.Manifests(*manifests, cfg)...)
		findings = append(findings, mfs...)
		opt.Footprint = audit.ManifestFootprint(cat, shapes)
		if *reads {
			opt.OutputBytes = audit.ManifestOutputBytes(cat)
		}
	}
	for _, f := range findings.Sort() {
		fmt.Fprintln(stderr, f)
	}
	if len(recs) == 0 {
		// As report says: an audit of nothing is no pass.
		fmt.Fprintf(stderr, "ropgen audit: no records to audit in %s\n", *records)
		return 1
	}

	res := audit.Audit(recs, measured, opt)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "ropgen audit: %v\n", err)
			return 1
		}
	} else {
		writeAuditTable(stdout, res)
	}
	for _, m := range res.Unclaimed {
		fmt.Fprintf(stderr, "%s: note: measured call %q (%d kernel launches) matches no record\n", m.Pos, m.Name, m.Launches)
	}
	if len(findings) > 0 || res.Failed() {
		return 1
	}
	return 0
}

func writeAuditTable(w io.Writer, res audit.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tworkload\tdtype\tside\tformula B\tmeasured B\tratio\tverdict\t")
	count := map[audit.Verdict]int{}
	var notes []string
	for _, r := range res.Rows {
		count[r.Verdict]++
		ratio, measured := "-", "-"
		if r.Verdict != audit.Error {
			ratio, measured = fmt.Sprintf("%.4f", r.Ratio), fmt.Sprint(r.Measured)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", r.Op, r.Workload, r.DType, r.Side, r.Formula, measured, ratio, r.Verdict)
		if r.Note != "" {
			notes = append(notes, fmt.Sprintf("%s: %s %s %s: %s", r.Record, r.Op, r.Workload, r.DType, r.Note))
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "%d rows: %d PASS, %d WARN, %d FAIL, %d ERROR\n",
		len(res.Rows), count[audit.Pass], count[audit.Warn], count[audit.Fail], count[audit.Error])
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
