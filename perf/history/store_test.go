package history_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/history/historytest"
	"github.com/ropgen/ropgen/perf/record"
)

// testProfile is a CPU profile the synthetic runs are priced against: 10 GB/s, 100 GFLOP/s.
const testProfile = `device: "cpu: Test Device"
memory: DRAM
hbm: {theoretical: 10.0e9, calibration: 1.0}
vector:
  fp32: {theoretical: 100.0e9, calibration: 1.0}
`

const testDevice = "cpu: Test Device"

// synth returns the records of one synthetic run: rows rows, count records each, row i
// moving 4 MiB × (i+1) at 8 GB/s (80% of the profile's bandwidth), every time scaled by the
// run's drift, a per-row and per-record noise of relative size noise, and slow[i] for the rows
// made slower. Each record's samples spread ±0.5% around its median.
func synth(rng *rand.Rand, rows, count int, noise float64, slow map[int]float64) []record.Record {
	drift := 1 + noise*rng.NormFloat64()
	var recs []record.Record
	for i := range rows {
		bytes := int64(4<<20) * int64(i+1)
		row := drift * math.Exp(noise*rng.NormFloat64())
		if f, ok := slow[i]; ok {
			row *= f
		}
		for range count {
			t := float64(bytes) / 8e9 * row * math.Exp(noise/4*rng.NormFloat64())
			recs = append(recs, record.Record{Device: testDevice, Op: "AddFwd", Workload: fmt.Sprintf("w%03d", i), DType: "float32",
				Roof: "vector.fp32", Flops: bytes / 12, Bytes: bytes, Seconds: t, MinSeconds: t * 0.995, MaxSeconds: t * 1.005, Iters: 10})
		}
	}
	return recs
}

func profile() *history.Profile {
	return &history.Profile{Name: "test", Source: "test.yaml", Text: []byte(testProfile)}
}

func open(t testing.TB, dsn string, create bool) *history.Store {
	t.Helper()
	s, err := history.Open(context.Background(), dsn, create)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func add(t testing.TB, s *history.Store, recs []record.Record, commit string) (int64, bool) {
	t.Helper()
	meta := &history.Run{Time: time.Now(), Commit: commit, Host: "test", Version: "test", Command: "test"}
	id, added, err := s.Add(context.Background(), meta, recs, profile())
	if err != nil {
		t.Fatal(err)
	}
	return id, added
}

func TestMigrationsNumbered(t *testing.T) {
	if v := history.SchemaVersion(); v < 1 {
		t.Fatalf("SchemaVersion = %d: the embedded migrations do not load", v)
	}
}

func TestAddStoresTheRunWholeAndOnce(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		ctx := context.Background()
		s := open(t, db.DSN, true)
		recs := synth(rand.New(rand.NewPCG(1, 2)), 5, 2, 0.02, nil)
		recs[0].RefRate, recs[0].RefRateLow, recs[0].RefRateHigh = 7e9, 6.5e9, 7.5e9
		recs = append(recs, record.Record{Device: testDevice, Op: record.RefCopy, Workload: record.RefStart, DType: "float32",
			Roof: "hbm", Bytes: 1 << 20, Seconds: 1.2e-4, Iters: 5})
		id, added := add(t, s, recs, "abc123")
		if !added || id < 1 {
			t.Fatalf("first add: id %d, added %v", id, added)
		}
		again, added := add(t, s, recs, "other")
		if added || again != id {
			t.Errorf("the same records again: id %d added %v, want run %d, not added", again, added, id)
		}
		other, added := add(t, s, synth(rand.New(rand.NewPCG(3, 4)), 5, 2, 0.02, nil), "def456")
		if !added || other == id {
			t.Errorf("other records: id %d added %v, want a new run", other, added)
		}
		runs, err := s.Runs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 {
			t.Fatalf("%d runs, want 2: %+v", len(runs), runs)
		}
		r := runs[0]
		if r.ID != id || r.Commit != "abc123" || r.Device != testDevice || r.Rows != 5 || r.Records != len(recs) || r.Profile != "test" {
			t.Errorf("run %+v: want id %d, commit abc123, device %q, 5 rows, %d records, profile test", r, id, testDevice, len(recs))
		}
		got, err := s.Records(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[id]) != len(recs) {
			t.Fatalf("%d records back, want %d", len(got[id]), len(recs))
		}
		for i := range recs {
			want := recs[i]
			want.Pos = diag.Pos{File: fmt.Sprintf("run %d", id), Line: i + 1}
			if !reflect.DeepEqual(got[id][i], want) {
				t.Errorf("record %d back as\n%+v\nwant\n%+v", i, got[id][i], want)
			}
		}
		p, err := s.Profile(ctx, &r)
		if err != nil || p == nil || string(p.Text) != testProfile {
			t.Errorf("the run's profile: %+v, %v; want its text as added", p, err)
		}
	})
}

