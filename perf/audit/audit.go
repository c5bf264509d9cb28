// Package audit is the bytes audit of docs/model.md §9: it compares each benchmark record's formula
// bytes (the minimum traffic: every input read once, every output written once) with traffic
// measured independently, by hardware counters (Nsight Compute, ncu.go) or by a cache
// simulation (valgrind, cachesim.go), and gives each row a verdict.
//
// One rule judges every row (rule.go, Judge): measured below the formula is an overcount;
// measured above a formula that counts less than the tensors' stored footprint is an
// undercount; measured above a formula that counts the footprint is the kernel's own extra
// traffic, a WARN. A measurement that is missing or empty is an ERROR: a broken audit, never
// a verdict.
//
// The package reads files only; it never instantiates an op or evaluates a formula.
package audit

import (
	"fmt"
	"math"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/record"
)

// DefaultEps is the default tolerance ε below the formula before a row fails.
//
// Measured traffic can fall below the minimum only by what a measurement misses. On a GPU,
// output lines still dirty in L2 when the call's last kernel ends are written back after
// the measured range and never counted: at most the L2 size, so under 10% of the total once
// a call moves ten times its L2 or more (smaller calls belong on the read side). On the CPU
// cache simulation, every line the call touches misses once in a cold cache, and what
// remains is run-to-run noise of the Go runtime, within a few percent. 10% absorbs both and
// still fails every formula that counts one tensor too many in an op moving up to nine
// tensors of equal size (an extra tensor is ≥ 11% of such a formula), a doubled elem_bytes
// (50%) and a broadcast operand counted at its broadcast size (33% in a binary op).
const DefaultEps = 0.10

// Verdict is the outcome of auditing one row.
type Verdict string

// The verdicts of docs/model.md §9.
const (
	Pass  Verdict = "PASS"
	Warn  Verdict = "WARN"
	Fail  Verdict = "FAIL"
	Error Verdict = "ERROR"
)

// Metric names of the two Nsight Compute counters the audit reads.
const (
	MetricRead  = "dram__bytes_read.sum"
	MetricWrite = "dram__bytes_write.sum"
)

// RangeName is the name that ties measured traffic to a record: the NVTX range a GPU harness
// pushes around the one profiled call (and that `ncu --print-nvtx-rename kernel` writes into
// the Kernel Name column), and the key of a cache simulation run. Record fields contain no
// '/' (the NVTX range-stack separator of --nvtx-include) and no space, so the name is one
// token for ncu filters and shells alike.
func RangeName(op, workload, dtype string) string {
	return op + ":" + workload + ":" + dtype
}

// Count is one measured byte count; Missing says why it is unknown (then Bytes means nothing).
type Count struct {
	Bytes   int64  `json:"bytes"`
	Missing string `json:"missing,omitempty"`
}

// add adds c2 to c, keeping the first reason a count is missing.
func (c *Count) add(c2 Count) {
	switch {
	case c.Missing != "":
	case c2.Missing != "":
		c.Missing = c2.Missing
	case c.Bytes > math.MaxInt64-c2.Bytes:
		c.Missing = "byte count overflows int64"
	default:
		c.Bytes += c2.Bytes
	}
}

// Measured is the traffic of one op call: all its kernel launches summed (ncu), or one
// simulated call (cache simulation).
type Measured struct {
	Name     string   // RangeName of the call
	Pos      diag.Pos // where the measurement starts in its file
	Launches int      // kernel launches (ncu) or calls (simulation) summed; 0: empty range
	Reads    Count
	Writes   Count
}

// Options are the audit's knobs.
type Options struct {
	// Eps is the tolerance ε below the formula; see DefaultEps.
	Eps float64
	// Reads audits the read side only: measured reads against the formula's read bytes, for
	// kernels whose writes stay dirty in L2 and are undercounted.
	Reads bool
	// OutputBytes returns the bytes of a record's outputs; the formula's read bytes are its
	// bytes minus those (the formula counts every output written once). Needed with Reads.
	OutputBytes func(record.Record) (int64, error)
	// Footprint returns the stored footprint of a record's tensors (ManifestFootprint), the
	// floor that tells an undercount from a kernel's own extra traffic. Nil: unknown, and a
	// row above its formula is a WARN that says it cannot tell.
	Footprint func(record.Record) (manifest.Footprint, error)
}

