package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/internal/vcs"
	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/render"
	"github.com/ropgen/ropgen/perf/report"
)

var historyCommands = map[string]cli.Command{
	"add":     {Summary: "store a run's records, with the profile, commit, device and host: prints its id", Run: runHistoryAdd},
	"runs":    {Summary: "list the stored runs", Run: runHistoryRuns},
	"show":    {Summary: "per row, its time, efficiency and verdict over the runs, with the trend", Run: runHistoryShow},
	"diff":    {Summary: "compare two runs row by row: exit 1 when a row got slower beyond noise", Run: runHistoryDiff},
	"page":    {Summary: "write a static HTML trend page of the history", Run: runHistoryPage},
	"profile": {Summary: "write the host's latest quiet profile the history keeps, of this boot: what make run prices against when its calibration is refused", Run: runHistoryProfile},
	"floor":   {Summary: "print the median cold-call floor of a device's recent runs: what ropbench run -judge-floor sizes by", Run: runHistoryFloor},
}

// runHistory is `ropgen history`: the runs kept in a database (docs/history-store.md).
func runHistory(args []string, stdout, stderr io.Writer) int {
	return cli.Dispatch("ropgen history", historyCommands, args, stdout, stderr)
}

// dbFlag defines -db, the one database flag of every history command.
func dbFlag(fl *cli.Flags) *string {
	return fl.String("db", "", "the history: a SQLite `FILE` or a postgres:// URL (default: $"+history.EnvVar+", else "+history.DefaultPath+" at the module root)")
}

// historyDB returns the database -db names, else $ROPGEN_DB, else the module's default file.
func historyDB(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv(history.EnvVar); env != "" {
		return env, nil
	}
	root, err := config.FindRoot(".")
	if err != nil {
		return "", fmt.Errorf("%v: name a database with -db or %s", err, history.EnvVar)
	}
	return config.Rel(filepath.Join(root, filepath.FromSlash(history.DefaultPath))), nil
}

// openPast opens the history flag names (historyDB) for the commands that read its past
// (report -history, history floor, history profile); nil, nil when it names a SQLite file no
// run was added to yet, which they take as an empty history: the first run has no past.
func openPast(flag string) (*history.Store, error) {
	dsn, err := historyDB(flag)
	if err != nil {
		return nil, err
	}
	if !history.IsURL(dsn) {
		if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	history.Version = versionOf()
	return history.Open(context.Background(), dsn, false)
}

// openHistory opens the history for a command; create only for add.
func openHistory(fl *cli.Flags, flag string, create bool) (*history.Store, int, bool) {
	dsn, err := historyDB(flag)
	if err != nil {
		return nil, fl.Errorf("%v", err), false
	}
	history.Version = versionOf()
	s, err := history.Open(context.Background(), dsn, create)
	if err != nil {
		return nil, fl.Errorf("%v", err), false
	}
	return s, 0, true
}

func versionOf() string {
	info, _ := debug.ReadBuildInfo()
	return versionLine(info)
}

func runHistoryAdd(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen history add", "[-db FILE|URL] [-profile NAME|FILE] records...", `
Add stores one run: every record of the files (Go benchmark format or JSON lines) as
measured, the profile they are priced against (its text, so the run can be priced again),
the commit and whether the working tree was dirty, the device, the host and its load, the
ropgen version, the command and the time. It prints the run's id. Records already stored
(the same records) are not stored again: it prints that run's id. A record file with an
error stores nothing (its findings are printed at file:line, exit 1). The records must be of
one device. Without -profile the run is priced against the builtin profile its device
matches, else the module's calibrated host profile (out/host.yaml) when it matches.`, stdout, stderr)
	db := dbFlag(fl)
	profile := fl.String("profile", "", "price the run against this profile: a builtin name, host (out/host.yaml of this module) or a .yaml file (default: the one its device matches)")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	files := fl.Args()
	if len(files) == 0 {
		return fl.Fail("no record files given")
	}
	recs, fs := record.ReadFiles(files...)
	if len(fs) > 0 {
		printFindings(stderr, fs)
		return fl.Errorf("nothing stored: %d finding(s) in the records", len(fs))
	}
	if len(recs) == 0 {
		return fl.Errorf("nothing stored: no records in %s", strings.Join(files, ", "))
	}
	device, err := history.DeviceOf(recs)
	if err == nil {
		_, err = history.ImplOf(recs)
	}
	if err != nil {
		return fl.Errorf("nothing stored: %v", err)
	}
	prof, err := runProfile(*profile, device)
	if err != nil {
		return fl.Errorf("nothing stored: %v", err)
	}
	s, code, ok := openHistory(fl, *db, true)
	if !ok {
		return code
	}
	defer s.Close()
	words := []string{"ropgen", "history", "add"}
	for _, a := range args {
		words = append(words, history.Redact(a)) // -db's password is kept nowhere
	}
	meta := &history.Run{Time: time.Now(), Version: versionOf(), Command: shellLine(words)}
	c := vcs.Of(files)
	meta.Commit, meta.Dirty = c.Rev, c.Dirty
	meta.Host, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			meta.Load = strings.Join(f[:3], " ")
		}
	}
	id, added, err := s.Add(context.Background(), meta, recs, prof)
	if err != nil {
		return fl.Errorf("nothing stored: %v", err)
	}
	if !added {
		fmt.Fprintf(stdout, "%d\n", id)
		fmt.Fprintf(stderr, "ropgen history add: these records are run %d already: not stored again\n", id)
		return 0
	}
	fmt.Fprintf(stdout, "%d\n", id)
	priced := "priced against " + orDash(nameOf(prof))
	fmt.Fprintf(stderr, "ropgen history add: run %d in %s: %d rows of %s, commit %s, %s\n", id, s.Name, meta.Rows, meta.Track(), commitText(meta), priced)
	return 0
}

