package report

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
)

// column is one field of a row in the machine-readable outputs. Exactly one of text, count
// and num is set; CSV and JSON both walk this table, so the two never disagree.
// The same tables describe a comparison's rows (compareColumns), over Delta.
type column[T any] struct {
	name  string
	text  func(*T) string
	count func(*T) int64
	num   func(*T) float64 // NaN is blank: "" in CSV, null in JSON
	// json, when set, is the cell's JSON value in place of text's string: a structured
	// value where JSON has a shape for it (a position is an object, as in every ropgen JSON).
	json func(*T) any
}

var columns = []column[Row]{
	{name: "device", text: func(r *Row) string { return r.Rec.Device }},
	{name: "op", text: func(r *Row) string { return r.Rec.Op }},
	{name: "workload", text: func(r *Row) string { return r.Rec.Workload }},
	{name: "dtype", text: func(r *Row) string { return r.Rec.DType }},
	{name: "roof", text: func(r *Row) string { return r.Rec.Roof }},
	{name: "flops", count: func(r *Row) int64 { return r.Rec.Flops }},
	{name: "bytes", count: func(r *Row) int64 { return r.Rec.Bytes }},
	{name: "seconds", num: func(r *Row) float64 { return measured(r.Rec.Seconds) }},
	{name: "min_seconds", num: func(r *Row) float64 { lo, _ := r.Rec.Spread(); return measured(lo) }},
	{name: "max_seconds", num: func(r *Row) float64 { _, hi := r.Rec.Spread(); return measured(hi) }},
	{name: "iters", count: func(r *Row) int64 { return int64(r.Rec.Iters) }},
	{name: "profile", text: func(r *Row) string { return profileName(r.Profile) }},
	{name: "memory_time", num: func(r *Row) float64 { return r.MemoryTime }},
	{name: "compute_time", num: func(r *Row) float64 { return r.ComputeTime }},
	{name: "sol_time", num: func(r *Row) float64 { return r.SOLTime }},
	{name: "efficiency", num: func(r *Row) float64 { return r.Efficiency }},
	{name: "efficiency_low", num: func(r *Row) float64 { return r.EffLow }},
	{name: "efficiency_high", num: func(r *Row) float64 { return r.EffHigh }},
	{name: "priced_roof", text: func(r *Row) string { return r.PricedRoof }},
	{name: "cache_level", text: func(r *Row) string { return r.CacheLevel }},
	{name: "cache_sol_time", num: func(r *Row) float64 { return r.CacheTime }},
	{name: "cache_efficiency", num: func(r *Row) float64 { return r.CacheEfficiency }},
	{name: "floor", num: func(r *Row) float64 { return r.Floor }},
	{name: "intensity", num: func(r *Row) float64 { return r.Intensity }},
	{name: "byte_rate", num: func(r *Row) float64 { return r.ByteRate }},
	{name: "flop_rate", num: func(r *Row) float64 { return r.FlopRate }},
	{name: "peak_byte_rate", num: func(r *Row) float64 { return r.PeakByteRate }},
	{name: "peak_flop_rate", num: func(r *Row) float64 { return r.PeakFlopRate }},
	{name: "ref_rate", num: func(r *Row) float64 { return r.RefRate }},
	{name: "ref_ratio", num: func(r *Row) float64 { return r.RefRatio }},
	{name: "machine", num: func(r *Row) float64 { return r.Machine }},
	{name: "judged_efficiency", num: func(r *Row) float64 { return r.Judged }},
	{name: "bound", text: func(r *Row) string { return string(r.Bound) }},
	{name: "verdict", text: func(r *Row) string { return string(r.Verdict) }},
	{name: "note", text: func(r *Row) string { return r.Note }},
	{name: "pos", text: func(r *Row) string { return r.Rec.Pos.String() }, json: func(r *Row) any { return r.Rec.Pos }},
}

// finite maps a value that is not a finite number to blank: no NaN or Inf reaches an
// output. The profile's bounds keep every quotient finite; this is the last line.
func finite(v float64) float64 {
	if math.IsInf(v, 0) {
		return blank
	}
	return v
}

// measured maps "timed without device activity" (zero) to blank.
func measured(s float64) float64 {
	if s == 0 {
		return blank
	}
	return s
}

func profileName(p *profiles.Profile) string {
	if p == nil {
		return ""
	}
	return p.Name
}

// WriteCSV writes rows as CSV with a header line; blank cells are empty.
func WriteCSV(w io.Writer, rows []Row) error { return writeCSV(w, columns, rows) }