// Row is the audit of one record.
type Row struct {
	Op       string  `json:"op"`
	Workload string  `json:"workload"`
	DType    string  `json:"dtype"`
	Side     string  `json:"side"`     // "total" or "reads"
	Formula  int64   `json:"formula"`  // formula bytes on the audited side
	Measured int64   `json:"measured"` // measured bytes on the audited side; 0 on ERROR
	Ratio    float64 `json:"ratio"`    // Measured / Formula; 0 on ERROR
	Launches int     `json:"launches"`
	Verdict  Verdict `json:"verdict"`
	Note     string  `json:"note,omitempty"` // why the row is an ERROR, or what it measured
	// Record is where the record was read; Source is where its measurement starts.
	Record diag.Pos `json:"record"`
	Source diag.Pos `json:"source"`
}

// Result is a whole audit: one row per record, in record order, and the measured calls that
// no record claims (a mistyped range name, or a profiled call whose record is missing).
type Result struct {
	Rows      []Row      `json:"rows"`
	Unclaimed []Measured `json:"unclaimed,omitempty"`
}

// Failed reports whether any row is a FAIL or an ERROR.
func (r *Result) Failed() bool {
	for _, row := range r.Rows {
		if row.Verdict == Fail || row.Verdict == Error {
			return true
		}
	}
	return false
}

// Audit audits every record against the measured call of the same RangeName. A record with no
// measured call, or whose measurement lacks a metric, is an ERROR row; so is a record
// measured twice (two ranges of one name: the sum would count two calls).
func Audit(recs []record.Record, measured []Measured, opt Options) Result {
	byName := map[string][]Measured{}
	for _, m := range measured {
		byName[m.Name] = append(byName[m.Name], m)
	}
	var res Result
	claimed := map[string]bool{}
	for _, rec := range recs {
		name := RangeName(rec.Op, rec.Workload, rec.DType)
		claimed[name] = true
		res.Rows = append(res.Rows, auditRow(rec, byName[name], opt))
	}
	for _, m := range measured {
		if !claimed[m.Name] {
			res.Unclaimed = append(res.Unclaimed, m)
		}
	}
	return res
}

func auditRow(rec record.Record, ms []Measured, opt Options) Row {
	row := Row{Op: rec.Op, Workload: rec.Workload, DType: rec.DType, Side: "total", Formula: rec.Bytes, Record: rec.Pos}
	if opt.Reads {
		row.Side = "reads"
	}
	fail := func(format string, args ...any) Row {
		row.Verdict, row.Note = Error, fmt.Sprintf(format, args...)
		return row
	}
	name := RangeName(rec.Op, rec.Workload, rec.DType)
	switch len(ms) {
	case 0:
		return fail("no measured call named %q", name)
	case 1:
	default:
		return fail("measured %d times (first at %s, then %s): profile one call per range", len(ms), ms[0].Pos, ms[1].Pos)
	}
	m := ms[0]
	row.Source, row.Launches = m.Pos, m.Launches
	if m.Launches == 0 {
		return fail("empty range: no kernel launch or instruction measured")
	}
	var got int64
	if opt.Reads {
		if m.Reads.Missing != "" {
			return fail("%s", m.Reads.Missing)
		}
		if opt.OutputBytes == nil {
			return fail("read side: no source of output sizes given")
		}
		out, err := opt.OutputBytes(rec)
		if err != nil {
			return fail("read bytes unknown: %v", err)
		}
		if out > rec.Bytes {
			return fail("output bytes %d exceed the formula's %d: the formula cannot count every output once", out, rec.Bytes)
		}
		row.Formula, got = rec.Bytes-out, m.Reads.Bytes
	} else {
		total := m.Reads
		total.add(m.Writes)
		if total.Missing != "" {
			return fail("%s", total.Missing)
		}
		got = total.Bytes
	}
	if row.Formula <= 0 {
		return fail("formula bytes are %d: nothing to compare with", row.Formula)
	}
	row.Measured = got
	row.Ratio = float64(got) / float64(row.Formula)
	floor := UnknownFloor("no manifest to take the tensors' sizes from")
	if opt.Footprint != nil {
		if fp, err := opt.Footprint(rec); err != nil {
			floor = UnknownFloor(err.Error())
		} else {
			floor = FloorOf(fp, opt.Reads)
		}
	}
	row.Verdict, row.Note = Judge(row.Formula, got, floor, opt.Eps)
	return row
}