func nameOf(p *history.Profile) string {
	if p == nil {
		return ""
	}
	return p.Name
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// runProfile returns the profile a run is priced against, as text: -profile's, else the
// builtin profile its device matches, else the module's host profile when it matches, else
// nil (the rows are kept unpriced).
func runProfile(flag, device string) (*history.Profile, error) {
	if flag == "" {
		builtins, err := profiles.Builtin()
		if err != nil {
			return nil, err
		}
		if p, err := profiles.Match(device, builtins); err == nil {
			text, err := profiles.BuiltinText(p.Name)
			return &history.Profile{Name: p.Name, Source: p.Source, Text: text}, err
		}
		file, err := hostProfileFile()
		if err != nil {
			return nil, nil
		}
		if p, err := profiles.Load(file); err == nil && p.Matches(device) {
			return profileFile(file)
		}
		return nil, nil
	}
	if flag == HostProfile {
		file, err := hostProfileFile()
		if err != nil {
			return nil, fmt.Errorf("-profile host: %v", err)
		}
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("-profile host: no calibrated host profile %s: measure this host with `ropgen calibrate -o %s` (make run does)", file, HostProfileFile)
		}
		return profileFile(file)
	}
	p, err := profiles.Open(flag)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(p.Source, "builtin:") {
		text, err := profiles.BuiltinText(p.Name)
		return &history.Profile{Name: p.Name, Source: p.Source, Text: text}, err
	}
	return profileFile(flag)
}

func hostProfileFile() (string, error) {
	root, err := config.FindRoot(".")
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(HostProfileFile)), nil
}

// profileFile reads a profile file once, and checks that text: what is stored is what
// priced.
func profileFile(file string) (*history.Profile, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := profiles.Parse(file, text)
	if err != nil {
		return nil, err
	}
	return &history.Profile{Name: p.Name, Source: config.Rel(file), Text: text}, nil
}

func commitText(r *history.Run) string {
	c := r.Commit
	if len(c) > 12 && !strings.Contains(c, " ") {
		c = c[:12]
	}
	if c == "" {
		c = "-"
	}
	if r.Dirty {
		c += "+dirty"
	}
	return c
}

