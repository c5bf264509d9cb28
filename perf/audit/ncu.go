package audit

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/diag"
)

// Nsight Compute CSV, as `ncu --csv` prints it (or `ncu --import R --csv`). Two layouts:
//
//   - --page details: one row per launch × metric, with "Metric Name", "Metric Unit" and
//     "Metric Value" columns;
//   - --page raw: one row per launch, one column per metric named after it, and a units row
//     right after the header (empty under the non-metric columns).
//
// Columns are found by header name, since the set before the metrics changes between
// versions ("Kernel Time" came and went, "Block Size", "Grid Size", "Device", "CC" arrived).
// Launches are tied to op calls by the Kernel Name column: profiled with --nvtx and
// --print-nvtx-rename kernel, it holds the innermost NVTX push/pop range around the launch,
// which the harness names RangeName(op, workload, dtype). Consecutive launches of one name
// are one call, and their bytes are summed.

// byteUnits scales the byte units ncu prints (Kbyte etc. are decimal, like every ncu
// prefix), plus the binary ones a converted file may carry. Matching ignores case.
var byteUnits = map[string]float64{
	"byte": 1, "bytes": 1, "B": 1,
	"Kbyte": 1e3, "KB": 1e3, "Mbyte": 1e6, "MB": 1e6, "Gbyte": 1e9, "GB": 1e9, "Tbyte": 1e12, "TB": 1e12,
	"Kibyte": 1 << 10, "KiB": 1 << 10, "kibibyte": 1 << 10,
	"Mibyte": 1 << 20, "MiB": 1 << 20, "mebibyte": 1 << 20,
	"Gibyte": 1 << 30, "GiB": 1 << 30, "gibibyte": 1 << 30,
	"Tibyte": 1 << 40, "TiB": 1 << 40, "tebibyte": 1 << 40,
}

func unitScale(unit string) (float64, bool) {
	for u, s := range byteUnits {
		if strings.EqualFold(u, unit) {
			return s, true
		}
	}
	return 0, false
}

// grouped is an integer part with digit grouping: 1,234,567.
var grouped = regexp.MustCompile(`^[0-9]{1,3}(,[0-9]{3})+$`)

// decimal is how Nsight Compute writes a metric's value once its grouping is stripped: ParseFloat
// alone would also take Go's digit separators (8_192), hexadecimal and Inf.
var decimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// maxBytes bounds one value so that summing launches cannot overflow quietly (2^62 bytes is
// four exbibytes, far beyond any device).
const maxBytes = 1 << 62

