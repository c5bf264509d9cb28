package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
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
	// UnitMinSeconds and UnitMaxSeconds are the units of Record.MinSeconds and MaxSeconds:
	// metrics of their own to benchstat, which compares them run against run like sec/op.
	UnitMinSeconds = "min-sec/op"
	UnitMaxSeconds = "max-sec/op"
	// UnitRefRate is the unit of Record.RefRate (bytes/s), written only when the row has a
	// same-time reference.
	UnitRefRate = "ref-B/s"
	// UnitRefRateLow and UnitRefRateHigh are the units of Record.RefRateLow and
	// RefRateHigh (bytes/s), written only when the record has them.
	UnitRefRateLow  = "ref-lo-B/s"
	UnitRefRateHigh = "ref-hi-B/s"
	// UnitProbeRate, UnitProbeRateLow and UnitProbeRateHigh are the units of
	// Record.ProbeRate and its interval (FLOP/s), written only when the record has them.
	UnitProbeRate     = "probe-FLOP/s"
	UnitProbeRateLow  = "probe-lo-FLOP/s"
	UnitProbeRateHigh = "probe-hi-FLOP/s"
	// ConfigDevice and ConfigRoof are the configuration keys of Record.Device and Record.Roof.
	ConfigDevice = "device"
	ConfigRoof   = "roof"
	// ConfigImpl is the configuration key of Record.Impl, written only when it is set.
	ConfigImpl = "impl"
)

// MinTime is the shortest time a record may give, other than 0 (no device activity): a
// picosecond, a few hundred times shorter than one clock cycle of any processor. A shorter
// time is no measurement, and the rates and efficiencies priced from it would be dozens of
// digits long or infinite.
const MinTime = 1e-12

// MaxTime is the longest time a record may give: an hour. No benchmark times one call for
// longer, and a time in nanoseconds written as seconds would otherwise be priced, silently,
// at an efficiency that rounds to nothing.
const MaxTime = 3600

// MinRefRate is the slowest same-time reference a record may give, other than 0 (none): a
// megabyte a second, thousands of times slower than any memory streams.
const MinRefRate = 1e6

// MinProbeRate is the slowest same-time compute probe a record may give, other than 0
// (none): a million FLOP/s, thousands of times slower than any SIMD unit computes.
const MinProbeRate = 1e6

// maxExact is the largest integer a float64 holds exactly; the benchmark format writes every
// value as a float, so larger counts would come back changed.
const maxExact = 1 << 53