func runHistoryRuns(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen history runs", "[-db FILE|URL] [-json]", `
Runs lists the stored runs, oldest first: id, time (UTC), commit (+dirty: the working tree
had changes), device, rows, the profile they were priced against, and the host's load
averages when the run was added. With -json, one JSON object a line.`, stdout, stderr)
	db := dbFlag(fl)
	asJSON := fl.Bool("json", false, "one JSON object a line: id, time, commit, dirty, device, host, load, ropgen_version, command, profile, rows, records, digest")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	s, code, ok := openHistory(fl, *db, false)
	if !ok {
		return code
	}
	defer s.Close()
	runs, err := s.Runs(context.Background())
	if err != nil {
		return fl.Errorf("%v", err)
	}
	bw := bufio.NewWriter(stdout)
	defer bw.Flush()
	if *asJSON {
		enc := json.NewEncoder(bw)
		for i := range runs {
			if err := enc.Encode(&runs[i]); err != nil {
				return fl.Errorf("%v", err)
			}
		}
		return 0
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\ttime\tcommit\tdevice\trows\tprofile\tload")
	for i := range runs {
		r := &runs[i]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Time.UTC().Format("2006-01-02 15:04:05"), commitText(r), r.Track(), r.Rows, orDash(r.Profile), orDash(r.Load))
	}
	tw.Flush()
	return 0
}

func runHistoryFloor(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen history floor", "[-db FILE|URL] [-device NAME]", fmt.Sprintf(`
Floor prints the median cold-call floor, in seconds, of the device's latest %d runs priced
against quiet profiles (their ref.floor records), and nothing when the history has no such run
yet (a history not created yet is none). make run passes it to ropbench run -judge-floor, so
that the case judged for an op stays the same from run to run: one run's own floor is a few
cold calls, and moves by more than 2x between runs.`, history.FloorRuns), stdout, stderr)
	db := dbFlag(fl)
	device := fl.String("device", profiles.HostDeviceName(), "the device `NAME`, as its records name it")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	s, err := openPast(*db)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if s == nil {
		return 0
	}
	defer s.Close()
	f, n, err := s.Floor(context.Background(), *device, history.FloorRuns)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if n > 0 {
		fmt.Fprintf(stdout, "%.3g\n", f)
		fmt.Fprintf(stderr, "ropgen history floor: the median of %d runs of %s\n", n, *device)
	}
	return 0
}

func runHistoryProfile(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen history profile", "[-db FILE|URL] [-device NAME] [-any-boot] -o FILE", `
Profile writes the profile of the device's latest run of ropgen's kernels that was priced
against a quiet calibration (not one refused under load) measured on this boot, as the history
keeps it, to FILE. Exit 3 when the history has none (a history not created yet has none).
make run prices against it when the machine is too busy to calibrate and make clean removed
out/host.yaml: the host's earlier profile, under the drift rule (docs/report.md, "A busy
machine").`, stdout, stderr)
	db := dbFlag(fl)
	device := fl.String("device", profiles.HostDeviceName(), "the device `NAME`, as its records name it")
	anyBoot := fl.Bool("any-boot", false, "a profile measured on any boot, not only this one")
	out := fl.String("o", "", "write the profile to `FILE` (required)")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	if *out == "" {
		return fl.Fail("give -o FILE")
	}
	none := func() int {
		which := " measured on this boot"
		if *anyBoot {
			which = ""
		}
		fmt.Fprintf(stderr, "ropgen history profile: the history has no quiet profile of %s%s\n", *device, which)
		return 3
	}
	s, err := openPast(*db)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if s == nil {
		return none()
	}
	defer s.Close()
	boot := ""
	if !*anyBoot {
		b, _ := os.ReadFile(bootIDFile)
		boot = strings.TrimSpace(string(b))
	}
	prof, run, err := s.QuietProfile(context.Background(), *device, boot)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if prof == nil {
		return none()
	}
	var inputs []string // -o must not name the database it reads
	if !history.IsURL(s.Name) {
		inputs = append(inputs, s.Name)
	}
	if err := writeOutput(*out, inputs, func(w io.Writer) error { _, err := w.Write(prof.Text); return err }); err != nil {
		return fl.Errorf("%v", err)
	}
	fmt.Fprintf(stderr, "ropgen history profile: wrote %s: profile %s of run %d (%s)\n", *out, prof.Name, run.ID, run.Time.UTC().Format("2006-01-02 15:04"))
	return 0
}

