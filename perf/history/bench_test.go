package history_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/history"
	"github.com/ropgen/ropgen/perf/history/historytest"
)

// benchRows is the size of a run in the benchmarks: 200 rows, one record each, as a make run
// of the quick subset and the judged rows has.
const benchRows = 200

// BenchmarkAdd is one add of a 200-row run (each iteration new records, into a history that
// grows by one run an iteration).
func BenchmarkAdd(b *testing.B) {
	each(b, func(b *testing.B, dsn string) {
		s := open(b, dsn, true)
		rng := rand.New(rand.NewPCG(1, 1))
		recs := synth(rng, benchRows, 1, 0.03, nil)
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			recs[0].Iters = i + 1 // new records: a new run
			if _, added, err := s.Add(context.Background(), &history.Run{Time: time.Now()}, recs, profile()); err != nil || !added {
				b.Fatal(added, err)
			}
		}
	})
}

// scales are the history sizes the read benchmarks run at: how their cost grows with the
// number of runs.
var scales = []int{100, 1000}

// BenchmarkShow is history show over every row of a history of N runs of 200 rows.
func BenchmarkShow(b *testing.B) {
	for _, n := range scales {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			each(b, func(b *testing.B, dsn string) {
				s := bigHistory(b, dsn, n)
				for b.Loop() {
					series, _, err := s.Series(context.Background(), history.Filter{})
					if err != nil || len(series) != benchRows || len(series[0].Points) != n {
						b.Fatal(len(series), err)
					}
				}
			})
		})
	}
}

// BenchmarkDiff is history diff of the last two runs of a history of N runs.
func BenchmarkDiff(b *testing.B) {
	for _, n := range scales {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			each(b, func(b *testing.B, dsn string) {
				s := bigHistory(b, dsn, n)
				for b.Loop() {
					a, c, _, err := s.Latest(context.Background())
					if err == nil {
						_, err = s.Diff(context.Background(), a, c, history.DefaultDiff)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkPage is history page of a history of N runs; it reports the page's size.
func BenchmarkPage(b *testing.B) {
	for _, n := range scales {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			each(b, func(b *testing.B, dsn string) {
				s := bigHistory(b, dsn, n)
				var buf bytes.Buffer
				for b.Loop() {
					buf.Reset()
					p, err := s.Page(context.Background(), history.Filter{})
					if err == nil {
						err = p.WriteHTML(&buf)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(buf.Len())/1e6, "MB/page")
			})
		})
	}
}

// each runs a benchmark against SQLite and, where the server is there, PostgreSQL.
func each(b *testing.B, f func(b *testing.B, dsn string)) {
	b.Run("SQLite", func(b *testing.B) { f(b, filepath.Join(b.TempDir(), "h.db")) })
	b.Run("PostgreSQL", func(b *testing.B) { f(b, historytest.Postgres(b).DSN) })
}

// bigHistory opens a database of n runs of benchRows rows at dsn. A SQLite history of each
// size is built once and copied for each benchmark: building a thousand runs takes longer
// than the benchmarks that read it.
func bigHistory(b *testing.B, dsn string, n int) *history.Store {
	b.Helper()
	if history.IsURL(dsn) {
		fill(b, dsn, n)
		return open(b, dsn, false)
	}
	built, ok := sqliteHistories[n]
	if !ok {
		dir, err := os.MkdirTemp("", "ropgen-history-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDirs = append(benchDirs, dir)
		built = filepath.Join(dir, "h.db")
		fill(b, built, n)
		sqliteHistories[n] = built
	}
	data, err := os.ReadFile(built)
	if err == nil {
		err = os.WriteFile(dsn, data, 0o644)
	}
	if err != nil {
		b.Fatal(err)
	}
	return open(b, dsn, false)
}

var (
	sqliteHistories = map[int]string{}
	benchDirs       []string
)

// fill adds n runs to a new database; closing it folds SQLite's write-ahead log into the
// file, so that a copy of the file holds every run.
func fill(b *testing.B, dsn string, n int) {
	s, err := history.Open(context.Background(), dsn, true)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		recs := synth(rand.New(rand.NewPCG(5, uint64(i))), benchRows, 1, 0.03, nil)
		if _, _, err := s.Add(context.Background(), &history.Run{Time: time.Now(), Commit: fmt.Sprint(i)}, recs, profile()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