func TestAddRefusesSeveralDevices(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "h.db"), true)
	recs := synth(rand.New(rand.NewPCG(1, 2)), 2, 1, 0.02, nil)
	recs[1].Device = "NVIDIA H200"
	_, _, err := s.Add(context.Background(), &history.Run{}, recs, nil)
	if err == nil || !strings.Contains(err.Error(), "2 devices") {
		t.Errorf("records of two devices: %v, want refused", err)
	}
	if runs, _ := s.Runs(context.Background()); len(runs) != 0 {
		t.Errorf("%d runs stored", len(runs))
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		s := open(t, db.DSN, true)
		s.Close()
		raw := rawDB(t, db)
		if _, err := raw.Exec("INSERT INTO ropgen_schema (version, applied_at, ropgen) VALUES ($1, 'later', 'a newer ropgen')", history.SchemaVersion()+1); err != nil {
			t.Fatal(err)
		}
		_, err := history.Open(context.Background(), db.DSN, true)
		want := fmt.Sprintf("schema is version %d, written by a newer ropgen", history.SchemaVersion()+1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a newer schema: %v, want %q", err, want)
		}
	})
}

// rawDB opens the test database without the store, as another program would.
func rawDB(t *testing.T, db historytest.DB) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", db.DSN
	if history.IsURL(db.DSN) {
		driver = "pgx"
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

// TestForeignFilesRefusedUntouched: a file that is not a history is refused with a clear
// error, and is byte for byte what it was.
func TestForeignFilesRefusedUntouched(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("my notes: nothing to do with ropgen\n"), 0o644)
	corrupt := filepath.Join(dir, "corrupt.db")
	os.WriteFile(corrupt, append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xA5}, 4000)...), 0o644)
	other := filepath.Join(dir, "other.db")
	raw, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL); INSERT INTO invoices (amount) VALUES (12.5)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, c := range []struct{ file, want string }{
		{text, "not a SQLite database"},
		{corrupt, "not a readable SQLite database"},
		{other, "a SQLite database of another program (tables invoices)"},
	} {
		before := digestFile(t, c.file)
		for _, create := range []bool{true, false} {
			_, err := history.Open(context.Background(), c.file, create)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refusing") {
				t.Errorf("%s: %v, want %q and a refusal", filepath.Base(c.file), err, c.want)
			}
		}
		if digestFile(t, c.file) != before {
			t.Errorf("%s: changed by an open that refused it", filepath.Base(c.file))
		}
		for _, side := range []string{"-wal", "-shm", "-journal"} {
			if _, err := os.Stat(c.file + side); err == nil {
				t.Errorf("%s: left %s beside it", filepath.Base(c.file), side)
			}
		}
	}
}

func digestFile(t *testing.T, name string) [32]byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestMissingHistoryNotCreated(t *testing.T) {
	name := filepath.Join(t.TempDir(), "sub", "h.db")
	_, err := history.Open(context.Background(), name, false)
	if err == nil || !strings.Contains(err.Error(), "no history database") {
		t.Errorf("a missing database to read: %v, want no history", err)
	}
	if _, err := os.Stat(filepath.Dir(name)); err == nil {
		t.Errorf("reading a missing history created %s", filepath.Dir(name))
	}
}

func TestPasswordNeverShown(t *testing.T) {
	const secret = "s3cr3t-Pa55"
	for _, dsn := range []string{
		"postgres://ropgen:" + secret + "@127.0.0.1:1/history?connect_timeout=2",
		"postgresql://ropgen@127.0.0.1:1/history?password=" + secret + "&connect_timeout=2",
	} {
		_, err := history.Open(context.Background(), dsn, true)
		if err == nil {
			t.Fatalf("%s: opened a server on port 1", history.Redact(dsn))
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows the password: %v", err)
		}
		if r := history.Redact(dsn); strings.Contains(r, secret) || !strings.Contains(r, "xxxxx") {
			t.Errorf("Redact(%q) = %q", dsn, r)
		}
	}
}

