package render

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// WriteTable writes the human report: which profile priced each device, an aligned table
// with times in SI units and efficiency in percent (blank cells empty), the verdict count,
// the cold-call floor and the drift references. Rows of several implementations
// (record.Record.Impl) get an impl column, and a second table sets them side by side.
func WriteTable(w io.Writer, p *report.Pricer, rows []report.Row) error {
	bw := bufio.NewWriter(w)
	for _, m := range p.Devices() {
		if m.Profile != nil {
			fmt.Fprintf(bw, "device %q: profile %s (%s), %s ceilings\n", m.Device, plainText(m.Profile.Name), plainText(m.Profile.Source), p.Basis())
		} else {
			fmt.Fprintf(bw, "device %q: SOL cells blank: %s\n", m.Device, plainText(NoProfileHelp(m.Device, m.Err)))
		}
	}
	mem := "memory"
	if len(rows) > 0 && report.IsCPU(rows[0].Profile) {
		mem = "dram"
	}
	head := []string{"op", "workload", "dtype", "roof", "flops", "bytes", "time", mem, "compute", "sol", "eff", "spread", "bound", "verdict", "cache sol", "note"}
	// Numeric columns are right-aligned so magnitudes line up.
	right := []bool{false, false, false, false, true, true, true, true, true, true, true, true, false, false, false, false}
	// The judged column appears when a row's verdict reads another figure than its eff (a
	// reference timed beside it): it decides the verdict, so the table shows it.
	judged := slices.ContainsFunc(rows, func(r report.Row) bool { return judgedDecides(&r) })
	if judged {
		head = slices.Insert(head, 12, "judged")
		right = slices.Insert(right, 12, true)
	}
	sides := SideBySide(rows)
	if sides != nil {
		head = slices.Insert(head, 0, "impl")
		right = slices.Insert(right, 0, false)
	}
	short := false
	writeColumns(bw, len(rows)+1, func(i int, dst []string) []string {
		if i == 0 {
			return append(dst, head...)
		}
		r := &rows[i-1]
		dtype := report.ShortDType(r.Rec.DType) // the full label is in -json and -csv
		short = short || dtype != r.Rec.DType
		note := r.Note
		if r.Profile == nil {
			note = "no profile: see the device line above" // said once there, not in every row
		}
		if sides != nil {
			dst = append(dst, r.Rec.ImplName())
		}
		dst = append(dst,
			r.Rec.Op, r.Rec.Workload, dtype, report.RoofName(r.Profile, r.Rec.Roof),
			report.SI(float64(r.Rec.Flops), ""), report.SI(float64(r.Rec.Bytes), "B"),
			report.SI(measured(r.Rec.Seconds), "s"), report.SI(r.MemoryTime, "s"), report.SI(r.ComputeTime, "s"), report.SI(r.SOLTime, "s"),
			report.Percent(r.Efficiency), effSpread(r))
		if judged {
			dst = append(dst, judgedCell(r))
		}
		return append(dst, string(r.Bound), string(r.Verdict), cacheCell(r), note)
	}, right)
	if short {
		bw.WriteString(report.DTypeLegend + "\n")
	}
	bw.WriteString(Counts(rows).String() + "\n")
	writeReferences(bw, p, rows)
	if sides != nil {
		writeSides(bw, sides)
	}
	return bw.Flush()
}

// writeReferences writes the cold-call floor and the drift references of each device, and
// which of rows a drift left unpriced or was priced under.
func writeReferences(bw *bufio.Writer, p *report.Pricer, rows []report.Row) {
	for _, m := range p.Devices() {
		if m.Profile == nil {
			continue
		}
		impls := rowImpls(rows, m.Device)
		for _, impl := range impls {
			of := ""
			if len(impls) > 1 || impl != record.DefaultImpl {
				of = " of " + impl
			}
			if f, ok := p.Floor(m.Device, impl); ok {
				fmt.Fprintf(bw, "latency floor%s %s (%s): rows whose SOL time is below it are latency-bound\n", of, report.SI(f, "s"), p.FloorSource(m.Device, impl))
			}
		}
	}
	// The references of one run (one records file) stand together under it: each run has
	// its own start and end.
	drifts := p.Drifts()
	var files []string
	for _, d := range drifts {
		if !slices.Contains(files, d.Rec.Pos.File) {
			files = append(files, d.Rec.Pos.File)
		}
	}
	for _, f := range files {
		indent := ""
		if len(files) > 1 || f != "" {
			fmt.Fprintf(bw, "drift references of the run in %s:\n", cmp.Or(f, "(no file)"))
			indent = "  "
		}
		for _, d := range drifts {
			if d.Rec.Pos.File == f {
				fmt.Fprintln(bw, indent+d.String())
			}
		}
	}
	if n := report.DriftedRows(rows); n > 0 {
		fmt.Fprintf(bw, "%s priced under drift: their run's copy reference drifted off the profile (their notes say which); a row with no reference timed beside it keeps a verdict only where the drift could not move it\n", plural(n, "row"))
	}
}

