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

	"ropgen/manifest"
)

// The CPU side of the audit: one op call run under valgrind's cache simulator with a cold,
// small last-level cache. Every last-level miss moves one line, so measured reads are
// DLmr × line and measured writes DLmw × line.
//
// The simulator allocates on a write miss and models no write-back: a line the call writes
// first is one write miss, counted once, as the formula counts an output once; a real
// write-allocate CPU moves it twice (the fill and the later write-back), a GPU once. So the
// simulation never inflates writes and never misses a written line, and measured traffic
// below the formula still means the formula counts bytes the call never touched.

// IndexFile is the name of the index a cache simulation directory holds: one JSON object
// per line, naming a run's op, workload, dtype and its valgrind output file.
const IndexFile = "index.jsonl"

// IndexEntry is one line of IndexFile.
type IndexEntry struct {
	Op       string `json:"op"`
	Workload string `json:"workload"`
	DType    string `json:"dtype"`
	File     string `json:"file"` // callgrind (or cachegrind) output, relative to the directory
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

// Measured converts the counts of the run named name into traffic: misses × line size.
func (c SimCounts) Measured(name string, pos manifest.Pos) Measured {
	m := Measured{Name: name, Pos: pos, Reads: Count{Bytes: c.ReadMisses * c.LineSize}, Writes: Count{Bytes: c.WriteMisses * c.LineSize}}
	if c.Instructions > 0 {
		m.Launches = 1
	}
	return m
}

// ReadSimDir reads a cache simulation directory: its IndexFile and every output it names.
func ReadSimDir(dir string) ([]Measured, manifest.Findings) {
	index := filepath.Join(dir, IndexFile)
	data, err := os.ReadFile(index)
	if err != nil {
		return nil, manifest.Findings{{Pos: manifest.Pos{File: index}, Msg: err.Error()}}
	}
	var ms []Measured
	var fs manifest.Findings
	for i, line := range bytes.Split(data, []byte("\n")) {
		pos := manifest.Pos{File: index, Line: i + 1}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e IndexEntry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			fs = append(fs, manifest.Finding{Pos: pos, Msg: err.Error()})
			continue
		}
		if e.Op == "" || e.Workload == "" || e.DType == "" || e.File == "" || filepath.IsAbs(e.File) {
			fs = append(fs, manifest.Finding{Pos: pos, Msg: "entry needs op, workload, dtype and a relative file"})
			continue
		}
		name := RangeName(e.Op, e.Workload, e.DType)
		path := filepath.Join(dir, e.File)
		f, err := os.Open(path)
		if err != nil {
			fs = append(fs, manifest.Finding{Pos: pos, Msg: err.Error()})
			continue
		}
		c, err := ParseSim(f, path)
		f.Close()
		if err != nil {
			fs = append(fs, manifest.Finding{Pos: pos, Msg: err.Error()})
			continue
		}
		ms = append(ms, c.Measured(name, manifest.Pos{File: path}))
	}
	return ms, fs
}