// TestConcurrentWriters: 8 adds at once, each from a store of its own (its own connections,
// as 8 processes have), into a new database: every run lands once, whole, and the one run
// they all also add is stored once.
func TestConcurrentWriters(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		const writers = 8
		shared := synth(rand.New(rand.NewPCG(99, 99)), 50, 1, 0.02, nil)
		var wg sync.WaitGroup
		errs := make(chan error, 2*writers)
		ids := make([]int64, writers)
		for w := range writers {
			wg.Go(func() {
				s, err := history.Open(context.Background(), db.DSN, true)
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				for _, recs := range [][]record.Record{synth(rand.New(rand.NewPCG(uint64(w), 1)), 200, 1, 0.02, nil), shared} {
					id, _, err := s.Add(context.Background(), &history.Run{Time: time.Now(), Command: "writer " + strconv.Itoa(w)}, recs, profile())
					if err != nil {
						errs <- err
					}
					if len(recs) == 200 {
						ids[w] = id
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		checkWhole(t, db.DSN, writers+1)
	})
}

// checkWhole checks that the history holds want runs, each with every record it counts, and
// no record of a run it does not hold.
func checkWhole(t *testing.T, dsn string, want int) {
	t.Helper()
	s := open(t, dsn, false)
	runs, err := s.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want >= 0 && len(runs) != want {
		t.Errorf("%d runs, want %d", len(runs), want)
	}
	recs, err := s.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	held := map[int64]bool{}
	for _, r := range runs {
		held[r.ID] = true
		if n := len(recs[r.ID]); n != r.Records {
			t.Errorf("run %d: %d records stored of the %d it counts", r.ID, n, r.Records)
		}
	}
	for id := range recs {
		if !held[id] {
			t.Errorf("%d records of run %d, which the history does not hold", len(recs[id]), id)
		}
	}
}

// TestKillDuringAdd kills (SIGKILL) a process that adds large runs one after another, at
// moments spread over one add's duration: every run the history then holds is whole, and the
// run being added is absent.
func TestKillDuringAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the kill test takes seconds")
	}
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		for i, frac := range []float64{0.1, 0.35, 0.6, 0.85} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestAddHelperProcess$")
			cmd.Env = append(os.Environ(), "ROPGEN_TEST_HISTORY_ADD="+db.DSN, fmt.Sprintf("ROPGEN_TEST_HISTORY_SEED=%d", i))
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The helper prints how long each add took; the kill lands at frac of that into
			// the next one.
			var took time.Duration
			if _, err := fmt.Fscan(stdout, &took); err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the helper added no run: %v\n%s", err, stderr.String())
			}
			time.Sleep(time.Duration(frac * float64(took)))
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			s := open(t, db.DSN, false)
			runs, _ := s.Runs(context.Background())
			s.Close()
			t.Logf("killed %.0f%% into an add (one takes %v): %d runs held", 100*frac, took.Round(time.Millisecond), len(runs))
			checkWhole(t, db.DSN, -1)
		}
	})
}

// TestAddHelperProcess is the process TestKillDuringAdd kills: it adds runs of 20,000
// records until it is.
func TestAddHelperProcess(t *testing.T) {
	dsn := os.Getenv("ROPGEN_TEST_HISTORY_ADD")
	if dsn == "" {
		t.Skip("the helper of TestKillDuringAdd")
	}
	seed, _ := strconv.Atoi(os.Getenv("ROPGEN_TEST_HISTORY_SEED"))
	s, err := history.Open(context.Background(), dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		recs := synth(rand.New(rand.NewPCG(uint64(seed), uint64(i))), 2000, 5, 0.02, nil)
		began := time.Now()
		if _, _, err := s.Add(context.Background(), &history.Run{Time: time.Now()}, recs, profile()); err != nil {
			t.Fatal(err)
		}
		fmt.Println(time.Since(began).Nanoseconds())
	}
}

// TestRecordsReadBack: a run's records read back as added, every field the record format
// carries but the position (same-time references and probes included), whether they are read
// from the run's timings or, for a run stored before its schema kept them, from its records;
// a row filter keeps the same records either way.
func TestRecordsReadBack(t *testing.T) {
	historytest.Each(t, func(t *testing.T, db historytest.DB) {
		ctx := context.Background()
		s := open(t, db.DSN, true)
		recs := synth(rand.New(rand.NewPCG(3, 3)), 30, 2, 0.03, nil)
		for i := range recs {
			r := &recs[i]
			r.RefRate, r.RefRateLow, r.RefRateHigh = 1e10+float64(i), 0.9e10, 1.1e10
			r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh = 1e11+float64(i), 0.8e11, 1.2e11
		}
		id, _ := add(t, s, recs, "c")
		check := func(how string) {
			t.Helper()
			got, err := s.Records(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(got[id]) != len(recs) {
				t.Fatalf("%s: %d records, want %d", how, len(got[id]), len(recs))
			}
			for i, r := range got[id] {
				if r.Pos != (diag.Pos{File: fmt.Sprintf("run %d", id), Line: i + 1}) {
					t.Errorf("%s: record %d at %v", how, i+1, r.Pos)
				}
				r.Pos = recs[i].Pos
				if !reflect.DeepEqual(r, recs[i]) {
					t.Errorf("%s: record %d reads back as\n%+v\nwant\n%+v", how, i+1, r, recs[i])
				}
			}
			series, _, err := s.Series(ctx, history.Filter{Workload: regexp.MustCompile(`^w00[37]$`)})
			if err != nil || len(series) != 2 || len(series[0].Points) != 1 {
				t.Errorf("%s: a row filter: %d series, %v", how, len(series), err)
			}
		}
		check("from the run's timings")
		raw, err := sql.Open(map[bool]string{true: "pgx", false: "sqlite"}[history.IsURL(db.DSN)], db.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec("DELETE FROM ropgen_timings"); err != nil {
			t.Fatal(err)
		}
		check("from its records")
	})
}
