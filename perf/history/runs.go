package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// Run is what the history keeps about one run besides its records.
type Run struct {
	ID     int64     `json:"id"`
	Time   time.Time `json:"time"`
	Commit string    `json:"commit"`
	// Dirty says the working tree had changes the commit does not hold.
	Dirty   bool   `json:"dirty"`
	Device  string `json:"device"`
	Host    string `json:"host"`
	Load    string `json:"load"` // the host's load averages when the run was added
	Version string `json:"ropgen_version"`
	Command string `json:"command"`
	// Profile is the name of the profile the run was priced against; "" when none matched
	// its device.
	Profile string `json:"profile"`
	Rows    int    `json:"rows"`
	Records int    `json:"records"`
	Digest  string `json:"digest"`
	// profile is the profile's digest, the key of its text.
	profile sql.NullString
}

// Profile is a profile file as a run was priced against it.
type Profile struct {
	Name, Source string
	Text         []byte
}

// Digest returns the key a run of these records is stored under: the SHA-256 of their JSON
// lines, so the same records added twice are one run.
func Digest(recs []record.Record) (string, error) {
	var b bytes.Buffer
	w := record.NewJSONWriter(&b)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return "", err
		}
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// DeviceOf returns the one device of a run's records; records of several devices are an
// error, since a run is tagged with its device and compared with that device's runs.
func DeviceOf(recs []record.Record) (string, error) {
	var devices []string
	for i := range recs {
		if !slices.Contains(devices, recs[i].Device) {
			devices = append(devices, recs[i].Device)
		}
	}
	switch len(devices) {
	case 0:
		return "", fmt.Errorf("no records")
	case 1:
		return devices[0], nil
	}
	return "", fmt.Errorf("the records are of %d devices (%s): add each device's records as a run of its own", len(devices), strings.Join(devices, ", "))
}

// recordColumns are ropgen_records' columns after run and seq, in Add's order.
const recordColumns = "device, op, workload, dtype, roof, flops, bytes, seconds, min_seconds, max_seconds, iters, ref_rate, ref_rate_low, ref_rate_high"

const nRecordColumns = 2 + 14

// insertBatch is how many records one INSERT carries: a few statements for a run of
// hundreds of rows, within SQLite's limit of 32,766 parameters.
const insertBatch = 100

