package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/diag"
)

// The CPU side of the audit: one op call run under valgrind's cache simulator with a cold,
// small last-level cache. Every last-level miss moves one line, so measured reads are
// DLmr × line and measured writes DLmw × line.
//
// The call's own counts are the difference of two whole-program runs that differ only in
// the measured call: the run with it minus a baseline run without it. (Counting inside the
// call alone, with callgrind's --toggle-collect, is not reliable for Go: the shadow call
// stack that decides when collection is on loses track when a goroutine's stack moves,
// and one run here collected a YAML decoder and an eighth of a softmax.) A single output
// with no baseline is taken as the call's counts as they stand.
//
// The simulator allocates on a write miss and models no write-back: a line the call writes
// first is one write miss, counted once, as the formula counts an output once; a real
// write-allocate CPU moves it twice (the fill and the later write-back), a GPU once. So the
// simulation never inflates writes and never misses a written line, and measured traffic
// below the formula still means the formula counts bytes the call never touched.

// IndexFile is the name of the index a cache simulation directory holds: one JSON object
// per line, naming a run's op, workload, dtype and its valgrind output files.
const IndexFile = "index.jsonl"

// IndexEntry is one line of IndexFile. Paths are relative to the directory.
type IndexEntry struct {
	Op       string `json:"op"`
	Workload string `json:"workload"`
	DType    string `json:"dtype"`
	File     string `json:"file"`               // cachegrind (or callgrind) output of the run with the call
	Baseline string `json:"baseline,omitempty"` // output of the same run without the call
}

// SimCounts are the totals of one valgrind cache simulation output.
type SimCounts struct {
	Instructions int64 // Ir: zero when the collected range never ran
	ReadMisses   int64 // DLmr: last-level data read misses
	WriteMisses  int64 // DLmw: last-level data write misses
	LineSize     int64 // of the last-level cache, from its desc line
}

// ParseSim reads the totals of a callgrind or cachegrind output file (both write an events
// line, a "desc: LL cache:" line and a totals or summary line).
func ParseSim(r io.Reader, file string) (SimCounts, error) {
	var c SimCounts
	var events, totals []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "events":
			events = strings.Fields(val)
		case "totals", "summary":
			// callgrind writes both (equal); the later one wins.
			totals = strings.Fields(val)
		case "desc":
			if ll, ok := strings.CutPrefix(val, "LL cache:"); ok {
				// "262144 B, 64 B, 8-way associative"
				parts := strings.Split(ll, ",")
				if len(parts) >= 2 {
					n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(parts[1]), " B"), 10, 64)
					if err == nil && n > 0 {
						c.LineSize = n
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("%s: %v", file, err)
	}
	if events == nil || totals == nil {
		return c, fmt.Errorf("%s: not a callgrind or cachegrind output (no events and totals lines)", file)
	}
	if c.LineSize == 0 {
		return c, fmt.Errorf("%s: no \"desc: LL cache:\" line with the line size (run with --cache-sim=yes)", file)
	}
	get := func(name string) (int64, error) {
		for i, e := range events {
			if e != name {
				continue
			}
			if i >= len(totals) {
				return 0, nil // trailing zero counts may be left out
			}
			return strconv.ParseInt(totals[i], 10, 64)
		}
		return 0, fmt.Errorf("%s: no %s event (run with --cache-sim=yes)", file, name)
	}
	var err error
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"Ir", &c.Instructions}, {"DLmr", &c.ReadMisses}, {"DLmw", &c.WriteMisses}} {
		if *f.dst, err = get(f.name); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Sub returns the counts of c beyond base: the measured call's, when base is the same run
// without it.
func (c SimCounts) Sub(base SimCounts) (SimCounts, error) {
	if c.LineSize != base.LineSize {
		return c, fmt.Errorf("line sizes differ: %d and %d in the baseline", c.LineSize, base.LineSize)
	}
	d := SimCounts{Instructions: c.Instructions - base.Instructions, ReadMisses: c.ReadMisses - base.ReadMisses,
		WriteMisses: c.WriteMisses - base.WriteMisses, LineSize: c.LineSize}
	if d.Instructions < 0 || d.ReadMisses < 0 || d.WriteMisses < 0 {
		return c, fmt.Errorf("the baseline counts more than the run with the call (instructions %+d, read misses %+d, write misses %+d): the two runs must be the same program but for the call", d.Instructions, d.ReadMisses, d.WriteMisses)
	}
	return d, nil
}

// Measured converts the counts of the run named name into traffic: misses × line size.
func (c SimCounts) Measured(name string, pos diag.Pos) Measured {
	m := Measured{Name: name, Pos: pos, Reads: Count{Bytes: c.ReadMisses * c.LineSize}, Writes: Count{Bytes: c.WriteMisses * c.LineSize}}
	if c.Instructions > 0 {
		m.Launches = 1
	}
	return m
}

// ReadSimDir reads a cache simulation directory: its IndexFile and every output it names.
func ReadSimDir(dir string) ([]Measured, diag.Findings) {
	index := filepath.Join(dir, IndexFile)
	data, err := os.ReadFile(index)
	if err != nil {
		return nil, diag.Findings{{Pos: diag.Pos{File: index}, Msg: err.Error()}}
	}
	var ms []Measured
	var fs diag.Findings
	for i, line := range bytes.Split(data, []byte("\n")) {
		pos := diag.Pos{File: index, Line: i + 1}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e IndexEntry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			fs = append(fs, diag.Finding{Pos: pos, Msg: err.Error()})
			continue
		}
		if e.Op == "" || e.Workload == "" || e.DType == "" || e.File == "" || filepath.IsAbs(e.File) || filepath.IsAbs(e.Baseline) {
			fs = append(fs, diag.Finding{Pos: pos, Msg: "entry needs op, workload, dtype and a relative file"})
			continue
		}
		path := filepath.Join(dir, e.File)
		c, err := parseSimFile(path)
		if err == nil && e.Baseline != "" {
			var base SimCounts
			if base, err = parseSimFile(filepath.Join(dir, e.Baseline)); err == nil {
				c, err = c.Sub(base)
			}
		}
		if err != nil {
			// The call was measured, but its counts cannot be used: an ERROR row that says
			// why, not a "no measured call" for a call that ran.
			fs = append(fs, diag.Finding{Pos: pos, Msg: err.Error()})
			broken := Count{Missing: err.Error()}
			ms = append(ms, Measured{Name: RangeName(e.Op, e.Workload, e.DType), Pos: diag.Pos{File: path}, Launches: 1, Reads: broken, Writes: broken})
			continue
		}
		ms = append(ms, c.Measured(RangeName(e.Op, e.Workload, e.DType), diag.Pos{File: path}))
	}
	return ms, fs
}

func parseSimFile(path string) (SimCounts, error) {
	f, err := os.Open(path)
	if err != nil {
		return SimCounts{}, err
	}
	defer f.Close()
	return ParseSim(f, path)
}
