package history

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
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
	Dirty  bool   `json:"dirty"`
	Device string `json:"device"`
	// Impl is the implementation its records time (record.Record.Impl): "" for ropgen's own
	// kernels, else the harness's name (as "torch").
	Impl    string `json:"impl"`
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

// Track names the runs a run is compared with, in a diff, a trend and a verdict's past: its
// device, and its implementation where it is not ropgen's own ("cpu: X (torch)").
func (r *Run) Track() string {
	if r.Impl == "" {
		return r.Device
	}
	return r.Device + " (" + r.Impl + ")"
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

// ImplOf returns the one implementation of a run's records ("" for ropgen's own kernels);
// records of several are an error, since a run is compared with the runs of its device and
// implementation only.
func ImplOf(recs []record.Record) (string, error) {
	var impls []string
	for i := range recs {
		if impl := recs[i].ImplName(); !slices.Contains(impls, impl) {
			impls = append(impls, impl)
		}
	}
	switch {
	case len(impls) > 1:
		return "", fmt.Errorf("the records are of %d implementations (%s): add each implementation's records as a run of its own", len(impls), strings.Join(impls, ", "))
	case len(impls) == 0 || impls[0] == record.DefaultImpl:
		return "", nil
	}
	return impls[0], nil
}

// rowColumns are ropgen_rows' columns after id; recordColumns ropgen_records'.
const (
	rowColumns    = "device, op, workload, dtype, roof, flops, bytes"
	recordColumns = "run, seq, row_id, seconds, min_seconds, max_seconds, iters, ref_rate, ref_rate_low, ref_rate_high, probe_rate, probe_rate_low, probe_rate_high"
)

// insertBatch is how many rows one INSERT carries: a few statements for a run of hundreds
// of rows, within SQLite's limit of 32,766 parameters.
const insertBatch = 100

// fullKey is everything that makes a record's row: two records of one row differ only in
// their timings.
type fullKey struct {
	device, op, workload, dtype, roof string
	flops, bytes                      int64
}

func fullKeyOf(r *record.Record) fullKey {
	return fullKey{r.Device, r.Op, r.Workload, r.DType, r.Roof, r.Flops, r.Bytes}
}

// insertValues inserts n rows of width columns in batches: args(i) gives row i's values.
func (s *Store) insertValues(ctx context.Context, tx *sql.Tx, head string, n, width int, args func(i int) []any) error {
	for start := 0; start < n; start += insertBatch {
		end := min(start+insertBatch, n)
		var q strings.Builder
		q.WriteString(head)
		q.WriteString(" VALUES ")
		vals := make([]any, 0, (end-start)*width)
		for i := start; i < end; i++ {
			if i > start {
				q.WriteString(", ")
			}
			q.WriteByte('(')
			for c := range width {
				if c > 0 {
					q.WriteString(", ")
				}
				if s.dialect == sqlite {
					// In order, so anonymous: the SQLite driver looks up every numbered
					// parameter's name in a list of all of them as it binds it, a cost
					// quadratic in a statement's parameters.
					q.WriteByte('?')
				} else {
					fmt.Fprintf(&q, "$%d", len(vals)+c+1)
				}
			}
			q.WriteByte(')')
			vals = append(vals, args(i)...)
		}
		if strings.HasPrefix(head, "INSERT INTO ropgen_rows") {
			q.WriteString(" ON CONFLICT DO NOTHING")
		}
		if _, err := tx.ExecContext(ctx, s.q(q.String()), vals...); err != nil {
			return err
		}
	}
	return nil
}

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
	if meta.Impl, err = ImplOf(recs); err != nil {
		return 0, false, err
	}
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
	switch err := tx.QueryRowContext(ctx, s.q("SELECT id FROM ropgen_runs WHERE digest = $1"), meta.Digest).Scan(&id); err {
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
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO ropgen_profiles (digest, name, source, text) VALUES ($1, $2, $3, $4) ON CONFLICT (digest) DO NOTHING"),
			profDigest, prof.Name, prof.Source, string(prof.Text)); err != nil {
			return 0, false, s.errorf("add", err)
		}
	}
	err = tx.QueryRowContext(ctx, s.q(`INSERT INTO ropgen_runs
	(digest, added_at, commit_rev, dirty, device, impl, host, host_load, ropgen_version, command, profile, nrows, nrecords)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
	ON CONFLICT (digest) DO NOTHING RETURNING id`),
		meta.Digest, meta.Time.UTC().Format(time.RFC3339Nano), meta.Commit, meta.Dirty, meta.Device, meta.Impl, meta.Host, meta.Load,
		meta.Version, meta.Command, profDigest, meta.Rows, meta.Records).Scan(&id)
	if err == sql.ErrNoRows {
		// Stored by a concurrent add that committed first: that run's id.
		if err := tx.QueryRowContext(ctx, s.q("SELECT id FROM ropgen_runs WHERE digest = $1"), meta.Digest).Scan(&id); err != nil {
			return 0, false, s.errorf("add", err)
		}
		meta.ID = id
		return id, false, nil
	}
	if err != nil {
		return 0, false, s.errorf("add", err)
	}
	// The rows, each stored once for every run that times it; sorted, so that concurrent adds
	// of overlapping rows take their locks in one order (PostgreSQL would else deadlock two).
	var keys []fullKey
	seen := map[fullKey]bool{}
	for i := range recs {
		if k := fullKeyOf(&recs[i]); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b fullKey) int {
		return cmp.Or(cmp.Compare(a.op, b.op), cmp.Compare(a.workload, b.workload), cmp.Compare(a.dtype, b.dtype),
			cmp.Compare(a.roof, b.roof), cmp.Compare(a.flops, b.flops), cmp.Compare(a.bytes, b.bytes))
	})
	err = s.insertValues(ctx, tx, "INSERT INTO ropgen_rows ("+rowColumns+")", len(keys), 7, func(i int) []any {
		k := &keys[i]
		return []any{k.device, k.op, k.workload, k.dtype, k.roof, k.flops, k.bytes}
	})
	if err != nil {
		return 0, false, s.errorf("add", err)
	}
	rowIDs, err := s.rowIDs(ctx, tx, device)
	if err != nil {
		return 0, false, s.errorf("add", err)
	}
	err = s.insertValues(ctx, tx, "INSERT INTO ropgen_records ("+recordColumns+")", len(recs), 13, func(i int) []any {
		r := &recs[i]
		return []any{id, i + 1, rowIDs[fullKeyOf(r)], r.Seconds, r.MinSeconds, r.MaxSeconds, r.Iters, r.RefRate, r.RefRateLow, r.RefRateHigh,
			r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh}
	})
	if err != nil {
		return 0, false, s.errorf("add", err)
	}
	if _, err := tx.ExecContext(ctx, s.q("INSERT INTO ropgen_timings (run, timings) VALUES ($1, $2)"), id, encodeTimings(recs, rowIDs)); err != nil {
		return 0, false, s.errorf("add", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, false, s.errorf("add", err)
	}
	meta.ID = id
	return id, true, nil
}

