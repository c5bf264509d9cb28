package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"

	"github.com/ropgen/ropgen/diag"
)

// The Go benchmark format encoding (https://golang.org/design/14313-benchmark-format), so
// that `benchstat old.txt new.txt` compares two runs:
//
//	Unit roof-flops/op assume=exact
//	Unit roof-bytes/op assume=exact
//	device: NVIDIA H200
//	roof: cube.bf16
//
//	BenchmarkRoofline/op=GemmFwd/workload=decode/dtype=bfloat16 100 1.25e-05 sec/op 3.3e+07 roof-flops/op 3.3e+07 roof-bytes/op
//
// The name identifies the row (op, workload, dtype), so benchstat pairs the same row across
// runs. Device and roof are configuration lines: they describe how a row is priced, not which
// row it is, and the format carries them for every following result until they change. The
// roofline counts use their own units: B/op means heap allocation in Go benchmarks.
const (
	// BenchName is the base benchmark name of every record.
	BenchName = "Roofline"
	// UnitSeconds is the unit of Record.Seconds (benchfmt's tidied form of ns/op).
	UnitSeconds = "sec/op"
	// UnitFlops is the unit of Record.Flops.
	UnitFlops = "roof-flops/op"
	// UnitBytes is the unit of Record.Bytes.
	UnitBytes = "roof-bytes/op"
	// ConfigDevice and ConfigRoof are the configuration keys of Record.Device and Record.Roof.
	ConfigDevice = "device"
	ConfigRoof   = "roof"
)

// maxExact is the largest integer a float64 holds exactly; the benchmark format writes every
// value as a float, so larger counts would come back changed.
const maxExact = 1 << 53

// Check returns what is wrong with r as a record, or nil. Writers refuse such a record and
// readers report it at its position.
func Check(r Record) []string {
	var errs []string
	for _, f := range []struct{ key, val string }{{"op", r.Op}, {"workload", r.Workload}, {"dtype", r.DType}, {ConfigRoof, r.Roof}} {
		if msg := nameValueError(f.val); msg != "" {
			errs = append(errs, fmt.Sprintf("%s %q %s", f.key, f.val, msg))
		}
	}
	if r.Device == "" || strings.ContainsAny(r.Device, "\r\n") {
		errs = append(errs, fmt.Sprintf("device %q must be one non-empty line", r.Device))
	}
	if trailingProcs(r.DType) {
		// The format reads a final "-<digits>" as the GOMAXPROCS suffix.
		errs = append(errs, fmt.Sprintf("dtype %q must not end in -<digits>", r.DType))
	}
	if r.Flops < 0 || r.Bytes < 0 {
		errs = append(errs, fmt.Sprintf("flops %d and bytes %d must not be negative", r.Flops, r.Bytes))
	}
	if r.Seconds < 0 || math.IsNaN(r.Seconds) || math.IsInf(r.Seconds, 0) {
		errs = append(errs, fmt.Sprintf("seconds %v must be finite and not negative", r.Seconds))
	}
	if r.Iters < 0 {
		errs = append(errs, fmt.Sprintf("iters %d must not be negative", r.Iters))
	}
	return errs
}

// nameValueError says why s cannot be one part of a benchmark name, or "".
func nameValueError(s string) string {
	if s == "" {
		return "is empty"
	}
	for _, c := range s {
		if c == '/' || unicode.IsSpace(c) || unicode.IsControl(c) {
			return "contains '/', a space or a control character"
		}
	}
	return ""
}

func trailingProcs(s string) bool {
	i := strings.LastIndexByte(s, '-')
	return i >= 0 && i < len(s)-1 && strings.Trim(s[i+1:], "0123456789") == ""
}

// BenchWriter writes records in Go benchmark format.
type BenchWriter struct {
	w       *benchfmt.Writer
	res     benchfmt.Result
	started bool
}

// NewBenchWriter returns a writer of Go benchmark format records to w.
func NewBenchWriter(w io.Writer) *BenchWriter {
	return &BenchWriter{w: benchfmt.NewWriter(w)}
}

// Write writes one record. It refuses a record that Check rejects, and counts that a
// float64 cannot hold exactly (use JSON lines for those).
func (bw *BenchWriter) Write(r Record) error {
	if errs := Check(r); errs != nil {
		return fmt.Errorf("record %s/%s/%s: %s", r.Op, r.Workload, r.DType, strings.Join(errs, "; "))
	}
	if r.Flops > maxExact || r.Bytes > maxExact {
		return fmt.Errorf("record %s/%s/%s: flops %d or bytes %d above 2^53 cannot be written exactly in benchmark format; use JSON lines",
			r.Op, r.Workload, r.DType, r.Flops, r.Bytes)
	}
	if !bw.started {
		// Roofline counts are exact: repeating a run adds no confidence, and benchstat
		// shows them without a spread.
		for _, u := range []string{UnitFlops, UnitBytes} {
			m := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u, Key: "assume"}, OrigUnit: u, Value: "exact"}
			if err := bw.w.Write(m); err != nil {
				return err
			}
		}
		bw.started = true
	}
	res := &bw.res
	res.Config = append(res.Config[:0],
		benchfmt.Config{Key: ConfigDevice, Value: []byte(r.Device), File: true},
		benchfmt.Config{Key: ConfigRoof, Value: []byte(r.Roof), File: true})
	res.Name = fmt.Appendf(res.Name[:0], "%s/op=%s/workload=%s/dtype=%s", BenchName, r.Op, r.Workload, r.DType)
	res.Iters = r.Iters
	res.Values = append(res.Values[:0],
		benchfmt.Value{Value: r.Seconds, Unit: UnitSeconds},
		benchfmt.Value{Value: float64(r.Flops), Unit: UnitFlops},
		benchfmt.Value{Value: float64(r.Bytes), Unit: UnitBytes})
	return bw.w.Write(res)
}