// filterFlags defines the row selection of show and page.
// filterFlags declares the -op, -workload, -dtype and -device flags of a history command that
// reads rows, and returns the rest of its preamble: parse args (no operands), run check on the
// parsed flags (nil: none; a non-nil error is a usage error), compile the filters and open the
// history at *db.
func filterFlags(fl *cli.Flags, db *string) func(args []string, check func() error) (*history.Store, history.Filter, int, bool) {
	op := fl.String("op", "", "only ops matching `REGEX`")
	workload := fl.String("workload", "", "only workloads matching `REGEX`")
	dtype := fl.String("dtype", "", "only dtypes matching `REGEX`")
	device := fl.String("device", "", "only devices matching `REGEX`")
	return func(args []string, check func() error) (*history.Store, history.Filter, int, bool) {
		var f history.Filter
		if code, ok := fl.Parse(args); !ok {
			return nil, f, code, false
		}
		if code, ok := fl.NoArgs(); !ok {
			return nil, f, code, false
		}
		if check != nil {
			if err := check(); err != nil {
				return nil, f, fl.Fail("%v", err), false
			}
		}
		for _, x := range []struct {
			name string
			s    *string
			re   **regexp.Regexp
		}{{"op", op, &f.Op}, {"workload", workload, &f.Workload}, {"dtype", dtype, &f.DType}, {"device", device, &f.Device}} {
			if *x.s == "" {
				continue
			}
			var err error
			if *x.re, err = regexp.Compile(*x.s); err != nil {
				return nil, f, fl.Fail("-%s: %v", x.name, err), false
			}
		}
		s, code, ok := openHistory(fl, *db, false)
		return s, f, code, ok
	}
}