const runColumns = "r.id, r.digest, r.added_at, r.commit_rev, r.dirty, r.device, r.impl, r.host, r.host_load, r.ropgen_version, r.command, r.profile, COALESCE(p.name, ''), r.nrows, r.nrecords"

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var at string
	err := sc.Scan(&r.ID, &r.Digest, &at, &r.Commit, &r.Dirty, &r.Device, &r.Impl, &r.Host, &r.Load, &r.Version, &r.Command, &r.profile, &r.Profile, &r.Rows, &r.Records)
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
	r, err = scanRun(s.db.QueryRowContext(ctx, s.q("SELECT "+runColumns+" FROM ropgen_runs r LEFT JOIN ropgen_profiles p ON p.digest = r.profile WHERE r.id = $1"), id))
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
	if err := s.db.QueryRowContext(ctx, s.q("SELECT name, source, text FROM ropgen_profiles WHERE digest = $1"), r.profile.String).Scan(&p.Name, &p.Source, &text); err != nil {
		return nil, s.errorf("profile of run "+fmt.Sprint(r.ID), err)
	}
	p.Text = []byte(text)
	return p, nil
}

// rowIDs returns the ids of the rows of device.
func (s *Store) rowIDs(ctx context.Context, tx *sql.Tx, device string) (map[fullKey]int64, error) {
	rows, err := tx.QueryContext(ctx, s.q("SELECT id, "+rowColumns+" FROM ropgen_rows WHERE device = $1"), device)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[fullKey]int64{}
	for rows.Next() {
		var id int64
		var k fullKey
		if err := rows.Scan(&id, &k.device, &k.op, &k.workload, &k.dtype, &k.roof, &k.flops, &k.bytes); err != nil {
			return nil, err
		}
		ids[k] = id
	}
	return ids, rows.Err()
}