// Check returns what is wrong with r as a record, or nil. Writers refuse such a record and
// readers report it at its position.
func Check(r Record) []string {
	var errs []string
	if r.Device == "" || strings.ContainsAny(r.Device, "\r\n") {
		errs = append(errs, fmt.Sprintf("device %q must be one non-empty line", r.Device))
	} else if msg := invisibleError(r.Device); msg != "" {
		errs = append(errs, fmt.Sprintf("device %q %s", r.Device, msg))
	}
	errs = append(errs, lengthError("device", r.Device)...)
	for _, f := range []struct{ key, val string }{{"op", r.Op}, {"workload", r.Workload}, {"dtype", r.DType}, {ConfigRoof, r.Roof}} {
		errs = append(errs, NameErrors(f.key, f.val)...)
	}
	if r.Impl != "" {
		errs = append(errs, NameErrors(ConfigImpl, r.Impl)...)
	}
	if msg := RoofFitError(r.Roof, r.DType); msg != "" {
		errs = append(errs, msg)
	}
	if trailingProcs(r.DType) {
		// The format reads a final "-<digits>" as the GOMAXPROCS suffix.
		errs = append(errs, fmt.Sprintf("dtype %q must not end in -<digits>", r.DType))
	}
	if r.Flops < 0 || r.Bytes < 0 {
		errs = append(errs, fmt.Sprintf("flops %d and bytes %d must not be negative", r.Flops, r.Bytes))
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"seconds", r.Seconds}, {"min_seconds", r.MinSeconds}, {"max_seconds", r.MaxSeconds}} {
		switch {
		case f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0):
			errs = append(errs, fmt.Sprintf("%s %v must be finite and not negative", f.key, f.v))
		case f.v > 0 && f.v < MinTime:
			errs = append(errs, fmt.Sprintf("%s %v is below %g s, faster than any call can be: a unit slip (ns for s?) or a broken timer", f.key, f.v, MinTime))
		case f.v > MaxTime:
			errs = append(errs, fmt.Sprintf("%s %v is above %g s (record.MaxTime), longer than any benchmark times one call: a unit slip (ns written as s?)", f.key, f.v, float64(MaxTime)))
		}
	}
	// The same-time rates: a reference's in B/s, the compute probe's in FLOP/s.
	for _, f := range []struct {
		key, unit, slip string
		v, min          float64
	}{
		{"ref_rate", "B/s", "GB/s for B/s?", r.RefRate, MinRefRate}, {"ref_rate_low", "B/s", "GB/s for B/s?", r.RefRateLow, MinRefRate}, {"ref_rate_high", "B/s", "GB/s for B/s?", r.RefRateHigh, MinRefRate},
		{"probe_rate", "FLOP/s", "GFLOP/s for FLOP/s?", r.ProbeRate, MinProbeRate}, {"probe_rate_low", "FLOP/s", "GFLOP/s for FLOP/s?", r.ProbeRateLow, MinProbeRate}, {"probe_rate_high", "FLOP/s", "GFLOP/s for FLOP/s?", r.ProbeRateHigh, MinProbeRate},
	} {
		switch {
		case f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0):
			errs = append(errs, fmt.Sprintf("%s %v must be finite and not negative", f.key, f.v))
		case f.v > 0 && f.v < f.min:
			errs = append(errs, fmt.Sprintf("%s %v %s is below %g %s, slower than any hardware runs: a unit slip (%s)", f.key, f.v, f.unit, f.min, f.unit, f.slip))
		}
	}
	switch {
	case r.MinSeconds == 0 && r.MaxSeconds == 0: // no spread
	case !(r.MinSeconds <= r.Seconds && r.Seconds <= r.MaxSeconds):
		errs = append(errs, fmt.Sprintf("spread: min_seconds %v <= seconds %v <= max_seconds %v does not hold", r.MinSeconds, r.Seconds, r.MaxSeconds))
	case r.MinSeconds == 0:
		// The fastest sample prices the physics check: 0 s would be an infinite rate.
		errs = append(errs, fmt.Sprintf("spread: min_seconds 0 with max_seconds %v: the fastest sample of a spread is a measured time (give both 0 when the record keeps no spread)", r.MaxSeconds))
	}
	if (r.RefRateLow != 0 || r.RefRateHigh != 0) && !(r.RefRate > 0 && r.RefRateLow <= r.RefRate && r.RefRate <= r.RefRateHigh) {
		errs = append(errs, fmt.Sprintf("interval: ref_rate_low %v <= ref_rate %v <= ref_rate_high %v does not hold", r.RefRateLow, r.RefRate, r.RefRateHigh))
	}
	if (r.ProbeRateLow != 0 || r.ProbeRateHigh != 0) && !(r.ProbeRate > 0 && r.ProbeRateLow <= r.ProbeRate && r.ProbeRate <= r.ProbeRateHigh) {
		errs = append(errs, fmt.Sprintf("interval: probe_rate_low %v <= probe_rate %v <= probe_rate_high %v does not hold", r.ProbeRateLow, r.ProbeRate, r.ProbeRateHigh))
	}
	if r.Iters < 0 {
		errs = append(errs, fmt.Sprintf("iters %d must not be negative", r.Iters))
	}
	return errs
}

// NameErrors returns why s cannot be the op, workload, dtype or roof of a record (key names
// which), or nil: the rule a manifest's workload labels meet too, so that no workload is
// declared that no record can carry.
func NameErrors(key, s string) []string {
	var errs []string
	if msg := nameValueError(s); msg != "" {
		errs = append(errs, fmt.Sprintf("%s %q %s", key, s, msg))
	}
	return append(errs, lengthError(key, s)...)
}