// parseBytes reads one metric value in unit; the returned Count says why it is missing.
func parseBytes(value, unit string) Count {
	v := strings.TrimSpace(value)
	if v == "" || strings.EqualFold(v, "n/a") {
		return Count{Missing: "is n/a"}
	}
	if strings.Contains(v, ",") {
		// Strip grouping only where it is grouping: "9,50" is a decimal comma, and reading
		// it as 950 would be a silent factor of 100.
		intPart, _, _ := strings.Cut(v, ".")
		if !grouped.MatchString(intPart) {
			return Count{Missing: fmt.Sprintf("value %q: its commas are not digit grouping", v)}
		}
		v = strings.ReplaceAll(v, ",", "")
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !decimal.MatchString(v) {
		return Count{Missing: fmt.Sprintf("value %q is not a number", value)}
	}
	scale, ok := unitScale(strings.TrimSpace(unit))
	if !ok {
		return Count{Missing: fmt.Sprintf("unit %q is not a byte unit", unit)}
	}
	b := f * scale
	if math.IsNaN(b) || b < 0 || b > maxBytes {
		return Count{Missing: fmt.Sprintf("value %q %s is out of range", value, unit)}
	}
	if math.Abs(b-math.Round(b)) > 1e-9*max(1, b) {
		// A counter counts whole bytes; a fraction left after the unit's scale is a value
		// that is no byte count (8192.5 byte).
		return Count{Missing: fmt.Sprintf("value %q %s is not a whole number of bytes", value, unit)}
	}
	return Count{Bytes: int64(math.Round(b))}
}

// launch is one kernel launch read from the CSV.
type launch struct {
	name          string
	pos           diag.Pos
	reads, writes Count
	seen          [2]bool // details page: a row of the read / write metric was found
}

// ncuTable is the layout of the table being read: the header's columns and, for the raw
// page, its units.
type ncuTable struct {
	header       diag.Pos
	ncols        int
	col          map[string]int
	details      bool
	units        []string // raw page: one unit per column
	unitsPending bool     // raw page: the units row has not been read yet
}

func (t *ncuTable) get(fields []string, name string) string {
	if i, ok := t.col[name]; ok && i < len(fields) {
		return fields[i]
	}
	return ""
}

// ParseNCU reads Nsight Compute CSV output, either page, and returns one Measured per op
// call in file order. Lines that ncu writes around the table (==PROF==, ==WARNING==) and
// anything before the header (the profiled program's own output) are skipped; ==ERROR==
// lines are findings, as is a malformed line inside the table. A metric that is absent or
// n/a, or in a unit that is not bytes, leaves its count Missing, which the audit reports as
// an ERROR row.
func ParseNCU(r io.Reader, file string) ([]Measured, diag.Findings) {
	var fs diag.Findings
	var t *ncuTable
	var launches []*launch
	byID := map[string]*launch{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20) // kernel names with template arguments run long
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			// Files saved by Windows tools (and some spreadsheet exports) start with a UTF-8 BOM.
			text = strings.TrimPrefix(text, "\ufeff")
		}
		pos := diag.Pos{File: file, Line: line}
		if tag, ok := profilerTag(text); ok {
			if tag == "ERROR" {
				fs = append(fs, diag.Finding{Pos: pos, Msg: "ncu: " + text})
			}
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields, err := csvLine(text)
		if err != nil {
			if t != nil {
				fs = append(fs, diag.Finding{Pos: pos, Msg: "malformed CSV line: " + err.Error()})
			}
			continue
		}
		if nt, ok := ncuHeader(fields, pos); ok {
			// A new table (another process, or files concatenated) numbers its launches anew.
			t, byID = nt, map[string]*launch{}
			if t.details {
				for _, c := range []string{"Metric Unit", "Metric Value"} {
					if _, ok := t.col[c]; !ok {
						fs = append(fs, diag.Finding{Pos: pos, Msg: fmt.Sprintf("details page header has %q but no %q column", "Metric Name", c)})
						t = nil
						break
					}
				}
			}
			continue
		}
		if t == nil {
			continue // the profiled program's output before the table
		}
		if len(fields) < t.ncols {
			fs = append(fs, diag.Finding{Pos: pos, Msg: fmt.Sprintf("%d fields, the header at line %d has %d", len(fields), t.header.Line, t.ncols)})
			continue
		}
		if t.unitsPending {
			t.unitsPending = false
			if t.get(fields, "ID") == "" {
				t.units = fields
				continue
			}
			fs = append(fs, diag.Finding{Pos: pos, Msg: "raw page: no units row after the header at line " + strconv.Itoa(t.header.Line) + "; values cannot be scaled"})
		}
		id := t.get(fields, "Process ID") + "\x00" + t.get(fields, "ID")
		l := byID[id]
		if name := t.get(fields, "Kernel Name"); l != nil && t.details && l.name != name {
			// One launch ID with two kernel names: the rows of two profiles were mixed.
			fs = append(fs, diag.Finding{Pos: pos, Msg: fmt.Sprintf("launch %s is kernel %q here and %q at line %d", t.get(fields, "ID"), name, l.name, l.pos.Line)})
			continue
		}
		if l == nil || !t.details {
			l = &launch{name: t.get(fields, "Kernel Name"), pos: pos}
			launches = append(launches, l)
			byID[id] = l
		}
		where := fmt.Sprintf("%s: launch %s", pos, t.get(fields, "ID"))
		if t.details {
			metric := t.get(fields, "Metric Name")
			for i, m := range []string{MetricRead, MetricWrite} {
				if metric != m {
					continue
				}
				if l.seen[i] {
					fs = append(fs, diag.Finding{Pos: pos, Msg: fmt.Sprintf("launch %s: %s given twice", t.get(fields, "ID"), m)})
				}
				l.seen[i] = true
				c := parseBytes(t.get(fields, "Metric Value"), t.get(fields, "Metric Unit"))
				setCount(l, i, c, where, m)
			}
			continue
		}
		for i, m := range []string{MetricRead, MetricWrite} {
			c := Count{Missing: fmt.Sprintf("has no column in the raw page header at line %d", t.header.Line)}
			if j, ok := t.col[m]; ok {
				unit := ""
				if j < len(t.units) {
					unit = t.units[j]
				}
				c = parseBytes(t.get(fields, m), unit)
			}
			l.seen[i] = true
			setCount(l, i, c, where, m)
		}
	}
	if err := sc.Err(); err != nil {
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: file}, Msg: err.Error()})
	}
	if t == nil && len(launches) == 0 && len(fs) == 0 {
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: file},
			Msg: `no ncu CSV table: expected a header with "ID" and "Kernel Name" columns (ncu --csv --page details or --page raw)`})
	}
	return group(launches), fs
}

// setCount stores a launch's count of metric i, saying where a missing one was missing.
func setCount(l *launch, i int, c Count, where, metric string) {
	if c.Missing != "" {
		c.Missing = fmt.Sprintf("%s (%s): %s %s", where, l.name, metric, c.Missing)
	}
	if i == 0 {
		l.reads = c
	} else {
		l.writes = c
	}
}

// group sums consecutive launches of one name into one call each.
func group(launches []*launch) []Measured {
	var out []Measured
	for _, l := range launches {
		for i, m := range []string{MetricRead, MetricWrite} {
			if !l.seen[i] {
				c := Count{Missing: fmt.Sprintf("%s: launch (%s): no %s row", l.pos, l.name, m)}
				if i == 0 {
					l.reads = c
				} else {
					l.writes = c
				}
			}
		}
		if n := len(out); n > 0 && out[n-1].Name == l.name {
			out[n-1].Launches++
			out[n-1].Reads.add(l.reads)
			out[n-1].Writes.add(l.writes)
			continue
		}
		out = append(out, Measured{Name: l.name, Pos: l.pos, Launches: 1, Reads: l.reads, Writes: l.writes})
	}
	return out
}

// profilerTag returns TAG for a line ncu writes around the table: ==TAG== text.
func profilerTag(line string) (string, bool) {
	if !strings.HasPrefix(line, "==") {
		return "", false
	}
	tag, _, ok := strings.Cut(line[2:], "==")
	if !ok || tag == "" || strings.ToUpper(tag) != tag || strings.ContainsAny(tag, " \t\",") {
		return "", false
	}
	return tag, true
}

func csvLine(text string) ([]string, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	return r.Read()
}

// ncuHeader recognizes a table header: it names the "ID" and "Kernel Name" columns.
func ncuHeader(fields []string, pos diag.Pos) (*ncuTable, bool) {
	col := map[string]int{}
	for i, f := range fields {
		if _, dup := col[f]; !dup {
			col[f] = i
		}
	}
	_, hasID := col["ID"]
	_, hasKernel := col["Kernel Name"]
	if !hasID || !hasKernel {
		return nil, false
	}
	_, details := col["Metric Name"]
	return &ncuTable{header: pos, ncols: len(fields), col: col, details: details, unitsPending: !details}, true
}
