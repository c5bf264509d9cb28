// Package historytest gives tests the databases a history is kept in: a SQLite file in a
// temporary directory, and a fresh schema of the PostgreSQL server that EnvURL names, so
// that one suite runs against both.
package historytest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// EnvURL names the environment variable with the URL of a PostgreSQL server the tests may
// create schemas in. make test sets it (scripts/with-postgres.sh starts a throwaway server);
// where it is unset the PostgreSQL cases are skipped, with a message that says so.
const EnvURL = "ROPGEN_TEST_PG_URL"

// DB is one database a test runs against.
type DB struct {
	Name string // "SQLite" or "PostgreSQL": the subtest's name
	DSN  string // a file path or a postgres:// URL
}

var schemas atomic.Int64

// Each runs f as a subtest against a new SQLite file and against a new schema of the
// PostgreSQL server, or skips that subtest saying why.
func Each(t *testing.T, f func(t *testing.T, db DB)) {
	t.Run("SQLite", func(t *testing.T) {
		f(t, DB{Name: "SQLite", DSN: filepath.Join(t.TempDir(), "history.db")})
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		f(t, Postgres(t))
	})
}

// Postgres returns a new, empty schema of the server EnvURL names, dropped when the test ends,
// or skips the test.
func Postgres(t testing.TB) DB {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skipf("%s is not set: the PostgreSQL cases are skipped (make test starts a throwaway server where PostgreSQL is installed: scripts/with-postgres.sh)", EnvURL)
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := fmt.Sprintf("t%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, schemas.Add(1))
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		db.ExecContext(context.Background(), "DROP SCHEMA "+name+" CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return DB{Name: "PostgreSQL", DSN: u.String()}
}