func runHistoryShow(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen history show", "[-db FILE|URL] [-op REGEX] [-workload REGEX] [-dtype REGEX] [-device REGEX] [-json]", `
Show prints each row's series over the runs that measured it, oldest first: per run its id,
time, commit, median time, efficiency and verdict, each run priced against its own profile;
then the trend: the latest time against the median of the runs before it (+10%: the latest
run is 10% slower than the row usually is). With -json, one JSON object a row and device.`, stdout, stderr)
	db := dbFlag(fl)
	open := filterFlags(fl, db)
	asJSON := fl.Bool("json", false, "one JSON object a line per row and device: device, op, workload, dtype, trend, points (run, time, commit, seconds, efficiency, verdict)")
	s, f, code, ok := open(args, nil)
	if !ok {
		return code
	}
	defer s.Close()
	series, runs, err := s.Series(context.Background(), f)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	bw := bufio.NewWriterSize(stdout, 1<<16)
	defer bw.Flush()
	if *asJSON {
		return writeSeriesJSON(fl, bw, series)
	}
	// Each run's columns are the same in every row: aligned once, not once a point (a
	// thousand runs of 200 rows are 200,000 lines).
	prefix := map[int64]string{}
	var idW, commitW int
	for i := range runs {
		idW, commitW = max(idW, len(fmt.Sprint(runs[i].ID))), max(commitW, len(commitText(&runs[i])))
	}
	for i := range runs {
		r := &runs[i]
		prefix[r.ID] = fmt.Sprintf("    run %-*d  %s  %-*s", idW, r.ID, r.Time.UTC().Format("2006-01-02 15:04"), commitW, commitText(r))
	}
	for i := range series {
		sr := &series[i]
		fmt.Fprintf(bw, "%s  %s  %d runs  trend %s  %s\n", report.ShortName(sr.Name()), sr.Device, len(sr.Points), trendText(sr.Trend), sparkline(sr.Points))
		for _, p := range sr.Points {
			fmt.Fprintf(bw, "%s  %8s  %6s  %s\n", prefix[p.Run], report.SI(p.Seconds, "s"), orDash(report.Percent(p.Efficiency)), orDash(string(p.Verdict)))
		}
	}
	return 0
}

func trendText(t float64) string {
	if report.Blank(t) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*t)
}

// sparkline draws a series' times as block characters, lowest to highest: a glance at where
// the row has been.
func sparkline(ps []history.Point) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		if p.Seconds > 0 {
			lo, hi = min(lo, p.Seconds), max(hi, p.Seconds)
		}
	}
	bars := []rune("▁▂▃▄▅▆▇█")
	var b strings.Builder
	for _, p := range ps[max(0, len(ps)-40):] {
		switch {
		case p.Seconds <= 0:
			b.WriteRune(' ')
		case hi <= lo:
			b.WriteRune(bars[0])
		default:
			b.WriteRune(bars[int(float64(len(bars)-1)*(p.Seconds-lo)/(hi-lo)+0.5)])
		}
	}
	return b.String()
}

func writeSeriesJSON(fl *cli.Flags, w io.Writer, series []history.Series) int {
	type point struct {
		Run        int64    `json:"run"`
		Time       string   `json:"time"`
		Commit     string   `json:"commit"`
		Seconds    float64  `json:"seconds"`
		Efficiency *float64 `json:"efficiency"`
		Verdict    string   `json:"verdict"`
	}
	type row struct {
		Device   string   `json:"device"`
		Op       string   `json:"op"`
		Workload string   `json:"workload"`
		DType    string   `json:"dtype"`
		Trend    *float64 `json:"trend"`
		Points   []point  `json:"points"`
	}
	enc := json.NewEncoder(w)
	for i := range series {
		sr := &series[i]
		r := row{Device: sr.Device, Op: sr.Op, Workload: sr.Workload, DType: sr.DType, Trend: render.OrNull(sr.Trend), Points: make([]point, len(sr.Points))}
		for j, p := range sr.Points {
			r.Points[j] = point{Run: p.Run, Time: p.Time.UTC().Format(time.RFC3339), Commit: p.Commit, Seconds: p.Seconds, Efficiency: render.OrNull(p.Efficiency), Verdict: string(p.Verdict)}
		}
		if err := enc.Encode(&r); err != nil {
			return fl.Errorf("%v", err)
		}
	}
	return 0
}

func runHistoryDiff(args []string, stdout, stderr io.Writer) int {
	o := history.DefaultDiff
	fl := cli.NewFlags("ropgen history diff", "[-db FILE|URL] [-json] [-all] [A [B]]", fmt.Sprintf(`
Diff compares run B with run A row by row (by id; B defaults to the latest run of A's
device; with neither, the last two runs of the latest run's device, and when the latest run
is its device's first it says so and exits 0) and prints every row that changed: the base
and new time, the change, its interval (the ratio's bounds from the two runs' sample
ranges), the test that decided it, the efficiency and the verdict. Exit 1 when a row got
slower beyond noise, else 0: the regression gate of a CI job.

A row's change must be %.0f%% or more and beyond %g times the drift of its peers (the rows of
its kind nearest it in time: how far they moved between the two runs), and with %d or more
earlier runs of the device, beyond %g times the row's own run-to-run spread over the last %d;
where both runs timed it with a same-time reference (a DRAM-sized row's triad reference, a
compute-bound row's probe), its time over the reference's must be beyond its peers' drift
too, and with that history, a DRAM-sized row's own spread is read on its time over its
reference, which then decides (its time need only move the same way). Then its samples decide: with %d+ records a side, the Mann-Whitney U test (p < %g) and
records apart, as report -base; with fewer (make run times each row once), the intervals of
the two medians of time × reference rate apart, or without a reference, the new run's
fastest sample slower than the base's median (or the reverse, for faster).`,
		100*o.Compare.MinEffect, o.Compare.NoiseZ, o.MinHistory, o.Compare.NoiseZ, o.HistoryRuns,
		4, o.Compare.Alpha), stdout, stderr)
	db := dbFlag(fl)
	asJSON := fl.Bool("json", false, "write the diff as one JSON document: the runs, the summary, and every row that changed")
	all := fl.Bool("all", false, "list every row, unchanged ones too, with why they are")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if fl.NArg() > 2 {
		return fl.Fail("at most two runs: A [B]")
	}
	var ids []int64
	for _, a := range fl.Args() {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil || id < 1 {
			return fl.Fail("%q is no run id (history runs lists them)", a)
		}
		ids = append(ids, id)
	}
	s, code, ok := openHistory(fl, *db, false)
	if !ok {
		return code
	}
	defer s.Close()
	ctx := context.Background()
	a, b, err := pickRuns(ctx, s, ids)
	if errors.Is(err, errFirstRun) {
		// A gate's first run has nothing to be slower than: no regression.
		fmt.Fprintf(stdout, "%v\n", err)
		return 0
	}
	if err != nil {
		return fl.Errorf("%v", err)
	}
	d, err := s.Diff(ctx, a, b, o)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	bw := bufio.NewWriter(stdout)
	if *asJSON {
		err = writeDiffJSON(bw, d, *all)
	} else {
		err = writeDiff(bw, d, *all)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if len(d.Regressions()) > 0 {
		return 1
	}
	return 0
}