// rowImpls returns the implementations of device's rows in the order met, or ropgen's own
// when it has none.
func rowImpls(rows []report.Row, device string) []string {
	var out []string
	for i := range rows {
		if r := rows[i].Rec; r.Device == device && !slices.Contains(out, r.ImplName()) {
			out = append(out, r.ImplName())
		}
	}
	if out == nil {
		out = []string{record.DefaultImpl}
	}
	return out
}

// effSpread is the efficiency range of a row's samples, slowest to fastest: "78-91%".
func effSpread(r *report.Row) string {
	if report.Blank(r.EffLow) || math.IsInf(r.EffHigh, 0) || (r.Rec.MinSeconds == 0 && r.Rec.MaxSeconds == 0) {
		return ""
	}
	return strconv.FormatFloat(r.EffLow*100, 'f', 0, 64) + "-" + strconv.FormatFloat(r.EffHigh*100, 'f', 0, 64) + "%"
}

// cacheCell is the cache-level price of a row: its level, SOL time there and efficiency.
func cacheCell(r *report.Row) string {
	if r.CacheLevel == "" || report.Blank(r.CacheTime) {
		return ""
	}
	level := strings.ToUpper(r.CacheLevel)
	if report.SI(r.CacheTime, "s") == report.SI(r.SOLTime, "s") {
		// The level is no faster than main memory (or the row is compute-bound there too):
		// its price would repeat the sol column.
		if r.Bound == report.Memory {
			return level + " = " + strings.ToLower(report.MemoryName(r.Profile))
		}
		return level + " = sol"
	}
	s := level + " " + report.SI(r.CacheTime, "s")
	if e := report.Percent(r.CacheEfficiency); e != "" {
		s += " " + e
	}
	return s
}

// judgedDecides reports whether r's verdict reads its judged efficiency, another figure than
// its eff (a same-time reference or compute probe timed beside it): every output that shows
// a verdict then shows that figure too (judgedCell), or the verdict would contradict the eff
// beside it.
func judgedDecides(r *report.Row) bool {
	return r != nil && r.Judged != r.Efficiency && !report.Blank(r.Judged)
}

// judgedCell is a row's judged efficiency with its interval where it has one ("91% 85-97%").
func judgedCell(r *report.Row) string {
	s := report.Percent(r.Judged)
	if !report.Blank(r.JudgedLow) && !report.Blank(r.JudgedHigh) && s != "" {
		s += " " + strings.TrimSuffix(report.Percent(r.JudgedLow), "%") + "-" + report.Percent(r.JudgedHigh)
	}
	return s
}

// VerdictTally counts rows by verdict.
type VerdictTally struct {
	Rows, AtCeiling, AtLine, Inconclusive, Below, Anomaly, LatencyBound, FormulaError, Unpriced int
}

// Counts counts rows by verdict.
func Counts(rows []report.Row) VerdictTally {
	c := VerdictTally{Rows: len(rows)}
	for i := range rows {
		switch rows[i].Verdict {
		case report.AtCeiling:
			c.AtCeiling++
		case report.AtLine:
			c.AtLine++
		case report.Inconclusive:
			c.Inconclusive++
		case report.Below:
			c.Below++
		case report.Anomaly:
			c.Anomaly++
		case report.LatencyBound:
			c.LatencyBound++
		case report.FormulaError:
			c.FormulaError++
		default:
			c.Unpriced++
		}
	}
	return c
}

func (c VerdictTally) String() string {
	return fmt.Sprintf("%s: %d at ceiling (median >= %.0f%%), %d at the line, %d inconclusive, %d below, %d anomaly (slowest sample > %.0f%%), %d latency-bound, %d formula error, %d unpriced",
		plural(c.Rows, "row"), c.AtCeiling, report.AtCeilingMin*100, c.AtLine, c.Inconclusive, c.Below, c.Anomaly, report.AnomalyAbove*100, c.LatencyBound, c.FormulaError, c.Unpriced)
}