// Records returns the records of the runs ids (all runs when ids is empty), by run, each in
// the order it was added. Each record's Pos names its run and place ("run 12:5"), so that a
// message about it points into the history.
func (s *Store) Records(ctx context.Context, ids ...int64) (map[int64][]record.Record, error) {
	return s.records(ctx, ids, nil)
}

// maxRowFilter is the most row ids records names in its statement; a filter that keeps more
// rows is applied as the records are read.
const maxRowFilter = 500

// records is Records of the rows keep keeps (nil: all).
func (s *Store) records(ctx context.Context, ids []int64, keep func(*record.Record) bool) (map[int64][]record.Record, error) {
	// The rows first, then the records' timings alone: a thousand runs are 200,000 records
	// of a few hundred rows, and their names are read once.
	rows, err := s.db.QueryContext(ctx, "SELECT id, "+rowColumns+" FROM ropgen_rows")
	if err != nil {
		return nil, s.errorf("records", err)
	}
	byID := map[int64]*record.Record{}
	for rows.Next() {
		var id int64
		r := new(record.Record)
		if err := rows.Scan(&id, &r.Device, &r.Op, &r.Workload, &r.DType, &r.Roof, &r.Flops, &r.Bytes); err != nil {
			rows.Close()
			return nil, s.errorf("records", err)
		}
		byID[id] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.errorf("records", err)
	}
	var kept []int64
	if keep != nil {
		for id, r := range byID {
			if keep(r) {
				kept = append(kept, id)
			}
		}
		if len(kept) == len(byID) {
			keep = nil // every row: nothing to filter
		}
	}
	out := map[int64][]record.Record{}
	// The runs' timings first, one value a run; the runs stored without (before schema 3)
	// from their records.
	var args []any
	in := func(col string, vals []int64) string {
		marks := make([]string, len(vals))
		for i, v := range vals {
			args = append(args, v)
			marks[i] = fmt.Sprintf("$%d", len(args))
		}
		return col + " IN (" + strings.Join(marks, ", ") + ")"
	}
	q := "SELECT r.id, r.impl, t.timings FROM ropgen_runs r LEFT JOIN ropgen_timings t ON t.run = r.id"
	if len(ids) > 0 {
		q += " WHERE " + in("r.id", ids)
	}
	rows, err = s.db.QueryContext(ctx, s.q(q+" ORDER BY r.id"), args...)
	if err != nil {
		return nil, s.errorf("records", err)
	}
	var old []int64 // runs without timings
	impls := map[int64]string{}
	var cur []record.Record
	for rows.Next() {
		var run int64
		var impl string
		var blob []byte
		if err := rows.Scan(&run, &impl, &blob); err != nil {
			rows.Close()
			return nil, s.errorf("records", err)
		}
		if blob == nil {
			old = append(old, run)
			impls[run] = impl
			continue
		}
		cur, err = decodeTimings(make([]record.Record, 0, max(len(cur), 16)), blob, run, byID, keep)
		if err != nil {
			rows.Close()
			return nil, s.errorf("records", err)
		}
		for i := range cur {
			cur[i].Impl = impl
		}
		if len(cur) > 0 {
			out[run] = cur
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.errorf("records", err)
	}
	if len(old) == 0 {
		return out, nil
	}
	args = args[:0]
	q = "SELECT " + recordColumns + " FROM ropgen_records WHERE " + in("run", old)
	if keep != nil && len(kept) <= maxRowFilter {
		// A filter that keeps few rows (show -op X) reads only their records.
		q += " AND " + in("row_id", append(kept, 0)) // 0: no row, so never an empty list
	}
	rows, err = s.db.QueryContext(ctx, s.q(q+" ORDER BY run, seq"), args...)
	if err != nil {
		return nil, s.errorf("records", err)
	}
	defer rows.Close()
	var file string
	var fileRun int64
	cur = nil // fileRun's records
	// Scanned into plain values, not a record: a record is a large struct, and zeroing one
	// per row of a thousand runs cost as much as the scan.
	var run, row int64
	var seq, iters int
	var sec, lo, hi, rate, rateLo, rateHi, probe, probeLo, probeHi float64
	for rows.Next() {
		if err := rows.Scan(&run, &seq, &row, &sec, &lo, &hi, &iters, &rate, &rateLo, &rateHi, &probe, &probeLo, &probeHi); err != nil {
			return nil, s.errorf("records", err)
		}
		w := byID[row]
		if w == nil {
			return nil, s.errorf("records", fmt.Errorf("run %d record %d: no row %d", run, seq, row))
		}
		if keep != nil && !keep(w) {
			continue
		}
		if run != fileRun || file == "" {
			if cur != nil {
				out[fileRun] = cur
			}
			// The runs of a history are mostly one size: the last one's is the next one's
			// capacity, so that a run's records are not grown by copying.
			cur = make([]record.Record, 0, max(len(cur), 16))
			file, fileRun = runFile(run), run
		}
		cur = append(cur, *w)
		r := &cur[len(cur)-1]
		r.Seconds, r.MinSeconds, r.MaxSeconds, r.Iters = sec, lo, hi, iters
		r.RefRate, r.RefRateLow, r.RefRateHigh = rate, rateLo, rateHi
		r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh = probe, probeLo, probeHi
		r.Impl = impls[run]
		r.Pos = diag.Pos{File: file, Line: seq}
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("records", err)
	}
	if cur != nil {
		out[fileRun] = cur
	}
	return out, nil
}

// timingsVersion is the first byte of a run's timings: the encoding, one record after the
// other in the run's order, each its row id, its iterations (int64s) and its 10 times and
// rates (float64s: seconds, min, max, ref rate, low, high, probe rate, low, high, and a
// spare 0), little-endian.
const (
	timingsVersion = 1
	timingsRecord  = 2*8 + 10*8
)

// encodeTimings is recs' timings, their rows' ids from rowIDs.
func encodeTimings(recs []record.Record, rowIDs map[fullKey]int64) []byte {
	b := make([]byte, 1, 1+len(recs)*timingsRecord)
	b[0] = timingsVersion
	for i := range recs {
		r := &recs[i]
		b = binary.LittleEndian.AppendUint64(b, uint64(rowIDs[fullKeyOf(r)]))
		b = binary.LittleEndian.AppendUint64(b, uint64(int64(r.Iters)))
		for _, f := range [...]float64{r.Seconds, r.MinSeconds, r.MaxSeconds, r.RefRate, r.RefRateLow, r.RefRateHigh,
			r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh, 0} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		}
	}
	return b
}