// errFirstRun says the latest run is its device's first.
var errFirstRun = errors.New("nothing to compare yet")

// pickRuns returns the runs diff compares: A and B as given, B the latest of A's device when
// only A is, the last two of the latest run's device when neither is.
func pickRuns(ctx context.Context, s *history.Store, ids []int64) (a, b history.Run, err error) {
	if len(ids) == 0 {
		a, b, ok, err := s.Latest(ctx)
		if err != nil {
			return a, b, err
		}
		if !ok && b.ID == 0 {
			return a, b, errors.New("the history holds no run: nothing to compare")
		}
		if !ok {
			return a, b, fmt.Errorf("%w: run %d is the first of device %q", errFirstRun, b.ID, b.Track())
		}
		return a, b, nil
	}
	get := func(id int64) (history.Run, error) {
		r, ok, err := s.RunByID(ctx, id)
		if err == nil && !ok {
			err = fmt.Errorf("no run %d (history runs lists them)", id)
		}
		return r, err
	}
	if a, err = get(ids[0]); err != nil {
		return a, b, err
	}
	if len(ids) == 2 {
		b, err = get(ids[1])
		return a, b, err
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		return a, b, err
	}
	for _, r := range runs {
		if r.Track() == a.Track() {
			b = r
		}
	}
	if b.ID == a.ID {
		return a, b, fmt.Errorf("run %d is the latest of device %q: give the run to compare it with", a.ID, a.Track())
	}
	return a, b, nil
}

func runLine(r *history.Run) string {
	return fmt.Sprintf("run %d (%s, commit %s, %s)", r.ID, r.Time.UTC().Format("2006-01-02 15:04"), commitText(r), r.Track())
}

// diffRows returns the rows diff lists.
func diffRows(d *history.Diff, all bool) []*history.RowDiff {
	if !all {
		return d.Changed()
	}
	out := make([]*history.RowDiff, len(d.Rows))
	for i := range d.Rows {
		out[i] = &d.Rows[i]
	}
	return out
}

// historyLine says what measured the rows' own spread.
func historyLine(d *history.Diff) string {
	if d.History == 0 {
		return fmt.Sprintf("the rows' own run-to-run spread needs %d runs of the device up to the base; it has fewer, so their peers' drift alone sets the noise", d.Options.MinHistory)
	}
	return fmt.Sprintf("each row's own run-to-run spread is measured over the device's last %d runs up to the base", d.History)
}

func writeDiff(w io.Writer, d *history.Diff, all bool) error {
	fmt.Fprintf(w, "base %s\nnew  %s\n", runLine(&d.A), runLine(&d.B))
	rows := diffRows(d, all)
	if len(rows) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "row\tbase\tnew\tchange\tinterval\ttest\teff\tverdict\twhy")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", report.ShortName(r.Name()), sampledTime(r.Old), sampledTime(r.New),
				changeText(r), intervalText(r), orDash(r.Test), effPair(r), verdictPair(r), r.Why)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(w, "no row changed beyond noise")
	}
	fmt.Fprintln(w, d.Comparison.Summary())
	fmt.Fprintln(w, "history:", historyLine(d))
	if n := len(d.Regressions()); n > 0 {
		fmt.Fprintf(w, "%d row(s) slower beyond noise\n", n)
	}
	return nil
}