func lengthError(key, s string) []string {
	if len(s) > MaxFieldBytes {
		return []string{fmt.Sprintf("%s is %d bytes long; the limit is %d (record.MaxFieldBytes)", key, len(s), MaxFieldBytes)}
	}
	return nil
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
	return invisibleError(s)
}

// invisibleError says why s cannot be a name because of an invisible formatting character
// (Unicode category Cf: a bidirectional override such as U+202E, which reverses the rest of
// a table row in a terminal, numbers included; a zero-width space, which makes
// "Gemm\u200bFwd" look like GemmFwd), or "".
func invisibleError(s string) string {
	for _, c := range s {
		if unicode.Is(unicode.Cf, c) {
			return fmt.Sprintf("contains the invisible formatting character %U: it would reorder or hide text where the name is shown", c)
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
	if withImpl := r.Impl != ""; len(res.Config) > 0 && withImpl != (len(res.Config) == 3) {
		// A Result indexes its configuration keys once: a key dropped or added on a reused
		// one leaves the index stale.
		*res = benchfmt.Result{}
	}
	res.Config = append(res.Config[:0],
		benchfmt.Config{Key: ConfigDevice, Value: []byte(r.Device), File: true},
		benchfmt.Config{Key: ConfigRoof, Value: []byte(r.Roof), File: true})
	if r.Impl != "" {
		res.Config = append(res.Config, benchfmt.Config{Key: ConfigImpl, Value: []byte(r.Impl), File: true})
	}
	res.Name = fmt.Appendf(res.Name[:0], "%s/op=%s/workload=%s/dtype=%s", BenchName, r.Op, r.Workload, r.DType)
	res.Iters = r.Iters
	res.Values = append(res.Values[:0], benchfmt.Value{Value: r.Seconds, Unit: UnitSeconds})
	if r.MinSeconds != 0 || r.MaxSeconds != 0 {
		res.Values = append(res.Values,
			benchfmt.Value{Value: r.MinSeconds, Unit: UnitMinSeconds},
			benchfmt.Value{Value: r.MaxSeconds, Unit: UnitMaxSeconds})
	}
	res.Values = append(res.Values,
		benchfmt.Value{Value: float64(r.Flops), Unit: UnitFlops},
		benchfmt.Value{Value: float64(r.Bytes), Unit: UnitBytes})
	res.Values = appendRate(res.Values, r.RefRate, r.RefRateLow, r.RefRateHigh, UnitRefRate, UnitRefRateLow, UnitRefRateHigh)
	res.Values = appendRate(res.Values, r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh, UnitProbeRate, UnitProbeRateLow, UnitProbeRateHigh)
	return bw.w.Write(res)
}

// appendRate appends a same-time rate and its interval, each only when the record has it.
func appendRate(vs []benchfmt.Value, rate, lo, hi float64, unit, unitLo, unitHi string) []benchfmt.Value {
	if rate != 0 {
		vs = append(vs, benchfmt.Value{Value: rate, Unit: unit})
	}
	if lo != 0 || hi != 0 {
		vs = append(vs, benchfmt.Value{Value: lo, Unit: unitLo}, benchfmt.Value{Value: hi, Unit: unitHi})
	}
	return vs
}

// ReadBench reads Go benchmark format records from r; file names them in findings. Results
// whose base name is not BenchName are errors, so a record cannot be silently skipped, and so
// is every line that is neither blank, a comment (#), a configuration line (key: value), a
// Unit line, a result, nor the PASS and ok lines that go test prints after its results:
// benchfmt would skip it without a word (an indented or misspelled result line, a result
// line with a name and no values). Values in other units (ns/op is tidied to sec/op; B/op,
// allocs/op from -benchmem) are ignored, and so is a GOMAXPROCS suffix on the name. It
// reads at most MaxRecords records.
func ReadBench(r io.Reader, file string) ([]Record, diag.Findings) {
	st := newReadState()
	recs, fs := st.readBench(r, file, nil)
	return recs, fs.Sort()
}

// MaxRecords is the most records one read keeps (ReadFiles, ReadBench or ReadJSON): a report
// keeps every row in memory with its price, so a run beyond half a million records is
// refused with an error rather than left to run the machine out of memory. Split such a run
// into several reports. With MaxInputBytes it bounds what a report holds (docs/report.md
// states it per record).
const MaxRecords = 1 << 19

// MaxInputBytes is the most bytes of record files one read takes: the names a record keeps
// come from its file, up to MaxFieldBytes each, so the count of records alone does not bound
// their memory. ReadFiles refuses files whose sizes add up to more before reading any of
// them; a read that meets more (a pipe) stops there with an error.
const MaxInputBytes = 128 << 20

// MaxFieldBytes is the longest device, op, workload, dtype or roof a record may have: names
// of the catalog and of devices are a few dozen bytes, and the bound keeps what one record
// costs in memory bounded too.
const MaxFieldBytes = 512

// readState is what one read shares across files: the names met so far, so that the
// records of a run share their repeated device, op, dtype and roof strings instead of each
// holding a copy, and the records kept, against MaxRecords.
type readState struct {
	names     map[string]string
	n         int
	limit     int   // MaxRecords; a test sets less
	full      bool  // limit reached: the finding is written, nothing more is read
	byteLimit int64 // MaxInputBytes; a test sets less
	read      int64 // bytes read, against byteLimit
}

func newReadState() *readState {
	return &readState{names: map[string]string{}, limit: MaxRecords, byteLimit: MaxInputBytes}
}

// budget passes r on until the read has taken byteLimit bytes in all, then fails with an
// error that says so.
type budget struct {
	r  io.Reader
	st *readState
}

func (b budget) Read(p []byte) (int, error) {
	left := b.st.byteLimit - b.st.read
	if left <= 0 {
		return 0, fmt.Errorf("more than %d bytes of records (record.MaxInputBytes): the rest are not read; split the run into several reports", b.st.byteLimit)
	}
	n, err := b.r.Read(p[:min(int64(len(p)), left)])
	b.st.read += int64(n)
	return n, err
}

// maxInterned bounds the names table: past it names are kept as read (a run whose every
// row has its own op would only grow the table).
const maxInterned = 1 << 16

// name returns b as a string, shared with every earlier equal name.
func (st *readState) name(b []byte) string {
	if s, ok := st.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(st.names) < maxInterned {
		st.names[s] = s
	}
	return s
}

// keep reports whether one more record may be kept, and writes the finding at pos the first
// time it may not.
func (st *readState) keep(pos diag.Pos, fs *diag.Findings) bool {
	if st.full {
		return false
	}
	if st.n == st.limit {
		st.full = true
		*fs = append(*fs, diag.Finding{Pos: pos, Msg: fmt.Sprintf("more than %d records (record.MaxRecords): the rest are not read; split the run into several reports", st.limit)})
		return false
	}
	st.n++
	return true
}

func (st *readState) readBench(r io.Reader, file string, recs []Record) ([]Record, diag.Findings) {
	r, fs := skipBOM(budget{r, st}, file)
	lc := &lineCheck{r: bufio.NewReaderSize(r, 64<<10), file: file, fs: &fs}
	br := benchfmt.NewReader(lc, file)
	for !st.full && br.Scan() {
		switch res := br.Result().(type) {
		case *benchfmt.SyntaxError:
			fs = append(fs, diag.Finding{Pos: diag.Pos{File: res.FileName, Line: res.Line}, Msg: res.Msg})
		case *benchfmt.Result:
			rec, errs := st.fromResult(res)
			if errs == nil && st.keep(rec.Pos, &fs) {
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

// lineCheck passes a benchmark format file through unchanged, line by line, and writes a
// finding for each line benchfmt would skip without a word.
type lineCheck struct {
	r    *bufio.Reader
	file string
	fs   *diag.Findings
	line int
	rest []byte // what is left of the current line to hand on
	mid  bool   // the current line was longer than the buffer: its first part was checked
	col  int    // bytes of the current line before this chunk
	cr   int    // column of a carriage return that ended the last chunk, 0 if none
	// crSeen: the current line has its carriage return finding.
	crSeen bool
}

// bareCR writes a finding for the first carriage return of the current line that does not
// end it (\r\n, or \r at the end of the file): the format ends lines at \n alone, so a
// line "# log\rBenchmark..." is one comment, and "roof: x\rBenchmark..." one roof value,
// and the record after the \r would be read as part of them, or not at all. more says the
// line goes on past chunk.
func (lc *lineCheck) bareCR(chunk []byte, more bool) {
	at := -1
	if lc.cr > 0 && (len(chunk) == 0 || chunk[0] != '\n') {
		at = lc.cr
	}
	lc.cr = 0
	body := chunk
	if !more {
		body = bytes.TrimSuffix(bytes.TrimSuffix(body, []byte("\n")), []byte("\r"))
	} else if bytes.HasSuffix(body, []byte("\r")) {
		body = body[:len(body)-1] // the line goes on: the next chunk says whether \n follows
		lc.cr = lc.col + len(body) + 1
	}
	if i := bytes.IndexByte(body, '\r'); at < 0 && i >= 0 {
		at = lc.col + i + 1
	}
	if at > 0 && !lc.crSeen {
		lc.crSeen = true
		*lc.fs = append(*lc.fs, diag.Finding{Pos: diag.Pos{File: lc.file, Line: lc.line, Col: at},
			Msg: "a carriage return (\\r) inside the line: lines end at a line feed (\\n, or \\r\\n), and what follows the \\r would be read as part of this line or not at all; break the line there"})
	}
	lc.col += len(chunk)
	if !more {
		lc.crSeen = false
	}
}

func (lc *lineCheck) Read(p []byte) (int, error) {
	if len(lc.rest) == 0 {
		chunk, err := lc.r.ReadSlice('\n')
		if len(chunk) == 0 {
			if err == bufio.ErrBufferFull {
				err = nil
			}
			if err == nil {
				err = io.ErrNoProgress
			}
			return 0, err
		}
		if !lc.mid {
			lc.line++
			lc.col = 0
			if msg := benchLineError(chunk, err != bufio.ErrBufferFull); msg != "" {
				*lc.fs = append(*lc.fs, diag.Finding{Pos: diag.Pos{File: lc.file, Line: lc.line}, Msg: msg})
			}
		}
		lc.bareCR(chunk, err == bufio.ErrBufferFull)
		lc.mid = err == bufio.ErrBufferFull
		lc.rest = chunk
	}
	n := copy(p, lc.rest)
	lc.rest = lc.rest[n:]
	return n, nil
}

// benchLineError says why a line of a benchmark format file is neither blank, a comment, a
// configuration or Unit line, a result, nor go test's PASS or ok line, or "". whole is false
// when line is only the start of a longer line.
func benchLineError(line []byte, whole bool) string {
	line = bytes.TrimRight(line, "\r\n")
	trimmed := bytes.TrimSpace(line)
	switch {
	case len(trimmed) == 0, trimmed[0] == '#':
		return ""
	case bytes.HasPrefix(line, []byte("Benchmark")):
		if name, rest, _ := bytes.Cut(line, []byte(" ")); whole && len(bytes.TrimSpace(rest)) == 0 && !bytes.ContainsAny(name, "\t") {
			return "a result line with a name and no values (go test -v prints such a line when a benchmark starts; a record has its iterations and values after the name)"
		}
		return ""
	case bytes.HasPrefix(line, []byte("Unit ")) || bytes.HasPrefix(line, []byte("Unit\t")):
		return ""
	case isConfigLine(line):
		return ""
	case string(line) == "PASS", bytes.HasPrefix(line, []byte("ok ")), bytes.HasPrefix(line, []byte("ok\t")):
		return ""
	case bytes.HasPrefix(trimmed, []byte("Benchmark")):
		return "a result line starts at the first column: remove the indentation"
	case len(trimmed) >= len("Benchmark") && bytes.EqualFold(trimmed[:len("Benchmark")], []byte("Benchmark")):
		return fmt.Sprintf("%q is not a result line: a result line starts with Benchmark (capital B, then the name)", string(trimmed[:len("Benchmark")]))
	}
	return "not a record, a configuration line (key: value), a Unit line, a comment (#) or blank: the benchmark format would skip it"
}

// ConfigValue returns the value of the first configuration line of the benchmark format text
// r whose key is key (the rule of isConfigLine, the one the reader applies), with the spaces
// around it trimmed; "" where there is none, or where r cannot be read up to it.
func ConfigValue(r io.Reader, key string) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := sc.Bytes(); isConfigLine(line) {
			if k, v, _ := bytes.Cut(line, []byte(":")); string(k) == key {
				return strings.TrimSpace(string(v))
			}
		}
	}
	return ""
}

// isConfigLine reports whether line is a benchmark format configuration line: a key that
// starts with a lower-case letter and holds no space or upper-case letter, a colon, then
// nothing or a space or tab before the value (benchfmt's rule).
func isConfigLine(line []byte) bool {
	key, val, ok := bytes.Cut(line, []byte(":"))
	if !ok || len(key) == 0 {
		return false
	}
	for i, r := range string(key) {
		if i == 0 && !unicode.IsLower(r) || unicode.IsSpace(r) || unicode.IsUpper(r) {
			return false
		}
	}
	return len(val) == 0 || val[0] == ' ' || val[0] == '\t'
}

func (st *readState) fromResult(res *benchfmt.Result) (Record, []string) {
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
		k, val, ok := bytes.Cut(p[1:], []byte("="))
		if !ok {
			errs = append(errs, fmt.Sprintf("name part %q is not key=value", p[1:]))
			continue
		}
		key := string(k)
		if seen[key] {
			errs = append(errs, fmt.Sprintf("name key %q given twice", key))
		}
		seen[key] = true
		switch key {
		case "op":
			rec.Op = st.name(val)
		case "workload":
			rec.Workload = string(val)
		case "dtype":
			rec.DType = st.name(val)
		default:
			errs = append(errs, fmt.Sprintf("unknown name key %q (want op, workload, dtype)", key))
		}
	}
	for _, c := range res.Config {
		switch c.Key {
		case ConfigDevice:
			rec.Device = st.name(c.Value)
		case ConfigRoof:
			rec.Roof = st.name(c.Value)
		case ConfigImpl:
			rec.Impl = st.name(c.Value)
		}
	}
	rec.Iters = res.Iters
	// A unit given twice would let one value override the other: refuse it, as the JSON
	// reader refuses a key given twice.
	units := map[string]int{}
	for _, v := range res.Values {
		if units[v.Unit]++; units[v.Unit] == 2 {
			errs = append(errs, fmt.Sprintf("unit %s given twice", v.Unit))
		}
	}
	var ok bool
	if rec.Seconds, ok = res.Value(UnitSeconds); !ok {
		errs = append(errs, "no "+UnitSeconds+" (or ns/op) value")
	}
	rec.MinSeconds, rec.MaxSeconds, errs = pair(res, UnitMinSeconds, UnitMaxSeconds, errs)
	rec.RefRate, _ = res.Value(UnitRefRate) // optional: 0 (none) when absent
	rec.RefRateLow, rec.RefRateHigh, errs = pair(res, UnitRefRateLow, UnitRefRateHigh, errs)
	rec.ProbeRate, _ = res.Value(UnitProbeRate) // optional, as RefRate
	rec.ProbeRateLow, rec.ProbeRateHigh, errs = pair(res, UnitProbeRateLow, UnitProbeRateHigh, errs)
	rec.Flops, errs = count(res, UnitFlops, errs)
	rec.Bytes, errs = count(res, UnitBytes, errs)
	if errs != nil {
		return rec, errs
	}
	return rec, Check(rec)
}

// count reads an integer count value in unit u.
// pair reads two optional values that come together or not at all (a spread, an interval):
// both 0 when neither is given.
func pair(res *benchfmt.Result, ua, ub string, errs []string) (a, b float64, _ []string) {
	a, okA := res.Value(ua)
	b, okB := res.Value(ub)
	if okA != okB {
		return 0, 0, append(errs, fmt.Sprintf("%s and %s come together or not at all", ua, ub))
	}
	return a, b, errs
}

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

// ReadJSON reads JSON lines records from r; file names them in findings. Each line is one
// object with exactly the keys the writer writes, spelled as it spells them: an unknown key,
// a key given twice or in another case ("BYTES"), and a missing required key are errors at
// the line, so no record is read as anything but what its line says. min_seconds and
// max_seconds may be left out together (a record with no spread: a history keeps records as
// long as their runs, so the reader takes every form the writer has written), and
// ref_rate may be left out (a row without a same-time reference; the writer leaves it out
// then). Blank lines are skipped. It reads at most MaxRecords records.
func ReadJSON(r io.Reader, file string) ([]Record, diag.Findings) {
	return newReadState().readJSON(r, file, nil)
}

// maxJSONLine is the longest JSON lines record line: a record whose every name is
// MaxFieldBytes long, escaped, is well under it.
const maxJSONLine = 64 << 10

func (st *readState) readJSON(r io.Reader, file string, recs []Record) ([]Record, diag.Findings) {
	r, fs := skipBOM(budget{r, st}, file)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxJSONLine)
	line := 1
	for ; !st.full && sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		pos := diag.Pos{File: file, Line: line}
		rec, err := decodeJSON(b)
		if err != nil {
			fs = append(fs, diag.Finding{Pos: pos, Msg: err.Error()})
			continue
		}
		rec.Pos = pos
		errs := Check(rec)
		for _, e := range errs {
			fs = append(fs, diag.Finding{Pos: pos, Msg: e})
		}
		if errs == nil && st.keep(pos, &fs) {
			rec.Device, rec.Impl, rec.Op, rec.DType, rec.Roof = st.intern(rec.Device), st.intern(rec.Impl), st.intern(rec.Op), st.intern(rec.DType), st.intern(rec.Roof)
			recs = append(recs, rec)
		}
	}
	if err := sc.Err(); err != nil {
		msg := err.Error()
		if err == bufio.ErrTooLong {
			msg = fmt.Sprintf("the line is longer than %d bytes, more than any record: the rest of the file is not read", maxJSONLine)
		}
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: file, Line: line}, Msg: msg})
	}
	return recs, fs
}