// decodeTimings appends run's records that keep keeps (nil: all) to out, read from its
// timings b and the rows byID.
func decodeTimings(out []record.Record, b []byte, run int64, byID map[int64]*record.Record, keep func(*record.Record) bool) ([]record.Record, error) {
	if len(b) == 0 || b[0] != timingsVersion || (len(b)-1)%timingsRecord != 0 {
		return out, fmt.Errorf("run %d: its timings are in no encoding this ropgen reads (%d bytes)", run, len(b))
	}
	file := runFile(run)
	for seq, off := 1, 1; off < len(b); seq, off = seq+1, off+timingsRecord {
		u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[off+8*i:]) }
		f := func(i int) float64 { return math.Float64frombits(u(2 + i)) }
		row := int64(u(0))
		w := byID[row]
		if w == nil {
			return out, fmt.Errorf("run %d record %d: no row %d", run, seq, row)
		}
		if keep != nil && !keep(w) {
			continue
		}
		out = append(out, *w)
		r := &out[len(out)-1]
		r.Iters = int(int64(u(1)))
		r.Seconds, r.MinSeconds, r.MaxSeconds = f(0), f(1), f(2)
		r.RefRate, r.RefRateLow, r.RefRateHigh = f(3), f(4), f(5)
		r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh = f(6), f(7), f(8)
		r.Pos = diag.Pos{File: file, Line: seq}
	}
	return out, nil
}

// runFile is how a record's position names its run.
func runFile(id int64) string { return fmt.Sprintf("run %d", id) }