// markdownHistoryDiff writes the history's diff of its latest run against the one before of
// its device as markdown, for report -md -diff: the runs, the rows that changed (at most
// render.MarkdownRows), the summary and how many got slower. A history whose latest run is
// its device's first says so.
func markdownHistoryDiff(w io.Writer, flag string) error {
	dsn, err := historyDB(flag)
	if err != nil {
		return err
	}
	history.Version = versionOf()
	ctx := context.Background()
	s, err := history.Open(ctx, dsn, false)
	if err != nil {
		return err
	}
	defer s.Close()
	a, b, err := pickRuns(ctx, s, nil)
	if errors.Is(err, errFirstRun) {
		_, err = fmt.Fprintf(w, "\n#### History diff\n\n%s.\n", render.MarkdownText(err.Error()))
		return err
	}
	if err != nil {
		return err
	}
	d, err := s.Diff(ctx, a, b, history.DefaultDiff)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\n#### History diff\n\nbase %s  \nnew %s\n\n", render.MarkdownText(runLine(&d.A)), render.MarkdownText(runLine(&d.B)))
	if n := len(d.Regressions()); n > 0 {
		fmt.Fprintf(bw, "**%d row(s) slower beyond noise.**\n\n", n)
	}
	rows := d.Changed()
	if len(rows) == 0 {
		bw.WriteString("No row changed beyond noise.\n\n")
	} else {
		bw.WriteString("| row | base | new | change | interval | test | why |\n|---|--:|--:|--:|--:|---|---|\n")
		for i, r := range rows {
			if i == render.MarkdownRows {
				fmt.Fprintf(bw, "\n… and %d more (ropgen history diff lists them all).\n", len(rows)-i)
				break
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s |\n", render.MarkdownText(report.ShortName(r.Name())), sampledTime(r.Old), sampledTime(r.New),
				render.MarkdownText(changeText(r)), render.MarkdownText(intervalText(r)), render.MarkdownText(orDash(r.Test)), render.MarkdownText(r.Why))
		}
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "<sub>%s; %s.</sub>\n", render.MarkdownText(d.Comparison.Summary()), render.MarkdownText(historyLine(d)))
	return bw.Flush()
}

func sampledTime(s *report.Sampled) string {
	if s == nil {
		return "-"
	}
	return report.SI(s.Seconds, "s")
}

func changeText(r *history.RowDiff) string {
	switch {
	case r.Change == render.Added || r.Change == render.Removed:
		return string(r.Change)
	case report.Blank(r.Ratio):
		return string(r.Change)
	}
	return fmt.Sprintf("%s %+.1f%%", r.Change, 100*(r.Ratio-1))
}

func intervalText(r *history.RowDiff) string {
	if report.Blank(r.Lo) {
		return ""
	}
	return fmt.Sprintf("[%+.0f%%, %+.0f%%]", 100*(r.Lo-1), 100*(r.Hi-1))
}

func effPair(r *history.RowDiff) string {
	o, n := "-", "-"
	if r.OldRow != nil {
		o = orDash(report.Percent(r.OldRow.Efficiency))
	}
	if r.NewRow != nil {
		n = orDash(report.Percent(r.NewRow.Efficiency))
	}
	return o + " → " + n
}

func verdictPair(r *history.RowDiff) string {
	o, n := "-", "-"
	if r.OldRow != nil {
		o = orDash(string(r.OldRow.Verdict))
	}
	if r.NewRow != nil {
		n = orDash(string(r.NewRow.Verdict))
	}
	if o == n {
		return o
	}
	return o + " → " + n
}

