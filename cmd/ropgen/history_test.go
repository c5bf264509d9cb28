package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/history/historytest"
	"github.com/ropgen/ropgen/perf/record"
)

// historyRun writes the records of one run of rows rows (one record a row, as make run times
// them) with 3% noise, row slow made 2x slower when >= 0, and returns the file.
func historyRun(t *testing.T, dir string, seed uint64, rows, slow int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	drift := 1 + 0.03*rng.NormFloat64()
	var recs []record.Record
	for i := range rows {
		bytes := int64(1<<20) * int64(i+1)
		secs := float64(bytes) / 8e9 * drift * math.Exp(0.03*rng.NormFloat64())
		if i == slow {
			secs *= 2
		}
		r := labRecord(fmt.Sprintf("w%02d", i), bytes, secs)
		r.MinSeconds, r.MaxSeconds = secs*0.99, secs*1.01
		recs = append(recs, r)
	}
	return writeBenchRecords(t, dir, fmt.Sprintf("run%d.txt", seed), recs...)
}

// TestHistoryCommands: add, runs, show and diff against SQLite and PostgreSQL: a run added
// twice is one run, two runs of the same code are no regression (exit 0), a row made 2x
// slower is one (exit 1, named), and page draws the rows.
func TestHistoryCommands(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		const secret = "pw-never-shown"
		if history.IsURL(db.DSN) {
			// The test server trusts its socket and ignores a password: one in the URL must
			// still never be shown, nor stored in a run's command.
			u, _ := url.Parse(db.DSN)
			u.User = url.UserPassword(u.User.Username(), secret)
			db.DSN = u.String()
		}
		var shown strings.Builder
		runCmd := func(args ...string) (int, string, string) {
			code, stdout, stderr := runCmd(args...)
			shown.WriteString(stdout + stderr)
			return code, stdout, stderr
		}
		defer func() {
			if strings.Contains(shown.String(), secret) {
				t.Errorf("the URL's password was shown")
			}
		}()
		dir := t.TempDir()
		prof := filepath.Join(dir, "lab.yaml")
		os.WriteFile(prof, []byte(reportProfile), 0o644)
		var files []string
		for seed := range uint64(7) {
			files = append(files, historyRun(t, dir, seed, 20, -1))
		}
		for i, f := range files {
			code, stdout, stderr := runCmd("history", "add", "-db", db.DSN, "-profile", prof, f)
			if code != 0 || strings.TrimSpace(stdout) != fmt.Sprint(i+1) {
				t.Fatalf("add %s: exit %d, stdout %q\n%s", f, code, stdout, stderr)
			}
		}
		if code, stdout, stderr := runCmd("history", "add", "-db", db.DSN, "-profile", prof, files[2]); code != 0 || strings.TrimSpace(stdout) != "3" || !strings.Contains(stderr, "run 3 already") {
			t.Errorf("the same records again: exit %d, stdout %q, stderr %q; want run 3, not stored again", code, stdout, stderr)
		}
		code, stdout, stderr := runCmd("history", "runs", "-db", db.DSN, "-json")
		if code != 0 || strings.Count(stdout, "\n") != 7 {
			t.Fatalf("runs -json: exit %d, %d lines\n%s%s", code, strings.Count(stdout, "\n"), stdout, stderr)
		}
		var first map[string]any
		json.Unmarshal([]byte(strings.SplitN(stdout, "\n", 2)[0]), &first)
		for _, k := range []string{"id", "time", "commit", "device", "rows"} {
			if _, ok := first[k]; !ok {
				t.Errorf("runs -json: no %q in %v", k, first)
			}
		}
		if first["rows"] != 20.0 || first["device"] != "Lab Device" || first["profile"] != "lab" {
			t.Errorf("runs -json: %v; want 20 rows of Lab Device priced against lab", first)
		}
		code, stdout, stderr = runCmd("history", "diff", "-db", db.DSN)
		if code != 0 || !strings.Contains(stdout, "no row changed beyond noise") || !strings.Contains(stdout, "over the device's last 6 runs") {
			t.Errorf("diff of two runs of the same code: exit %d, want 0\n%s%s", code, stdout, stderr)
		}
		slow := historyRun(t, dir, 100, 20, 11)
		if code, stdout, stderr := runCmd("history", "add", "-db", db.DSN, "-profile", prof, slow); code != 0 || strings.TrimSpace(stdout) != "8" {
			t.Fatalf("add: exit %d\n%s%s", code, stdout, stderr)
		}
		code, stdout, stderr = runCmd("history", "diff", "-db", db.DSN)
		if code != 1 || !strings.Contains(stdout, "AddFwd/w11/float32") || !strings.Contains(stdout, "slower +") || !strings.Contains(stdout, history.TestHistory) {
			t.Errorf("diff with a row 2x slower: exit %d, want 1 naming AddFwd/w11\n%s%s", code, stdout, stderr)
		}
		if strings.Count(stdout, "slower +") != 1 {
			t.Errorf("diff: more than the slowed row counted\n%s", stdout)
		}
		code, stdout, _ = runCmd("history", "diff", "-db", db.DSN, "-json", "7", "8")
		var doc struct {
			Regressions int `json:"regressions"`
			Rows        []struct {
				Workload string   `json:"workload"`
				Test     string   `json:"test"`
				Low      *float64 `json:"ratio_low"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 1 || doc.Regressions != 1 || len(doc.Rows) != 1 || doc.Rows[0].Workload != "w11" || doc.Rows[0].Low == nil {
			t.Errorf("diff -json 7 8: exit %d, %v, %+v\n%s", code, err, doc, stdout)
		}
		code, stdout, stderr = runCmd("history", "show", "-db", db.DSN, "-workload", "^w11$")
		if code != 0 || strings.Count(stdout, "run ") != 8 || !strings.Contains(stdout, "trend +") {
			t.Errorf("show -workload ^w11$: exit %d; want 8 runs and a rising trend\n%s%s", code, stdout, stderr)
		}
		page := filepath.Join(dir, "trend.html")
		code, stdout, stderr = runCmd("history", "page", "-db", db.DSN, "-o", page)
		html, _ := os.ReadFile(page)
		if code != 0 || strings.Count(string(html), "<svg class=\"spark\"") != 20 || !strings.Contains(string(html), "AddFwd/w11/float32") || !strings.Contains(string(html), "Regressions of the last diff") {
			t.Errorf("page: exit %d\n%s%s", code, stdout, stderr)
		}
	})
}

// TestHistoryAddRefusesBadRecords: a record file with an error stores nothing, and says
// where.
func TestHistoryAddRefusesBadRecords(t *testing.T) {
	dir := t.TempDir()
	good := historyRun(t, dir, 1, 3, -1)
	bad := filepath.Join(dir, "bad.txt")
	data, _ := os.ReadFile(good)
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "BenchmarkRoofline/op=AddFwd/workload=w01") {
			lines[i] = strings.Replace(l, " sec/op", " sec/op garbage", 1)
			lines[i] = strings.Replace(lines[i], "BenchmarkRoofline/op=AddFwd/workload=w01/dtype=float32", "BenchmarkRoofline/op=AddFwd/workload=w01/dtype=float32\tnot-a-number", 1)
		}
	}
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)
	db := filepath.Join(dir, "h.db")
	code, _, stderr := runCmd("history", "add", "-db", db, good, bad)
	if code != 1 || !strings.Contains(stderr, "bad.txt:") || !strings.Contains(stderr, "nothing stored") {
		t.Errorf("add with a bad record: exit %d, stderr %q; want bad.txt:LINE and nothing stored", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused add created the database")
	}
}

func TestHistoryDatabaseChoice(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "env.db")
	t.Setenv(history.EnvVar, env)
	f := historyRun(t, dir, 1, 3, -1)
	if code, _, stderr := runCmd("history", "add", f); code != 0 {
		t.Fatalf("add with %s set: exit %d\n%s", history.EnvVar, code, stderr)
	}
	if _, err := os.Stat(env); err != nil {
		t.Errorf("%s names %s, which add did not create: %v", history.EnvVar, env, err)
	}
	flag := filepath.Join(dir, "flag.db")
	if code, _, stderr := runCmd("history", "add", "-db", flag, f); code != 0 {
		t.Fatalf("add -db: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(flag); err != nil {
		t.Errorf("-db %s was not used: %v", flag, err)
	}
	if code, _, stderr := runCmd("history", "runs", "-db", filepath.Join(dir, "none.db")); code != 1 || !strings.Contains(stderr, "no history database") {
		t.Errorf("runs of a missing database: exit %d, %q", code, stderr)
	}
	const secret = "hunter2-secret"
	code, stdout, stderr := runCmd("history", "runs", "-db", "postgres://me:"+secret+"@127.0.0.1:1/h?connect_timeout=2")
	if code != 1 || strings.Contains(stdout+stderr, secret) || !strings.Contains(stderr, "xxxxx") {
		t.Errorf("runs of an unreachable server: exit %d; the password must not show:\n%s%s", code, stdout, stderr)
	}
	// The module default, under the root, ignored by git after init.
	t.Setenv(history.EnvVar, "")
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/k\n"), 0o644)
	os.WriteFile(filepath.Join(mod, ".gitignore"), []byte("/bin/"), 0o644)
	t.Chdir(mod)
	if code, stdout, stderr := runCmd("init"); code != 0 || !strings.Contains(stdout, "added /.ropgen/ to .gitignore") {
		t.Errorf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	if ig, _ := os.ReadFile(".gitignore"); string(ig) != "/bin/\n# the benchmark runs ropgen history keeps (a SQLite database)\n/.ropgen/\n" {
		t.Errorf(".gitignore after init:\n%s", ig)
	}
	if code, _, stderr := runCmd("history", "add", f); code != 0 {
		t.Fatalf("add in a module: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(mod, history.DefaultPath)); err != nil {
		t.Errorf("the module default %s: %v", history.DefaultPath, err)
	}
}

// TestHistoryConcurrentAdds runs 8 `ropgen history add` processes at once into one new
// database: all 8 runs land, none twice.
func TestHistoryConcurrentAdds(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		dir := t.TempDir()
		var wg sync.WaitGroup
		outs := make([]bytes.Buffer, 8)
		errs := make([]error, 8)
		for i := range 8 {
			f := historyRun(t, dir, uint64(i), 200, -1)
			wg.Go(func() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestHistoryAddHelperProcess$")
				cmd.Env = append(os.Environ(), "ROPGEN_TEST_HISTORY_ARGS=history\nadd\n-db\n"+db.DSN+"\n"+f)
				cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
				errs[i] = cmd.Run()
			})
		}
		wg.Wait()
		for i := range 8 {
			if errs[i] != nil {
				t.Errorf("writer %d: %v\n%s", i, errs[i], outs[i].String())
			}
		}
		code, stdout, stderr := runCmd("history", "runs", "-db", db.DSN, "-json")
		if code != 0 || strings.Count(stdout, "\n") != 8 {
			t.Errorf("after 8 concurrent adds: exit %d, %d runs; want 8\n%s%s", code, strings.Count(stdout, "\n"), stdout, stderr)
		}
	})
}

// TestHistoryAddHelperProcess is one `ropgen` process of TestHistoryConcurrentAdds.
func TestHistoryAddHelperProcess(t *testing.T) {
	args := os.Getenv("ROPGEN_TEST_HISTORY_ARGS")
	if args == "" {
		t.Skip("the helper of TestHistoryConcurrentAdds")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// TestReportMarkdownDiff: report -md -diff ends the pull-request summary with the history's
// diff of its latest run: the first run of a device says there is nothing to compare, a row
// made 2x slower is in the table; -diff without -md and -db without -diff are usage errors.
func TestReportMarkdownDiff(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o644)
	md := filepath.Join(dir, "summary.md")
	report := func(records string) string {
		t.Helper()
		if code, stdout, stderr := runCmd("history", "add", "-db", db, "-profile", prof, records); code != 0 {
			t.Fatalf("add: exit %d\n%s%s", code, stdout, stderr)
		}
		if code, stdout, stderr := runCmd("report", "-profile", prof, "-md", md, "-diff", "-db", db, records); code != 0 {
			t.Fatalf("report -md -diff: exit %d\n%s%s", code, stdout, stderr)
		}
		data, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := report(historyRun(t, dir, 1, 20, -1)); !strings.Contains(got, "### ropgen report") || !strings.Contains(got, "#### History diff") || !strings.Contains(got, "nothing to compare yet") {
		t.Errorf("the first run: the summary\n%s\nwants the report and the history diff's nothing to compare", got)
	}
	got := report(historyRun(t, dir, 2, 20, 11))
	if !strings.Contains(got, "| AddFwd/w11/float32 |") || !strings.Contains(got, "slower +") || !strings.Contains(got, "**1 row(s) slower beyond noise.**") {
		t.Errorf("a row 2x slower: the summary\n%s\nwants its row in the diff's table, slower", got)
	}
	for _, args := range [][]string{{"report", "-diff", historyRun(t, dir, 3, 20, -1)}, {"report", "-md", md, "-db", db, historyRun(t, dir, 4, 20, -1)}} {
		if code, _, stderr := runCmd(args...); code != 2 || !strings.Contains(stderr, "-diff") {
			t.Errorf("%v: exit %d, %q; want a usage error about -diff", args, code, stderr)
		}
	}
}

// TestReportHistory: report -history judges the line over the history's earlier runs too: a
// row at ceiling in this run but below in an earlier one reads "at the line", says so, and
// its JSON row carries the past; the run being priced, added already, is not its own past;
// a history not created yet is none.
func TestReportHistory(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o644)
	// One row at efficiency eff: 1 GB on the profile's 1 TB/s.
	run := func(name string, eff float64) string {
		return writeBenchRecords(t, dir, name, labRecord("w", 1e9, 1e-3/eff))
	}
	verdict := func(records string) (string, map[string]any) {
		t.Helper()
		code, stdout, stderr := runCmd("report", "-history", "-db", db, "-json", "-profile", prof, records)
		if code != 0 {
			t.Fatalf("report -history: exit %d\n%s%s", code, stdout, stderr)
		}
		var doc struct{ Rows []map[string]any }
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Rows) != 1 {
			t.Fatalf("report -json: %v\n%s", err, stdout)
		}
		return doc.Rows[0]["verdict"].(string), doc.Rows[0]
	}
	add := func(records string) {
		t.Helper()
		if code, stdout, stderr := runCmd("history", "add", "-db", db, "-profile", prof, records); code != 0 {
			t.Fatalf("add: exit %d\n%s%s", code, stdout, stderr)
		}
	}
	below, at := run("below.txt", 0.6), run("at.txt", 0.9)
	if v, row := verdict(at); v != "at ceiling" || row["past_runs"] != nil {
		t.Errorf("no history yet: %q, past_runs %v; want at ceiling, none", v, row["past_runs"])
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("report -history created the history")
	}
	add(at)
	if v, row := verdict(at); v != "at ceiling" || row["past_runs"] != nil {
		t.Errorf("the run itself in the history: %q, past_runs %v; want at ceiling, no past", v, row["past_runs"])
	}
	add(below)
	v, row := verdict(at)
	if v != "at the line" || row["past_runs"] != 1.0 || row["past_low"] != 0.6 || !strings.Contains(row["note"].(string), "at the line over its runs") {
		t.Errorf("at ceiling now, below in an earlier run: %q, past %v-%v over %v runs, note %q; want at the line", v, row["past_low"], row["past_high"], row["past_runs"], row["note"])
	}
}

// TestHistoryProfileAndFloor: history profile writes the quiet profile the history keeps
// (exit 3 when it keeps none of this boot), never over the database it reads; history floor
// prints nothing for a history not created yet, and creates none.
func TestHistoryProfileAndFloor(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	prof := filepath.Join(dir, "lab.yaml")
	os.WriteFile(prof, []byte(reportProfile), 0o644)
	if code, stdout, _ := runCmd("history", "floor", "-db", db, "-device", "Lab Device"); code != 0 || stdout != "" {
		t.Errorf("floor of no history: exit %d, %q; want 0 and nothing", code, stdout)
	}
	if code, _, _ := runCmd("history", "profile", "-db", db, "-any-boot", "-o", filepath.Join(dir, "p.yaml")); code != 3 {
		t.Errorf("profile of no history: exit %d, want 3", code)
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatalf("reading the past created the history")
	}
	if code, stdout, stderr := runCmd("history", "add", "-db", db, "-profile", prof, historyRun(t, dir, 1, 5, -1)); code != 0 {
		t.Fatalf("add: exit %d\n%s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "p.yaml")
	if code, _, stderr := runCmd("history", "profile", "-db", db, "-device", "Lab Device", "-any-boot", "-o", out); code != 0 {
		t.Fatalf("profile: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != reportProfile {
		t.Errorf("profile wrote %q, want the profile the run was priced against", got)
	}
	// The lab profile names no boot: it is none of this boot's.
	boot := filepath.Join(dir, "boot_id")
	os.WriteFile(boot, []byte("test-boot\n"), 0o644)
	defer func(f string) { bootIDFile = f }(bootIDFile)
	bootIDFile = boot
	if code, _, _ := runCmd("history", "profile", "-db", db, "-device", "Lab Device", "-o", out); code != 3 {
		t.Errorf("profile of this boot: exit %d, want 3", code)
	}
	before, _ := os.ReadFile(db)
	if code, _, stderr := runCmd("history", "profile", "-db", db, "-device", "Lab Device", "-any-boot", "-o", db); code == 0 || !strings.Contains(stderr, "input") {
		t.Errorf("profile -o the database: exit %d, %q; want refused", code, stderr)
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
		t.Errorf("profile -o the database wrote over it")
	}
}
