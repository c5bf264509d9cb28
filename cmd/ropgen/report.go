package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/internal/vcs"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/audit"
	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/render"
	"github.com/ropgen/ropgen/perf/report"
)

func runReport(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen report", "[-profile NAME|FILE] [-basis effective|theoretical] [-price-drifted] [-json|-csv|-summary] [-o FILE] [-svg FILE] [-html FILE] [-md FILE] [-audit FILE] [-base OLD[,OLD]] records...\n-check -profile FILE [records...]", fmt.Sprintf(`
Prices benchmark records (Go benchmark format or JSON lines) against a device profile:
memory, compute and SOL time, efficiency, bound and verdict per row (docs/report.md).
Exit 1 when a row implies a rate above a theoretical ceiling (a formula error), when a
record cannot be read, or when no profile matches a device (its SOL cells are blank).
Exit 4, when nothing else failed, when rows were left unpriced (no SOL time: zero bytes, or
a ceiling the profile does not have): the table counts them and their notes say why.
With -check nothing is priced: exit 3 when the profile is from another boot of this machine or a
drift reference in the records is off its copy ceiling (recalibrate), else 0.
The rows of a run whose drift reference is off the profile's copy ceiling (by more than the
spreads allow, and never more than %.0f%%) are priced under drift: a row with a reference timed
in its own moments is judged against it, any other row's verdict must hold wherever between
the profile and its run's references the machine was (else inconclusive), unless
-price-drifted, which judges them all against the profile; a reference timed on another
device than the profile's is no drift check, and says so.
Repeated records of one row (ropbench run -count N) are one row: the median time, with the spread
(of records timed with same-time references, those with the most samples).
With -base, the table compares each row against the base run: a row is faster or slower when the
Mann-Whitney U test gives p < %g, the medians differ by %.0f%% or more and by more than %g times
the two runs' drift (how far rows scatter between them), and the two runs' records do not overlap
(one run's records are taken back to back, so they are no independent draws). For one kernel,
ropbench ab is sharper.`,
		100*report.DriftCap, render.DefaultCompare.Alpha, 100*render.DefaultCompare.MinEffect, render.DefaultCompare.NoiseZ), stdout, stderr)
	profile := fl.String("profile", "", "price every record against the profile `NAME|FILE`: a builtin name, host (the calibrated host profile out/host.yaml of this module, as make run keeps it) or a .yaml file (default: the builtin profile matching each record's device)")
	basis := fl.String("basis", string(profiles.Effective), "ceilings to price against: effective (measured) or theoretical (datasheet)")
	asJSON := fl.Bool("json", false, "write the rows (with -base, the compared rows) as one JSON document instead of a table")
	asCSV := fl.Bool("csv", false, "write the rows (with -base, the compared rows) as CSV instead of a table")
	svgFile := fl.String("svg", "", "also write a log-log roofline chart to `FILE`")
	htmlFile := fl.String("html", "", "also write a self-contained HTML report (table, chart, bandwidth view, run metadata) to `FILE`")
	mdFile := fl.String("md", "", "also write a short markdown summary for a pull-request comment to `FILE`")
	withDiff := fl.Bool("diff", false, "with -md: end the summary with the history's diff of its latest run against the one before of its device (ropgen history diff's table; the history is -db's)")
	withHistory := fl.Bool("history", false, fmt.Sprintf("judge the line over the runs the history holds too: a row whose judged efficiency in this run or in the last %d runs of its device (priced against quiet profiles; -db's history) falls on both sides of the at-ceiling line reads \"at the line\" (docs/report.md, \"How far a verdict repeats\"); no history yet is none", history.PastRuns))
	db := dbFlag(fl)
	baseFiles := fl.String("base", "", "compare against the records in `FILE[,FILE]`: per row the time change, its Mann-Whitney U p-value and the efficiency change")
	summary := fl.Bool("summary", false, "print the short summary (ceilings with spread; per op the best row; verdict counts; drift) on standard output; the table, JSON or CSV goes to -o FILE when given")
	outFile := fl.String("o", "", "write the table (or JSON, CSV, comparison) to `FILE` instead of standard output")
	auditFile := fl.String("audit", "", "mark each row whose formula the bytes audit judged (a FAIL makes it a formula error, never at ceiling), and draw its achieved intensity (flops / measured bytes) on the -svg and -html chart; `FILE` is ropgen audit -json output")
	manifests := fl.ManifestsFlag()
	priceDrifted := fl.Bool("price-drifted", false, "price the rows of a run whose copy reference drifted off the profile anyway, each marked \"priced under drift\" (default: such rows are unpriced, with the reason)")
	check := fl.Bool("check", false, "only check that the -profile is current: measured on this boot, and no drift reference in the records off its copy ceiling; exit 3 when not")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if *check {
		return runCheck(*profile, fl.Args(), stdout, stderr)
	}
	o := &reportRun{
		args: args, files: fl.Args(), profile: *profile, basis: *basis, manifests: *manifests,
		asJSON: *asJSON, asCSV: *asCSV, summary: *summary, priceDrifted: *priceDrifted,
		svgFile: *svgFile, htmlFile: *htmlFile, mdFile: *mdFile, outFile: *outFile, auditFile: *auditFile,
		withDiff: *withDiff, withHistory: *withHistory, db: *db,
		stdout: stdout, stderr: stderr,
	}
	if *baseFiles != "" {
		o.base = strings.Split(*baseFiles, ",")
	}
	if code := o.checkUsage(); code != 0 {
		return code
	}
	// The rows of a large run are most of the heap: let the collector keep the heap near
	// what they need rather than twice it (docs/report.md states the memory per record).
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(reportMemoryLimit))
	}
	return o.run()
}

// reportMemoryLimit is the soft memory limit of a report: above what the rows of
// record.MaxRecords records and the names of record.MaxInputBytes of files need, so that the
// collector works harder only near it.
const reportMemoryLimit = 640 << 20

// reportRun is one ropgen report: its flags, and the exit status its steps raise to 1.
type reportRun struct {
	args, files, base                    []string
	profile, basis, manifests            string
	asJSON, asCSV, summary, priceDrifted bool
	// withDiff appends the history's latest diff, of the database db, to the -md summary.
	withDiff bool
	// withHistory judges the line over the history's runs too (report.Pricer.Past).
	withHistory                                   bool
	db                                            string
	svgFile, htmlFile, mdFile, outFile, auditFile string
	auditRes                                      *audit.Result // -audit's, once read
	stdout, stderr                                io.Writer

	inputs     []string // every file the report reads: no output may replace one
	fixed      *profiles.Profile
	candidates []*profiles.Profile
	basisOf    profiles.Basis
	exit       int
}

// fail reports an error of one step (its prefix, as "-svg: ") and sets the exit status to 1.
func (o *reportRun) fail(prefix string, err error) {
	fmt.Fprintf(o.stderr, "ropgen report: %s%v\n", prefix, err)
	o.exit = 1
}

// checkUsage refuses, before anything is read or printed, flags that contradict each other and
// an output that names another output's file or one of the inputs: an output must never
// replace a record file it was made from. It returns 2 when it refuses, else 0.
func (o *reportRun) checkUsage() int {
	usage := func(format string, args ...any) int {
		fmt.Fprintf(o.stderr, "ropgen report: "+format+"\n", args...)
		return 2
	}
	switch {
	case len(o.files) == 0:
		return usage("no record files given")
	case o.asJSON && o.asCSV:
		return usage("-json and -csv are exclusive")
	case o.withDiff && o.mdFile == "":
		return usage("-diff adds the history's diff to the -md summary: give -md FILE")
	case o.db != "" && !o.withDiff && !o.withHistory:
		return usage("-db names the history of -diff or -history: give one")
	}
	o.inputs = append(slices.Clone(o.files), o.base...)
	if o.auditFile != "" {
		o.inputs = append(o.inputs, o.auditFile)
	}
	outs := []struct{ flag, file string }{{"svg", o.svgFile}, {"html", o.htmlFile}, {"md", o.mdFile}, {"o", o.outFile}}
	for i, out := range outs {
		for _, p := range outs[:i] {
			if out.file != "" && out.file == p.file {
				return usage("-%s and -%s name the same file %s", p.flag, out.flag, out.file)
			}
		}
	}
	for _, out := range outs {
		if out.file == "" {
			continue
		}
		if err := output.Check(out.file, o.inputs...); err != nil {
			return usage("-%s: %v", out.flag, err)
		}
	}
	return 0
}

// run prices the records and writes every output asked for; the physics check's breaches are
// listed last, so they are what a reader sees.
func (o *reportRun) run() int {
	if code := o.openProfiles(); code != 0 {
		return code
	}
	pricer := o.pricer()
	recs, ok := o.read(o.files, "no records to price")
	if !ok {
		return 1
	}
	if o.withHistory {
		var err error
		if pricer.Past, err = o.readPast(recs); err != nil {
			o.fail("-history: ", err)
			return 1
		}
	}
	// Repeated records of one row are one row: its median time and its samples.
	sampled, rows := report.PriceRun(pricer, recs)
	if o.auditFile != "" {
		res, fs := audit.ReadResult(o.auditFile)
		if len(fs) > 0 {
			printFindings(o.stderr, fs)
			o.exit = 1
		}
		o.auditRes = &res
		c := markAudited(rows, res)
		fmt.Fprintf(o.stderr, "ropgen report: -audit: %d of %d rows audited: %d PASS, %d WARN, %d FAIL (a row whose formula failed reads formula error)\n",
			c[audit.Pass]+c[audit.Warn]+c[audit.Fail], len(rows), c[audit.Pass], c[audit.Warn], c[audit.Fail])
		if c[audit.Fail] > 0 {
			o.exit = 1
		}
	}
	var cmp *render.Comparison
	if o.base != nil {
		if cmp, ok = o.compare(sampled, rows); !ok {
			return 1
		}
	}
	o.checkDevices(pricer)
	if err := o.writeTable(pricer, rows, cmp); err != nil {
		o.fail("", err)
		return 1
	}
	meta := render.Meta{Command: commandLine(o.args), Commit: commitOf(o.files), Date: time.Now(), Files: o.files, BaseFiles: o.base, AuditFile: o.auditFile}
	svg, chartErr := o.writeChart(pricer, rows, cmp, &meta)
	o.writeDocuments(&render.Document{Meta: meta, Pricer: pricer, Rows: rows, Sampled: sampled, Comparison: cmp}, svg, chartErr)
	for _, d := range pricer.Drifts() {
		if d.Off {
			fmt.Fprintf(o.stderr, "%s: warning: %s\n", d.Rec.Pos, d)
		}
	}
	// The physics check (docs/model.md §6): a rate above a theoretical ceiling is impossible, so
	// the record's formula or roof key is wrong.
	for _, r := range report.Breaches(rows) {
		fmt.Fprintf(o.stderr, "%s: %s/%s/%s: %s\n", r.Rec.Pos, r.Rec.Op, r.Rec.Workload, r.Rec.DType, r.Note)
		o.exit = 1
	}
	if n := render.Counts(rows).Unpriced; n > 0 && o.exit == 0 {
		fmt.Fprintf(o.stderr, "ropgen report: %d of %d rows unpriced (their notes say why): exit 4\n", n, len(rows))
		o.exit = 4
	}
	return o.exit
}

// openProfiles opens what prices the records: -profile for every record, else the builtin
// profile each record's device matches. It returns 2 when it cannot, else 0.
func (o *reportRun) openProfiles() int {
	var err error
	if o.basisOf, err = profiles.ParseBasis(o.basis); err == nil {
		if o.profile != "" {
			o.fixed, err = openProfile(o.profile)
		} else {
			o.candidates, err = profiles.Builtin()
		}
	}
	if err != nil {
		fmt.Fprintln(o.stderr, "ropgen report:", err)
		return 2
	}
	return 0
}

// readPast returns the rows' past in the history (history.PastOf) for report.Pricer.Past,
// read once per device; a run already added with these very records is not its own past.
// Nil when the history was not created yet: the first run has no past.
func (o *reportRun) readPast(recs []record.Record) (func(string, report.RowKey) (report.Past, bool), error) {
	s, err := openPast(o.db)
	if err != nil || s == nil {
		return nil, err
	}
	defer s.Close()
	digest, err := history.Digest(recs)
	if err != nil {
		return nil, err
	}
	byDevice := map[string]map[report.RowKey]report.Past{}
	for _, r := range recs {
		if _, ok := byDevice[r.Device]; ok {
			continue
		}
		if byDevice[r.Device], err = s.PastOf(context.Background(), r.Device, digest, history.PastRuns); err != nil {
			return nil, err
		}
	}
	return func(device string, key report.RowKey) (report.Past, bool) {
		p, ok := byDevice[device][key]
		return p, ok
	}, nil
}

// pricer returns a pricer over the opened profiles: one per run, since a run's references
// (its floor and drift) are its own.
func (o *reportRun) pricer() *report.Pricer {
	p := report.NewPricer(o.fixed, o.candidates, o.basisOf)
	p.PriceDrifted = o.priceDrifted
	return p
}

// read reads record files; a file's findings are printed and set the exit status, and no
// record at all is an error (empty, the message that says so).
func (o *reportRun) read(files []string, empty string) ([]record.Record, bool) {
	recs, fs := record.ReadFiles(files...)
	if len(fs) > 0 {
		printFindings(o.stderr, fs)
		o.exit = 1
	}
	if len(recs) == 0 {
		fmt.Fprintln(o.stderr, "ropgen report:", empty)
		return nil, false
	}
	return recs, true
}

// compare prices the -base run and compares the new run's rows against it.
func (o *reportRun) compare(sampled []report.Sampled, rows []report.Row) (*render.Comparison, bool) {
	old, ok := o.read(o.base, "-base: no records to compare against")
	if !ok {
		return nil, false
	}
	// The base's references go to a pricer of their own: the floor and drift of the new run
	// are the new run's.
	oldSampled, oldRows := report.PriceRun(o.pricer(), old)
	return render.Compare(oldSampled, sampled, oldRows, rows, render.DefaultCompare), true
}

// checkDevices says which devices no profile priced (an error), and which -profile prices
// though it does not match them: allowed (pricing one device's records on another's ceilings
// is a what-if), but never silently.
func (o *reportRun) checkDevices(pricer *report.Pricer) {
	for _, m := range pricer.Devices() {
		switch {
		case m.Err != nil:
			fmt.Fprintf(o.stderr, "ropgen report: %s.\n", render.NoProfileHelp(m.Device, m.Err))
			o.exit = 1
		case o.fixed != nil && !o.fixed.Matches(m.Device):
			fmt.Fprintf(o.stderr, "ropgen report: note: device %q does not match profile %s; priced against it as -profile asks\n", m.Device, o.fixed.Name)
		}
	}
}

// writeTable writes the table, JSON, CSV or comparison to -o or standard output, and the
// summary to standard output. Every output is streamed to its file (or standard output),
// never built whole in memory first: a report of a million rows is hundreds of megabytes of
// text.
func (o *reportRun) writeTable(pricer *report.Pricer, rows []report.Row, cmp *render.Comparison) error {
	write := func(w io.Writer) error {
		switch {
		case cmp != nil && o.asJSON:
			return render.WriteCompareJSON(w, pricer.Basis(), cmp)
		case cmp != nil && o.asCSV:
			return render.WriteCompareCSV(w, cmp)
		case cmp != nil:
			return render.WriteCompare(w, cmp)
		case o.asJSON:
			return render.WriteJSON(w, pricer, rows)
		case o.asCSV:
			return render.WriteCSV(w, rows)
		}
		return render.WriteTable(w, pricer, rows)
	}
	var err error
	switch {
	case o.outFile != "":
		err = writeOutput(o.outFile, o.inputs, write)
	case !o.summary:
		err = write(o.stdout)
	}
	if err == nil && o.summary {
		err = render.WriteSummary(o.stdout, pricer, rows)
	}
	return err
}

// writeChart draws the chart once for -svg and -html, writes -svg, and returns the chart
// (nil with the reason when it cannot be drawn) for the HTML page.
func (o *reportRun) writeChart(pricer *report.Pricer, rows []report.Row, cmp *render.Comparison, meta *render.Meta) ([]byte, error) {
	if o.svgFile == "" && o.htmlFile == "" {
		return nil, nil
	}
	chart := &render.Chart{Basis: pricer.Basis(), Rows: rows, Meta: meta, Comparison: cmp, Family: opFamilies(o.manifests, o.stderr)}
	if o.auditRes != nil {
		var skipped []string
		chart.Traffic, skipped = trafficOf(*o.auditRes)
		if len(skipped) > 0 {
			fmt.Fprintf(o.stderr, "ropgen report: note: -audit: no total traffic for %s: not drawn\n", strings.Join(skipped, "; "))
		}
	}
	var svg bytes.Buffer
	prof, err := chartProfile(pricer)
	if err == nil {
		chart.Profile = prof
		_, err = render.WriteSVG(&svg, chart)
	}
	if o.svgFile != "" {
		werr := err
		if werr == nil {
			werr = output.WriteFile(o.svgFile, svg.Bytes(), o.inputs...)
		}
		if werr != nil {
			o.fail("-svg: ", werr)
		}
	}
	if err != nil {
		return nil, err
	}
	return svg.Bytes(), nil
}

// writeDocuments writes -html (with the chart, or why there is none) and -md.
func (o *reportRun) writeDocuments(doc *render.Document, svg []byte, chartErr error) {
	if o.htmlFile != "" {
		if chartErr != nil {
			doc.ChartNote = chartErr.Error()
		} else {
			doc.Chart = svg
		}
		if err := writeOutput(o.htmlFile, o.inputs, func(w io.Writer) error { return render.WriteHTML(w, doc) }); err != nil {
			o.fail("-html: ", err)
		}
	}
	if o.mdFile != "" {
		var md bytes.Buffer
		err := render.WriteMarkdown(&md, doc)
		if err == nil && o.withDiff {
			err = markdownHistoryDiff(&md, o.db)
		}
		if err == nil {
			err = output.WriteFile(o.mdFile, md.Bytes(), o.inputs...)
		}
		if err != nil {
			o.fail("-md: ", err)
		}
	}
}

// HostProfile is the -profile name of the calibrated host profile, and HostProfileFile
// where it is, under the module root (the directory of ropgen.yaml or go.mod): where make
// run keeps it (ropgen calibrate -o out/host.yaml).
const (
	HostProfile     = "host"
	HostProfileFile = "out/host.yaml"
)

// openProfile opens the profile -profile names: HostProfile is the module's calibrated host
// profile (HostProfileFile under the root found from the working directory); anything else
// is profiles.Open's (a builtin name or a file).
func openProfile(s string) (*profiles.Profile, error) {
	if s != HostProfile {
		return profiles.Open(s)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := config.FindRoot(wd)
	if err != nil {
		return nil, fmt.Errorf("-profile host: %v", err)
	}
	file := filepath.Join(root, filepath.FromSlash(HostProfileFile))
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("-profile host: no calibrated host profile %s: measure this host with `ropgen calibrate -o %s` (make run does, and keeps it there)", file, HostProfileFile)
	}
	return profiles.Load(file)
}

// bootIDFile holds the id of the running boot (Linux); a test points it elsewhere.
var bootIDFile = "/proc/sys/kernel/random/boot_id"

// runCheck is report -check: is the profile current? It exits 3 (recalibrate) when the
// profile was measured on another boot, or when a drift reference in the records is off its
// copy ceiling by more than the spreads allow; 1 when something cannot be read; else 0.
func runCheck(profile string, files []string, stdout, stderr io.Writer) int {
	if profile == "" {
		fmt.Fprintln(stderr, "ropgen report: -check needs -profile FILE")
		return 2
	}
	prof, err := openProfile(profile)
	if err != nil {
		fmt.Fprintln(stderr, "ropgen report:", err)
		return 1
	}
	stale := false
	boot, _ := os.ReadFile(bootIDFile)
	if why := report.StaleBoot(prof, strings.TrimSpace(string(boot))); why != "" {
		fmt.Fprintln(stdout, why)
		stale = true
	}
	if len(files) > 0 {
		recs, fs := record.ReadFiles(files...)
		if len(fs) > 0 {
			printFindings(stderr, fs)
			return 1
		}
		pricer := report.NewPricer(prof, nil, profiles.Effective)
		pricer.PriceAll(recs)
		for _, d := range pricer.Drifts() {
			fmt.Fprintf(stdout, "%s: %s\n", d.Rec.Pos, d)
			stale = stale || d.Off
		}
	}
	if stale {
		return 3
	}
	return 0
}

// writeOutput streams what write writes into file, atomically and never over one of the
// inputs: nothing is at file unless write and the commit succeed.
func writeOutput(file string, inputs []string, write func(io.Writer) error) error {
	f, err := output.Create(file, inputs...)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// chartProfile returns the one profile that priced the rows: a chart draws one set of roofs.
func chartProfile(pricer *report.Pricer) (*profiles.Profile, error) {
	var prof *profiles.Profile
	for _, m := range pricer.Devices() {
		if m.Profile == nil {
			continue
		}
		if prof != nil && prof != m.Profile {
			return nil, fmt.Errorf("records are priced against profiles %s and %s; one chart draws one profile (pass -profile, or report each device's records separately)", prof.Name, m.Profile.Name)
		}
		prof = m.Profile
	}
	if prof == nil {
		return nil, fmt.Errorf("no profile priced any record, so there are no roofs to draw")
	}
	return prof, nil
}

// commandLine is the report's command line as a reader would type it again.
func commandLine(args []string) string {
	return shellLine(append([]string{"ropgen", "report"}, args...))
}

// shellLine quotes words as a shell reads them back.
func shellLine(words []string) string {
	var parts []string
	for _, a := range words {
		if a == "" || strings.ContainsAny(a, " \t'\"$\\*?|&;<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// commitOf is the revision the report's page names for the records (vcs.Of): the records'
// own, or the working tree's or the binary's, said as such.
func commitOf(files []string) string {
	c := vcs.Of(files)
	text := c.Rev
	if c.Dirty {
		text += " (modified)"
	}
	if c.From == vcs.FromTree {
		text += " (the working tree at report time)"
	}
	return text
}

// markAudited marks each row that an audit row judged (same op, workload and dtype; an ERROR
// row judged nothing) and counts them by verdict. The note says the audit's verdict and ratio;
// a FAIL makes the row a formula error whatever its timing said: its efficiency divides by
// bytes the kernel does not move, so no verdict on the kernel holds, least of all at ceiling.
func markAudited(rows []report.Row, res audit.Result) map[audit.Verdict]int {
	byName := map[string]audit.Row{}
	for _, a := range res.Rows {
		if a.Verdict != audit.Error {
			byName[audit.RangeName(a.Op, a.Workload, a.DType)] = a
		}
	}
	count := map[audit.Verdict]int{}
	for i := range rows {
		r := &rows[i]
		a, ok := byName[audit.RangeName(r.Rec.Op, r.Rec.Workload, r.Rec.DType)]
		if !ok {
			continue
		}
		count[a.Verdict]++
		r.Audit = string(a.Verdict)
		note := fmt.Sprintf("bytes audit %s (%.2fx the formula, %s side)", a.Verdict, a.Ratio, a.Side)
		if a.Verdict == audit.Fail {
			r.Verdict = report.FormulaError
			note += ": " + a.Note
		}
		if r.Note != "" {
			note += "; " + r.Note
		}
		r.Note = note
	}
	return count
}

// trafficOf returns the measured total traffic of each audit row that has one, and for the
// others (read side only, or no usable measurement) the row and why.
func trafficOf(res audit.Result) (ts []render.Traffic, skipped []string) {
	for _, r := range res.Rows {
		name := r.Op + "/" + r.Workload + "/" + report.ShortDType(r.DType)
		switch {
		case r.Verdict == audit.Error || r.Measured <= 0:
			skipped = append(skipped, name+" (ERROR in the audit)")
		case r.Side != "total":
			skipped = append(skipped, name+" (audited on the "+r.Side+" side only)")
		default:
			ts = append(ts, render.Traffic{Op: r.Op, Workload: r.Workload, DType: r.DType, Bytes: r.Measured})
		}
	}
	return ts, skipped
}

// opFamilies returns the family of each op of the catalog (the manifest's family field), for
// the chart's marker shapes: from -manifests, else from the module's configuration. It reads
// each op's family alone (manifest.Families), not the whole validated catalog: the chart
// needs no more. It returns nil, and the chart shows no families, where there is no catalog
// (a report runs anywhere) or a manifest cannot be read (a note says so).
func opFamilies(flag string, stderr io.Writer) func(op string) string {
	paths := cli.SplitList(flag)
	if flag == "" {
		cfg, err := config.Load()
		var none *config.NoRootError
		if errors.As(err, &none) {
			return nil
		}
		if err != nil {
			fmt.Fprintf(stderr, "ropgen report: note: %v: the chart shows no op families\n", err)
			return nil
		}
		paths = cli.Manifests("", cfg)
	}
	family, fs := manifest.Families(paths...)
	if len(fs) > 0 {
		fmt.Fprintf(stderr, "ropgen report: note: %v: the chart shows no op families\n", fs[0])
		return nil
	}
	return func(op string) string { return family[op] }
}