// Add stores a run: meta (its ID, Rows, Records and Digest are set here), its records and
// the profile it was priced against (nil: none), in one transaction, so that a process
// killed during Add leaves the run whole or absent. Records already stored as a run are not
// stored again: added is false and the ID is that run's.
func (s *Store) Add(ctx context.Context, meta *Run, recs []record.Record, prof *Profile) (id int64, added bool, err error) {
	device, err := DeviceOf(recs)
	if err != nil {
		return 0, false, err
	}
	meta.Device = device
	if meta.Digest, err = Digest(recs); err != nil {
		return 0, false, err
	}
	meta.Records = len(recs)
	meta.Rows = 0
	for _, g := range report.Group(recs) {
		if !g.IsReference() {
			meta.Rows++
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, s.errorf("add", err)
	}
	defer tx.Rollback()
	// Stored before: that run's id. (The insert below says so too, but PostgreSQL would spend
	// an id of its sequence on it, and run ids would skip.)
	switch err := tx.QueryRowContext(ctx, "SELECT id FROM ropgen_runs WHERE digest = $1", meta.Digest).Scan(&id); err {
	case nil:
		meta.ID = id
		return id, false, nil
	case sql.ErrNoRows:
	default:
		return 0, false, s.errorf("add", err)
	}
	var profDigest sql.NullString
	if prof != nil {
		sum := sha256.Sum256(prof.Text)
		profDigest = sql.NullString{String: hex.EncodeToString(sum[:]), Valid: true}
		if _, err := tx.ExecContext(ctx, "INSERT INTO ropgen_profiles (digest, name, source, text) VALUES ($1, $2, $3, $4) ON CONFLICT (digest) DO NOTHING",
			profDigest, prof.Name, prof.Source, string(prof.Text)); err != nil {
			return 0, false, s.errorf("add", err)
		}
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO ropgen_runs
	(digest, added_at, commit_rev, dirty, device, host, host_load, ropgen_version, command, profile, nrows, nrecords)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
	ON CONFLICT (digest) DO NOTHING RETURNING id`,
		meta.Digest, meta.Time.UTC().Format(time.RFC3339Nano), meta.Commit, meta.Dirty, meta.Device, meta.Host, meta.Load,
		meta.Version, meta.Command, profDigest, meta.Rows, meta.Records).Scan(&id)
	if err == sql.ErrNoRows {
		// Stored by a concurrent add that committed first: that run's id.
		if err := tx.QueryRowContext(ctx, "SELECT id FROM ropgen_runs WHERE digest = $1", meta.Digest).Scan(&id); err != nil {
			return 0, false, s.errorf("add", err)
		}
		meta.ID = id
		return id, false, nil
	}
	if err != nil {
		return 0, false, s.errorf("add", err)
	}
	for start := 0; start < len(recs); start += insertBatch {
		batch := recs[start:min(start+insertBatch, len(recs))]
		var q strings.Builder
		q.WriteString("INSERT INTO ropgen_records (run, seq, " + recordColumns + ") VALUES ")
		args := make([]any, 0, len(batch)*nRecordColumns)
		for i := range batch {
			r := &batch[i]
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteByte('(')
			for c := range nRecordColumns {
				if c > 0 {
					q.WriteString(", ")
				}
				fmt.Fprintf(&q, "$%d", len(args)+c+1)
			}
			q.WriteByte(')')
			args = append(args, id, start+i+1, r.Device, r.Op, r.Workload, r.DType, r.Roof, r.Flops, r.Bytes,
				r.Seconds, r.MinSeconds, r.MaxSeconds, r.Iters, r.RefRate, r.RefRateLow, r.RefRateHigh)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return 0, false, s.errorf("add", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, false, s.errorf("add", err)
	}
	meta.ID = id
	return id, true, nil
}

const runColumns = "r.id, r.digest, r.added_at, r.commit_rev, r.dirty, r.device, r.host, r.host_load, r.ropgen_version, r.command, r.profile, COALESCE(p.name, ''), r.nrows, r.nrecords"

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var at string
	err := sc.Scan(&r.ID, &r.Digest, &at, &r.Commit, &r.Dirty, &r.Device, &r.Host, &r.Load, &r.Version, &r.Command, &r.profile, &r.Profile, &r.Rows, &r.Records)
	if err != nil {
		return r, err
	}
	r.Time, err = time.Parse(time.RFC3339Nano, at)
	return r, err
}

// Runs returns every run, oldest first.
func (s *Store) Runs(ctx context.Context) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+runColumns+" FROM ropgen_runs r LEFT JOIN ropgen_profiles p ON p.digest = r.profile ORDER BY r.id")
	if err != nil {
		return nil, s.errorf("runs", err)
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, s.errorf("runs", err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("runs", err)
	}
	return runs, nil
}

// RunByID returns the run id; ok is false when there is none.
func (s *Store) RunByID(ctx context.Context, id int64) (r Run, ok bool, err error) {
	r, err = scanRun(s.db.QueryRowContext(ctx, "SELECT "+runColumns+" FROM ropgen_runs r LEFT JOIN ropgen_profiles p ON p.digest = r.profile WHERE r.id = $1", id))
	if err == sql.ErrNoRows {
		return r, false, nil
	}
	if err != nil {
		return r, false, s.errorf(fmt.Sprintf("run %d", id), err)
	}
	return r, true, nil
}

// Profile returns the text of the profile run r was priced against; nil when none.
func (s *Store) Profile(ctx context.Context, r *Run) (*Profile, error) {
	if !r.profile.Valid {
		return nil, nil
	}
	p := &Profile{}
	var text string
	if err := s.db.QueryRowContext(ctx, "SELECT name, source, text FROM ropgen_profiles WHERE digest = $1", r.profile.String).Scan(&p.Name, &p.Source, &text); err != nil {
		return nil, s.errorf("profile of run "+fmt.Sprint(r.ID), err)
	}
	p.Text = []byte(text)
	return p, nil
}

// Records returns the records of the runs ids (all runs when ids is empty), by run, each in
// the order it was added. Each record's Pos names its run and place ("run 12:5"), so that a
// message about it points into the history.
func (s *Store) Records(ctx context.Context, ids ...int64) (map[int64][]record.Record, error) {
	q := "SELECT run, seq, " + recordColumns + " FROM ropgen_records"
	args := make([]any, len(ids))
	if len(ids) > 0 {
		marks := make([]string, len(ids))
		for i, id := range ids {
			marks[i] = fmt.Sprintf("$%d", i+1)
			args[i] = id
		}
		q += " WHERE run IN (" + strings.Join(marks, ", ") + ")"
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY run, seq", args...)
	if err != nil {
		return nil, s.errorf("records", err)
	}
	defer rows.Close()
	out := map[int64][]record.Record{}
	names := map[string]string{} // one string per distinct name: 200,000 records name 200 rows
	intern := func(p *string) {
		if v, ok := names[*p]; ok {
			*p = v
		} else {
			names[*p] = *p
		}
	}
	for rows.Next() {
		var run int64
		var r record.Record
		if err := rows.Scan(&run, &r.Pos.Line, &r.Device, &r.Op, &r.Workload, &r.DType, &r.Roof, &r.Flops, &r.Bytes,
			&r.Seconds, &r.MinSeconds, &r.MaxSeconds, &r.Iters, &r.RefRate, &r.RefRateLow, &r.RefRateHigh); err != nil {
			return nil, s.errorf("records", err)
		}
		for _, p := range []*string{&r.Device, &r.Op, &r.Workload, &r.DType, &r.Roof} {
			intern(p)
		}
		r.Pos = diag.Pos{File: runFile(run), Line: r.Pos.Line}
		out[run] = append(out[run], r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("records", err)
	}
	return out, nil
}

// runFile is how a record's position names its run.
func runFile(id int64) string { return fmt.Sprintf("run %d", id) }