// writeCSV writes items as CSV, one line per item, under a header of the columns' names.
func writeCSV[T any](w io.Writer, cols []column[T], items []T) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(cols))
	for i, c := range cols {
		rec[i] = c.name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for i := range items {
		for j, c := range cols {
			switch {
			case c.text != nil:
				rec[j] = c.text(&items[i])
			case c.count != nil:
				rec[j] = strconv.FormatInt(c.count(&items[i]), 10)
			default:
				rec[j] = ""
				if v := finite(c.num(&items[i])); !Blank(v) {
					rec[j] = strconv.FormatFloat(v, 'g', -1, 64)
				}
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeJSONRows writes items as `"rows":[...]]}`: one JSON object per item and line, the
// columns' names as keys, blank cells null; it closes the document head began.
func writeJSONRows[T any](bw *bufio.Writer, head []byte, cols []column[T], items []T) {
	bw.Write(head[:len(head)-1])
	bw.WriteString(`,"rows":[`)
	var b []byte
	for i := range items {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{"...)
		for j, c := range cols {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, c.name)
			b = append(b, ':')
			switch {
			case c.json != nil:
				s, _ := json.Marshal(c.json(&items[i]))
				b = append(b, s...)
			case c.text != nil:
				s, _ := json.Marshal(c.text(&items[i]))
				b = append(b, s...)
			case c.count != nil:
				b = strconv.AppendInt(b, c.count(&items[i]), 10)
			default:
				if v := finite(c.num(&items[i])); Blank(v) {
					b = append(b, "null"...)
				} else {
					b = strconv.AppendFloat(b, v, 'g', -1, 64)
				}
			}
		}
		b = append(b, '}')
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
}

// WriteJSON writes one JSON document: the basis, each device with the profile that priced it
// (or the reason none did), and the rows, one object per row with the CSV's columns as keys;
// blank cells are null.
func WriteJSON(w io.Writer, p *Pricer, rows []Row) error {
	bw := bufio.NewWriter(w)
	type dev struct {
		Device  string `json:"device"`
		Profile string `json:"profile,omitempty"`
		Source  string `json:"source,omitempty"`
		Error   string `json:"error,omitempty"`
	}
	var devs []dev
	for _, m := range p.Devices() {
		d := dev{Device: m.Device, Profile: profileName(m.Profile)}
		if m.Profile != nil {
			d.Source = m.Profile.Source
		}
		if m.Err != nil {
			d.Error = m.Err.Error()
		}
		devs = append(devs, d)
	}
	head, err := json.Marshal(struct {
		Basis   profiles.Basis `json:"basis"`
		Devices []dev          `json:"devices"`
	}{p.Basis(), devs})
	if err != nil {
		return err
	}
	writeJSONRows(bw, head, columns, rows)
	return bw.Flush()
}

// WriteTable writes the human report: which profile priced each device, an aligned table
// with times in SI units and efficiency in percent (blank cells empty), the verdict count,
// the cold-call floor and the drift references.
func WriteTable(w io.Writer, p *Pricer, rows []Row) error {
	bw := bufio.NewWriter(w)
	for _, m := range p.Devices() {
		if m.Profile != nil {
			fmt.Fprintf(bw, "device %q: profile %s (%s), %s ceilings\n", m.Device, plainText(m.Profile.Name), plainText(m.Profile.Source), p.Basis())
		} else {
			fmt.Fprintf(bw, "device %q: SOL cells blank: %s\n", m.Device, plainText(NoProfileHelp(m.Device, m.Err)))
		}
	}
	mem := "memory"
	if len(rows) > 0 && IsCPU(rows[0].Profile) {
		mem = "dram"
	}
	head := []string{"op", "workload", "dtype", "roof", "flops", "bytes", "time", mem, "compute", "sol", "eff", "spread", "bound", "verdict", "cache sol", "note"}
	// Numeric columns are right-aligned so magnitudes line up.
	right := []bool{false, false, false, false, true, true, true, true, true, true, true, true, false, false, false, false}
	cells := make([][]string, 0, len(rows)+1)
	cells = append(cells, head)
	short := false
	for i := range rows {
		r := &rows[i]
		dtype := ShortDType(r.Rec.DType) // the full label is in -json and -csv
		short = short || dtype != r.Rec.DType
		note := r.Note
		if r.Profile == nil {
			note = "no profile: see the device line above" // said once there, not in every row
		}
		cells = append(cells, []string{
			r.Rec.Op, r.Rec.Workload, dtype, RoofName(r.Profile, r.Rec.Roof),
			SI(float64(r.Rec.Flops), ""), SI(float64(r.Rec.Bytes), "B"),
			SI(measured(r.Rec.Seconds), "s"), SI(r.MemoryTime, "s"), SI(r.ComputeTime, "s"), SI(r.SOLTime, "s"),
			percent(r.Efficiency), effSpread(r), string(r.Bound), string(r.Verdict), cacheCell(r), note,
		})
	}
	writeAligned(bw, cells, right)
	if short {
		bw.WriteString(DTypeLegend + "\n")
	}
	bw.WriteString(Counts(rows).String() + "\n")
	writeReferences(bw, p, rows)
	return bw.Flush()
}

// writeReferences writes the cold-call floor and the drift references of each device, and
// which of rows a drift left unpriced or was priced under.
func writeReferences(bw *bufio.Writer, p *Pricer, rows []Row) {
	for _, m := range p.Devices() {
		if m.Profile == nil {
			continue
		}
		if f, ok := p.Floor(m.Device); ok {
			fmt.Fprintf(bw, "latency floor %s (%s): rows whose SOL time is below it are latency-bound\n", SI(f, "s"), p.FloorSource(m.Device))
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
	if priced, unpriced := DriftedRows(rows); unpriced > 0 {
		fmt.Fprintf(bw, "%d rows unpriced: their run's copy reference drifted off the profile (their notes say which); recalibrate and measure again\n", unpriced)
	} else if priced > 0 {
		fmt.Fprintf(bw, "%d rows priced under drift: their run's copy reference drifted off the profile (their notes say which), so their prices describe another machine\n", priced)
	}
}

// effSpread is the efficiency range of a row's samples, slowest to fastest: "78-91%".
func effSpread(r *Row) string {
	if Blank(r.EffLow) || math.IsInf(r.EffHigh, 0) || (r.Rec.MinSeconds == 0 && r.Rec.MaxSeconds == 0) {
		return ""
	}
	return strconv.FormatFloat(r.EffLow*100, 'f', 0, 64) + "-" + strconv.FormatFloat(r.EffHigh*100, 'f', 0, 64) + "%"
}

// cacheCell is the cache-level price of a row: its level, SOL time there and efficiency.
func cacheCell(r *Row) string {
	if r.CacheLevel == "" || Blank(r.CacheTime) {
		return ""
	}
	level := strings.ToUpper(r.CacheLevel)
	if SI(r.CacheTime, "s") == SI(r.SOLTime, "s") {
		// The level is no faster than main memory (or the row is compute-bound there too):
		// its price would repeat the sol column.
		if r.Bound == Memory {
			return level + " = " + strings.ToLower(MemoryName(r.Profile))
		}
		return level + " = sol"
	}
	s := level + " " + SI(r.CacheTime, "s")
	if e := percent(r.CacheEfficiency); e != "" {
		s += " " + e
	}
	return s
}

// VerdictTally counts rows by verdict.
type VerdictTally struct {
	Rows, AtCeiling, Below, Anomaly, LatencyBound, FormulaError, Unpriced int
}

// Counts counts rows by verdict.
func Counts(rows []Row) VerdictTally {
	c := VerdictTally{Rows: len(rows)}
	for i := range rows {
		switch rows[i].Verdict {
		case AtCeiling:
			c.AtCeiling++
		case Below:
			c.Below++
		case Anomaly:
			c.Anomaly++
		case LatencyBound:
			c.LatencyBound++
		case FormulaError:
			c.FormulaError++
		default:
			c.Unpriced++
		}
	}
	return c
}

func (c VerdictTally) String() string {
	return fmt.Sprintf("%d rows: %d at ceiling (median >= %.0f%%), %d below, %d anomaly (slowest sample > %.0f%%), %d latency-bound, %d formula error, %d unpriced",
		c.Rows, c.AtCeiling, AtCeilingMin*100, c.Below, c.Anomaly, AnomalyAbove*100, c.LatencyBound, c.FormulaError, c.Unpriced)
}

func percent(v float64) string {
	if Blank(v) || math.IsInf(v, 0) {
		return ""
	}
	if math.Abs(v) >= 1e4 { // a formula error's ratio: three digits and an exponent, not dozens of digits
		return strconv.FormatFloat(v*100, 'e', 2, 64) + "%"
	}
	return strconv.FormatFloat(v*100, 'f', 1, 64) + "%"
}

// times formats a ratio with two decimals ("1.73"), or past 10^4 with three digits and an
// exponent.
func times(v float64) string {
	if math.Abs(v) >= 1e4 {
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

var prefixes = []struct {
	scale  float64
	prefix string
}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}, {1e-12, "p"}}

// SI formats v with three significant digits and an SI prefix ("12.3µs", "4.30TB"); blank
// for NaN.
func SI(v float64, unit string) string {
	if Blank(v) || math.IsInf(v, 0) {
		return ""
	}
	if v == 0 {
		return "0" + unit
	}
	// The smallest prefix that keeps the mantissa at or above 1 after rounding.
	p := prefixes[len(prefixes)-1]
	for _, q := range prefixes {
		if math.Abs(v) >= q.scale*0.9995 {
			p = q
			break
		}
	}
	x := v / p.scale
	if math.Abs(x) >= 999.5 && p.scale == prefixes[0].scale {
		// Past the largest prefix: three digits and an exponent, not a long run of digits.
		return strconv.FormatFloat(v, 'e', 2, 64) + unit
	}
	prec := 2
	switch {
	case p.scale == 1 && x == math.Trunc(x): // a small count: "64", not "64.0"
		prec = 0
	case math.Abs(x) >= 99.95:
		prec = 0
	case math.Abs(x) >= 9.995:
		prec = 1
	}
	return strconv.FormatFloat(x, 'f', prec, 64) + p.prefix + unit
}

// Rate formats a rate with a space before the prefixed unit, for prose: "4.30 TB/s". SI and
// Rate are the one number formatter of the report, the predictions and the benchmark progress.
func Rate(v float64, unit string) string {
	if Blank(v) || math.IsInf(v, 0) {
		return ""
	}
	s := SI(v, "")
	i := strings.LastIndexAny(s, "0123456789") + 1
	return s[:i] + " " + s[i:] + unit
}