func writeDiffJSON(w io.Writer, d *history.Diff, all bool) error {
	type row struct {
		Op            string   `json:"op"`
		Workload      string   `json:"workload"`
		DType         string   `json:"dtype"`
		Change        string   `json:"change"`
		OldSeconds    *float64 `json:"old_seconds"`
		NewSeconds    *float64 `json:"new_seconds"`
		Ratio         *float64 `json:"ratio"`
		Low           *float64 `json:"ratio_low"`
		High          *float64 `json:"ratio_high"`
		P             *float64 `json:"p"`
		Test          string   `json:"test"`
		Noise         *float64 `json:"row_noise"`
		Pairs         int      `json:"row_noise_pairs"`
		OldEfficiency *float64 `json:"old_efficiency"`
		NewEfficiency *float64 `json:"new_efficiency"`
		OldVerdict    string   `json:"old_verdict"`
		NewVerdict    string   `json:"new_verdict"`
		Why           string   `json:"why"`
		Regression    bool     `json:"regression"`
	}
	doc := struct {
		Base        history.Run `json:"base"`
		New         history.Run `json:"new"`
		Summary     string      `json:"summary"`
		History     string      `json:"history"`
		HistoryRuns int         `json:"history_runs"`
		Shift       *float64    `json:"shift"`
		Noise       *float64    `json:"noise"`
		Threshold   float64     `json:"threshold"`
		Regressions int         `json:"regressions"`
		Rows        []row       `json:"rows"`
	}{Base: d.A, New: d.B, Summary: d.Comparison.Summary(), History: historyLine(d), HistoryRuns: d.History,
		Shift: render.OrNull(d.Comparison.Shift), Noise: render.OrNull(d.Comparison.Noise), Threshold: d.Comparison.Threshold,
		Regressions: len(d.Regressions()), Rows: []row{}}
	for _, r := range diffRows(d, all) {
		x := row{Change: string(r.Change), Ratio: render.OrNull(r.Ratio), Low: render.OrNull(r.Lo), High: render.OrNull(r.Hi), P: render.OrNull(r.P),
			Test: r.Test, Noise: render.OrNull(r.Noise), Pairs: r.Pairs, Why: r.Why, Regression: r.Change == render.Slower}
		s := r.New
		if s == nil {
			s = r.Old
		}
		x.Op, x.Workload, x.DType = s.Op, s.Workload, s.DType
		if r.Old != nil {
			x.OldSeconds, x.OldEfficiency, x.OldVerdict = render.OrNull(r.Old.Seconds), render.OrNull(r.OldRow.Efficiency), string(r.OldRow.Verdict)
		}
		if r.New != nil {
			x.NewSeconds, x.NewEfficiency, x.NewVerdict = render.OrNull(r.New.Seconds), render.OrNull(r.NewRow.Efficiency), string(r.NewRow.Verdict)
		}
		doc.Rows = append(doc.Rows, x)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&doc)
}

func runHistoryPage(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen history page", "[-db FILE|URL] -o FILE.html", `
Page writes a static HTML trend page: per op and device, each row with a sparkline of its
efficiency over the runs, its latest verdict, and the regressions of the last diff of
each device. It opens from the file system in a browser, with no server.`, stdout, stderr)
	db := dbFlag(fl)
	out := fl.String("o", "", "write the page to `FILE`")
	open := filterFlags(fl, db)
	s, f, code, ok := open(args, func() error {
		if *out == "" {
			return errors.New("-o FILE.html is required")
		}
		return nil
	})
	if !ok {
		return code
	}
	defer s.Close()
	ctx := context.Background()
	page, err := s.Page(ctx, f)
	if err != nil {
		return fl.Errorf("%v", err)
	}
	if err := writeOutput(*out, nil, page.WriteHTML); err != nil {
		return fl.Errorf("%v", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d rows of %d devices over %d runs\n", *out, page.Rows(), len(page.Devices), page.Runs)
	return 0
}

// historyIgnore is the .gitignore line of the module's history: the database and the files
// SQLite keeps beside it.
var historyIgnore = "/" + path.Dir(history.DefaultPath) + "/"

// ignoreHistory adds historyIgnore to root's .gitignore (creating it) unless a line has it.
func ignoreHistory(root string, stdout io.Writer) error {
	file := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == historyIgnore {
			return nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, "# the benchmark runs ropgen history keeps (a SQLite database)\n"+historyIgnore+"\n"...)
	if err := output.WriteFile(file, data); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "added %s to %s\n", historyIgnore, config.Rel(file))
	return nil
}