// intern returns s, or the equal name met before.
func (st *readState) intern(s string) string {
	if t, ok := st.names[s]; ok {
		return t
	}
	if len(st.names) < maxInterned {
		st.names[s] = s
	}
	return s
}

// jsonKey is a key of a JSON lines record and where its value goes; an optional one may be
// missing.
type jsonKey struct {
	key      string
	dst      any
	optional bool
}

func jsonKeys(r *Record) []jsonKey {
	return []jsonKey{
		{"device", &r.Device, false}, {"impl", &r.Impl, true}, {"op", &r.Op, false}, {"workload", &r.Workload, false},
		{"dtype", &r.DType, false}, {"roof", &r.Roof, false}, {"flops", &r.Flops, false},
		{"bytes", &r.Bytes, false}, {"seconds", &r.Seconds, false},
		{"min_seconds", &r.MinSeconds, true}, {"max_seconds", &r.MaxSeconds, true},
		{"iters", &r.Iters, false}, {"ref_rate", &r.RefRate, true},
		{"ref_rate_low", &r.RefRateLow, true}, {"ref_rate_high", &r.RefRateHigh, true},
		{"probe_rate", &r.ProbeRate, true}, {"probe_rate_low", &r.ProbeRateLow, true}, {"probe_rate_high", &r.ProbeRateHigh, true},
	}
}

