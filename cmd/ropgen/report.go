package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"

	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

func runReport(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("report", flag.ContinueOnError)
	fl.SetOutput(stderr)
	profile := fl.String("profile", "", "price every record against this profile: a builtin name or a .yaml file (default: the builtin profile matching each record's device)")
	basis := fl.String("basis", string(profiles.Effective), "ceilings to price against: effective (measured) or theoretical (datasheet)")
	asJSON := fl.Bool("json", false, "write the rows as one JSON document instead of a table")
	asCSV := fl.Bool("csv", false, "write the rows as CSV instead of a table")
	svgFile := fl.String("svg", "", "also write a log-log roofline chart to `FILE`")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: ropgen report [-profile NAME|FILE] [-basis effective|theoretical] [-json|-csv] [-svg FILE] records...")
		fmt.Fprintln(stderr, "\nPrices benchmark records (Go benchmark format or JSON lines) against a device profile:")
		fmt.Fprintln(stderr, "memory, compute and SOL time, efficiency, bound and verdict per row (spec §4.3).")
		fmt.Fprintln(stderr, "Exit 1 when a row implies a rate above a theoretical ceiling (a formula error), when a")
		fmt.Fprintln(stderr, "record cannot be read, or when no profile matches a device (its SOL cells are blank).\n\nflags:")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return usageExit(err)
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, "ropgen report: no record files given")
		return 2
	}
	if *asJSON && *asCSV {
		fmt.Fprintln(stderr, "ropgen report: -json and -csv are exclusive")
		return 2
	}
	if *svgFile != "" {
		// Refused before anything is read or printed: the chart must never replace a record
		// file it was drawn from.
		if err := output.Check(*svgFile, fl.Args()...); err != nil {
			fmt.Fprintln(stderr, "ropgen report: -svg:", err)
			return 2
		}
	}
	b, err := profiles.ParseBasis(*basis)
	if err != nil {
		fmt.Fprintln(stderr, "ropgen report:", err)
		return 2
	}
	var fixed *profiles.Profile
	var candidates []*profiles.Profile
	if *profile != "" {
		if fixed, err = profiles.Open(*profile); err != nil {
			fmt.Fprintln(stderr, "ropgen report:", err)
			return 2
		}
	} else if candidates, err = profiles.Builtin(); err != nil {
		fmt.Fprintln(stderr, "ropgen report:", err)
		return 2
	}

	exit := 0
	recs, fs := record.ReadFiles(fl.Args()...)
	if len(fs) > 0 {
		printFindings(stderr, fs)
		exit = 1
	}
	if len(recs) == 0 {
		fmt.Fprintln(stderr, "ropgen report: no records to price")
		return 1
	}

	pricer := report.NewPricer(fixed, candidates, b)
	rows := pricer.PriceAll(recs)
	for _, m := range pricer.Devices() {
		switch {
		case m.Err != nil:
			fmt.Fprintf(stderr, "ropgen report: %v; pass -profile NAME|FILE. Its SOL cells are blank.\n", m.Err)
			exit = 1
		case fixed != nil && !fixed.Matches(m.Device):
			// Allowed (pricing one device's records on another's ceilings is a what-if), but
			// never silently.
			fmt.Fprintf(stderr, "ropgen report: note: device %q does not match profile %s; priced against it as -profile asks\n", m.Device, fixed.Name)
		}
	}

	switch {
	case *asJSON:
		err = report.WriteJSON(stdout, pricer, rows)
	case *asCSV:
		err = report.WriteCSV(stdout, rows)
	default:
		err = report.WriteTable(stdout, pricer, rows)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ropgen report:", err)
		return 1
	}

	if *svgFile != "" {
		if err := writeChart(*svgFile, fl.Args(), pricer, rows); err != nil {
			fmt.Fprintln(stderr, "ropgen report:", err)
			exit = 1
		}
	}

	// The physics check (spec §4.3): a rate above a theoretical ceiling is impossible, so the
	// record's formula or roof key is wrong. Listed last so it is what a reader sees.
	for _, r := range report.Breaches(rows) {
		fmt.Fprintf(stderr, "%s: %s/%s/%s: %s\n", r.Rec.Pos, r.Rec.Op, r.Rec.Workload, r.Rec.DType, r.Note)
		exit = 1
	}
	return exit
}

// writeChart draws the chart of the one profile that priced the rows into file, atomically
// and never over one of the inputs.
func writeChart(file string, inputs []string, pricer *report.Pricer, rows []report.Row) error {
	var prof *profiles.Profile
	for _, m := range pricer.Devices() {
		if m.Profile == nil {
			continue
		}
		if prof != nil && prof != m.Profile {
			return fmt.Errorf("-svg: records are priced against profiles %s and %s; one chart draws one profile (pass -profile, or report each device's records separately)", prof.Name, m.Profile.Name)
		}
		prof = m.Profile
	}
	if prof == nil {
		return fmt.Errorf("-svg: no profile priced any record, so there are no roofs to draw")
	}
	var buf bytes.Buffer
	if _, err := report.WriteSVG(&buf, prof, pricer.Basis(), rows); err != nil {
		return err
	}
	return output.WriteFile(file, buf.Bytes(), inputs...)
}