// ReadBench reads Go benchmark format records from r; file names them in findings. Results
// whose base name is not BenchName are errors, so a record cannot be silently skipped.
// Values in other units (ns/op is tidied to sec/op; B/op, allocs/op from -benchmem) are
// ignored, and so is a GOMAXPROCS suffix on the name.
func ReadBench(r io.Reader, file string) ([]Record, diag.Findings) {
	var recs []Record
	var fs diag.Findings
	br := benchfmt.NewReader(r, file)
	for br.Scan() {
		switch res := br.Result().(type) {
		case *benchfmt.SyntaxError:
			fs = append(fs, diag.Finding{Pos: diag.Pos{File: res.FileName, Line: res.Line}, Msg: res.Msg})
		case *benchfmt.Result:
			rec, errs := fromResult(res)
			if errs == nil {
				recs = append(recs, rec)
			}
			for _, e := range errs {
				fs = append(fs, diag.Finding{Pos: rec.Pos, Field: string(res.Name), Msg: e})
			}
		}
	}
	if err := br.Err(); err != nil {
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: file}, Msg: err.Error()})
	}
	return recs, fs
}

func fromResult(res *benchfmt.Result) (Record, []string) {
	var rec Record
	var errs []string
	f, line := res.Pos()
	rec.Pos = diag.Pos{File: f, Line: line}
	base, parts := res.Name.Parts()
	if string(base) != BenchName {
		return rec, []string{fmt.Sprintf("benchmark name must start with Benchmark%s/", BenchName)}
	}
	seen := map[string]bool{}
	for _, p := range parts {
		if p[0] == '-' { // GOMAXPROCS suffix
			continue
		}
		key, val, ok := strings.Cut(string(p[1:]), "=")
		if !ok {
			errs = append(errs, fmt.Sprintf("name part %q is not key=value", p[1:]))
			continue
		}
		if seen[key] {
			errs = append(errs, fmt.Sprintf("name key %q given twice", key))
		}
		seen[key] = true
		switch key {
		case "op":
			rec.Op = val
		case "workload":
			rec.Workload = val
		case "dtype":
			rec.DType = val
		default:
			errs = append(errs, fmt.Sprintf("unknown name key %q (want op, workload, dtype)", key))
		}
	}
	rec.Device = res.GetConfig(ConfigDevice)
	rec.Roof = res.GetConfig(ConfigRoof)
	rec.Iters = res.Iters
	var ok bool
	if rec.Seconds, ok = res.Value(UnitSeconds); !ok {
		errs = append(errs, "no "+UnitSeconds+" (or ns/op) value")
	}
	rec.Flops, errs = count(res, UnitFlops, errs)
	rec.Bytes, errs = count(res, UnitBytes, errs)
	if errs != nil {
		return rec, errs
	}
	return rec, Check(rec)
}

// count reads an integer count value in unit u.
func count(res *benchfmt.Result, u string, errs []string) (int64, []string) {
	v, ok := res.Value(u)
	switch {
	case !ok:
		return 0, append(errs, "no "+u+" value")
	case v != math.Trunc(v) || v < 0 || v > maxExact:
		return 0, append(errs, fmt.Sprintf("%s %v is not a whole number in [0, 2^53]", u, v))
	}
	return int64(v), errs
}

// JSONWriter writes records as JSON lines, one object per line. Unlike the benchmark format
// it carries counts above 2^53 exactly.
type JSONWriter struct{ enc *json.Encoder }

// NewJSONWriter returns a writer of JSON lines records to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{json.NewEncoder(w)} }

// Write writes one record, refusing one that Check rejects.
func (jw *JSONWriter) Write(r Record) error {
	if errs := Check(r); errs != nil {
		return fmt.Errorf("record %s/%s/%s: %s", r.Op, r.Workload, r.DType, strings.Join(errs, "; "))
	}
	return jw.enc.Encode(r)
}

// ReadJSON reads JSON lines records from r; file names them in findings. Unknown fields are
// errors; blank lines are skipped.
func ReadJSON(r io.Reader, file string) ([]Record, diag.Findings) {
	var recs []Record
	var fs diag.Findings
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		pos := diag.Pos{File: file, Line: line}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var rec Record
		if err := dec.Decode(&rec); err != nil {
			fs = append(fs, diag.Finding{Pos: pos, Msg: err.Error()})
			continue
		}
		if dec.More() {
			fs = append(fs, diag.Finding{Pos: pos, Msg: "more than one JSON value on the line"})
			continue
		}
		rec.Pos = pos
		errs := Check(rec)
		for _, e := range errs {
			fs = append(fs, diag.Finding{Pos: pos, Msg: e})
		}
		if errs == nil {
			recs = append(recs, rec)
		}
	}
	if err := sc.Err(); err != nil {
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: file}, Msg: err.Error()})
	}
	return recs, fs
}

// ReadFiles reads records from each path, in order, telling the two encodings apart by the
// first non-blank byte: '{' starts JSON lines, which no benchmark format line can.
func ReadFiles(paths ...string) ([]Record, diag.Findings) {
	var recs []Record
	var fs diag.Findings
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			fs = append(fs, diag.Finding{Pos: diag.Pos{File: p}, Msg: err.Error()})
			continue
		}
		read := ReadBench
		if t := bytes.TrimLeftFunc(data, unicode.IsSpace); len(t) > 0 && t[0] == '{' {
			read = ReadJSON
		}
		rs, f := read(bytes.NewReader(data), p)
		recs = append(recs, rs...)
		fs = append(fs, f...)
	}
	return recs, fs
}