// decodeJSON decodes one record object key by key: encoding/json alone would match keys
// case-insensitively and let a later duplicate override an earlier one.
func decodeJSON(b []byte) (Record, error) {
	var rec Record
	keys := jsonKeys(&rec)
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return rec, fmt.Errorf("a record is one JSON object on one line")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return rec, err
		}
		name := t.(string) // object keys are strings
		i := slices.IndexFunc(keys, func(k jsonKey) bool { return k.key == name })
		if i < 0 {
			return rec, fmt.Errorf("unknown key %q (keys are lower case: device, impl, op, workload, dtype, roof, flops, bytes, seconds, min_seconds, max_seconds, iters, ref_rate, ref_rate_low, ref_rate_high, probe_rate, probe_rate_low, probe_rate_high)", name)
		}
		if seen[name] {
			return rec, fmt.Errorf("key %q given twice", name)
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return rec, err
		}
		// null would leave the field as it was (zero) without an error.
		if string(raw) == "null" {
			return rec, fmt.Errorf("%s is null", name)
		}
		if err := json.Unmarshal(raw, keys[i].dst); err != nil {
			return rec, fmt.Errorf("%s: %s is not a value of this key (%v)", name, raw, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return rec, err
	}
	if dec.More() {
		return rec, fmt.Errorf("more than one JSON value on the line")
	}
	if _, err := dec.Token(); err != io.EOF {
		return rec, fmt.Errorf("more than one JSON value on the line")
	}
	var missing []string
	for _, k := range keys {
		if !seen[k.key] && !k.optional {
			missing = append(missing, k.key)
		}
	}
	if len(missing) > 0 {
		return rec, fmt.Errorf("missing key(s) %s: a record states every count and time it is priced on", strings.Join(missing, ", "))
	}
	if seen["min_seconds"] != seen["max_seconds"] {
		return rec, fmt.Errorf("min_seconds and max_seconds come together or not at all")
	}
	if seen["ref_rate_low"] != seen["ref_rate_high"] {
		return rec, fmt.Errorf("ref_rate_low and ref_rate_high come together or not at all")
	}
	if seen["probe_rate_low"] != seen["probe_rate_high"] {
		return rec, fmt.Errorf("probe_rate_low and probe_rate_high come together or not at all")
	}
	return rec, nil
}

// bom is the UTF-8 byte order mark.
var bom = []byte("\uFEFF")

// skipBOM returns r after a leading UTF-8 byte order mark, with a finding at line 1 when
// there was one: some editors write it, and benchfmt would read the first line, BOM and
// all, as no result at all.
func skipBOM(r io.Reader, file string) (io.Reader, diag.Findings) {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
		br.Discard(len(bom))
		return br, diag.Findings{{Pos: diag.Pos{File: file, Line: 1, Col: 1},
			Msg: "the file starts with a UTF-8 byte order mark: remove it (records are plain UTF-8 text)"}}
	}
	return br, nil
}

// ReadFiles reads records from each path, in order, telling the two encodings apart by the
// first non-blank byte: '{' starts JSON lines, which no benchmark format line can. Files are
// streamed, never read whole, and the records of all of them together are at most
// MaxRecords.
func ReadFiles(paths ...string) ([]Record, diag.Findings) {
	var recs []Record
	var fs diag.Findings
	st := newReadState()
	if fs = st.tooBig(paths); fs != nil {
		return nil, fs
	}
	for _, p := range paths {
		if st.full {
			break
		}
		f, err := os.Open(p)
		if err != nil {
			fs = append(fs, diag.Finding{Pos: diag.Pos{File: p}, Msg: err.Error()})
			continue
		}
		br := bufio.NewReaderSize(f, 64<<10)
		var more diag.Findings
		if jsonLines(br) {
			recs, more = st.readJSON(br, p, recs)
		} else {
			recs, more = st.readBench(br, p, recs)
		}
		f.Close()
		fs = append(fs, more...)
	}
	return recs, fs.Sort()
}

// tooBig returns a finding at each of paths when the regular files among them add up to more
// than byteLimit, so that nothing of them is read.
func (st *readState) tooBig(paths []string) diag.Findings {
	var total int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	if total <= st.byteLimit {
		return nil
	}
	var fs diag.Findings
	for _, p := range paths {
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: p}, Msg: fmt.Sprintf("the record files add up to %d bytes, more than one report reads (record.MaxInputBytes, %d): nothing is read; split the run into several reports", total, st.byteLimit)})
	}
	return fs
}

// jsonLines reports whether the first non-blank byte of br, after a byte order mark, is '{':
// it looks as far as br's buffer holds, and leaves br as it was.
func jsonLines(br *bufio.Reader) bool {
	for n := 512; ; n *= 2 {
		b, err := br.Peek(min(n, br.Size()))
		t := bytes.TrimLeftFunc(bytes.TrimPrefix(b, bom), unicode.IsSpace)
		if len(t) > 0 {
			return t[0] == '{'
		}
		if err != nil || len(b) == br.Size() {
			return false
		}
	}
}
