package bench

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/ropgen/ropgen/perf/cold"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/stats"
)

// Options say how a case is timed and recorded.
type Options struct {
	// Count is the number of records per case, each from its own samples, as `go test
	// -count`: benchstat needs several per row to give a confidence interval and a p-value.
	Count int
	// Samples is the number of timed batches per record; the record is their median.
	Samples int
	// MaxTime is about how long the timed batches of one case last in all (calibration
	// included); each batch lasts MaxTime / (Count×Samples + 2), or one call when a call
	// takes longer.
	MaxTime time.Duration
	// Device is the recorded device name (profiles.HostDeviceName on this machine).
	Device string
	// Impl is the recorded implementation name (record.Record.Impl): the module whose
	// kernels the registry runs ("ropgen" for ropbench). Empty reads as ropgen's own.
	Impl string
	// Seed seeds the inputs (BuildOptions.Seed).
	Seed uint64
	// Evictor, when set, times every case cold, whatever its size: each sample is one call
	// made after evicting the caches (cold.Sample after EvictFor). Nil: every case is timed
	// in warm batches, and a case that fits in the caches runs at cache bandwidth.
	Evictor *cold.Evictor
	// SameTime, when set, times a same-time reference beside the cold rows whose tensors
	// exceed SameTime.Above (DRAM-sized rows): see SameTime. Nil: none.
	SameTime *SameTime
	// Probe, when set, is the same-time compute probe (instrument.Probe.Sample): run once
	// after every sample of a cold case (after the same-time reference, if any), its FLOP/s
	// paired with the samples give the record's ProbeRate. Nil: none.
	Probe func() float64
	// Settle, when set, doubles the samples of a record whose verdict Settle.Open says is
	// still open (Samples, then 2×Samples, 4×Samples, ...), until it is settled, or the
	// record has Settle.Max samples, or its extra samples took Settle.MaxTime. A median of
	// a few cold calls on a shared machine moves by a few percent from run to run, so a row
	// within that of a verdict line crosses it from run to run; more samples narrow the
	// median's interval until it clears the line, or show that the row sits on it. Each
	// look at a row on the line may settle it by chance (the interval is a 99% one at each
	// look, not over all of them), so the looks are few: doubling, not a fixed step. Nil:
	// every record has Samples samples.
	Settle *Settle
}

// SameTime is the same-time reference of the DRAM-sized cold rows: streaming patterns of the
// catalog's own kernels timed one cold call each right after every sample of the row
// (sample, reference, sample, reference, ...), so that the reference saw the machine load
// the row saw, sample by sample. A record's RefRate is the rate of the reference's pattern
// (profiles.RefPattern among Names) paired with the row's samples (refRate); the report convicts a row whose implied rate is well above it
// (report.SameTimeLine), which a fixed ceiling cannot do on a machine whose load moves.
type SameTime struct {
	// Above: only a cold row whose tensors take more than Above bytes (its Storage) gets the
	// reference: beyond the last-level cache its data streams from DRAM, as the
	// reference's does. A smaller row runs partly from cache and has none.
	Above int64
	// Names are the patterns, in the order Sample returns their rates.
	Names []string
	// Sample times one cold call of each pattern, in the same order every time, and returns
	// their rates in bytes/s (instrument.SameTime.Sample).
	Sample func() []float64
}

// applies reports whether the reference is timed beside p, timed cold or not.
func (st *SameTime) applies(p Planned, cold bool) bool {
	return st != nil && cold && p.Storage > st.Above
}

// refRate is the record's RefRate and its interval (RefRateLow, RefRateHigh) from the times
// of its samples and the rates of the reference's calls, one after each sample: the median
// over samples of time × rate, over the median time, and the same with the bounds of that
// median's interval (MedianInterval at MedianAlpha); all 0 when there are none. The row's
// median rate over it is then the median of its per-sample ratios (each sample's rate over
// the reference call right after it, exactly for an odd count): pairing cancels the load
// that moves from sample to sample, which a median of each side apart keeps twice.
func refRate(times, rates []float64) (rate, lo, hi float64) {
	if len(rates) == 0 || len(rates) != len(times) {
		return 0, 0, 0
	}
	paired := make([]float64, len(times))
	for i, t := range times {
		paired[i] = t * rates[i]
	}
	mt := stats.Median(times)
	lo, hi = stats.MedianInterval(paired, stats.MedianAlpha)
	return stats.Median(paired) / mt, lo / mt, hi / mt
}

// refOf returns the rates of the reference's pattern (profiles.RefPattern among names)
// from refs, the rates by pattern; the first pattern's when names name none of them.
func refOf(names []string, refs [][]float64) []float64 {
	if len(refs) == 0 {
		return nil
	}
	if _, i := profiles.RefPattern(names); i >= 0 && i < len(refs) {
		return refs[i]
	}
	return refs[0]
}

// Settle takes more samples of a record whose verdict its samples leave open: see
// Options.Settle.
type Settle struct {
	// Max is the most samples a record takes in all.
	Max int
	// MaxTime bounds the time a record's extra samples take (the references' calls
	// included): a slow case stops there, settled or not.
	MaxTime time.Duration
	// Open reports whether the verdict of rec (a record of the samples so far) is still
	// open: the report's at-the-line reading (benchcmd prices rec with the report's Pricer,
	// so the rule stays the report's).
	Open func(rec record.Record) bool
	// Revisit, when set, reports whether rec's verdict is open because of the machine while
	// it ran, which no number of samples taken then settles: the report's inconclusive
	// reading (its same-time reference or probe far off the calibration's typical state).
	// Run times such a case again after every other case, minutes later, and keeps, record by
	// record, the look Nearer says the machine was nearer its typical state in. The choice
	// rests on the references timed beside the row, never on the row's own times, so it picks
	// the quieter look, not the look that reads better. Nil: no second look.
	Revisit func(rec record.Record) bool
	// Nearer reports whether the machine was nearer its calibrated typical state while a ran
	// than while b ran (report.MachineOff).
	Nearer func(a, b record.Record) bool
}

// DefaultOptions are the options of `ropbench run` without flags.
var DefaultOptions = Options{Count: 1, Samples: 5, MaxTime: time.Second, Seed: 1}

// ErrMismatch is wrapped by Measure's error when the kernel's output differs from the
// reference's: the case is not timed, and a run with such a case fails.
var ErrMismatch = errors.New("kernel output differs from the reference")

// Result is one measured case: its records, or why it has none.
type Result struct {
	Planned
	Records []record.Record
	// Seconds holds the time per call of every sample, in order (Count × Samples values).
	Seconds []float64
	// Cold reports that each sample was one call after evicting the caches.
	Cold bool
	// Refs holds the same-time reference's rates (bytes/s), by pattern (RefNames, from
	// SameTime.Names), one per sample in order; nil when the case had none.
	Refs     [][]float64
	RefNames []string
	// Probes holds the compute probe's rates (FLOP/s), one per sample in order; nil when the
	// case had none.
	Probes []float64
	// Extra is how many samples Options.Settle added to the records, in all.
	Extra int
	// Warning, when set, is printed before the case's progress line: something about how
	// it was timed that its records do not show.
	Warning string
	Err     error
}

// Check reports options that cannot time anything: no record, no sample, no time, no device.
func (o Options) Check() error {
	switch {
	case o.Count < 1:
		return fmt.Errorf("count %d: need at least one record per case", o.Count)
	case o.Samples < 1:
		return fmt.Errorf("samples %d: need at least one sample per record", o.Samples)
	case o.MaxTime <= 0:
		return fmt.Errorf("max time %v must be positive", o.MaxTime)
	case o.Device == "":
		return errors.New("no device name to record")
	}
	return nil
}

// Measure builds the case with data with reg, checks the kernel against the reference first (a fast
// wrong kernel is not a result), then times Forward, cold or in warm batches
// (Options.Evictor), and returns its records. Flops, bytes and roof come from the very op
// value that ran: its EvalRoofline and ComputeRoof. A case Plan skipped is an error.
func Measure(reg Registry, p Planned, opt Options) Result {
	res := Result{Planned: p}
	if res.Err = opt.Check(); res.Err != nil {
		return res
	}
	if p.Skip != "" {
		res.Err = fmt.Errorf("not runnable: %s", p.Skip)
		return res
	}
	in, err := reg.Build(p.Case.Case, BuildOptions{Seed: opt.Seed})
	if err != nil {
		res.Err = err
		return res
	}
	// A kernel that fails outright is an error of its own, not a mismatch.
	if err := in.Run(); err != nil {
		res.Err = fmt.Errorf("kernel: %w", err)
		return res
	}
	if err := in.Check(); err != nil {
		res.Err = fmt.Errorf("%w: %w", ErrMismatch, err)
		return res
	}
	op, ok := in.Op().(Op)
	if !ok {
		res.Err = fmt.Errorf("%s", SkipNotGenerated)
		return res
	}
	flops, bytes, err := op.EvalRoofline()
	if err != nil {
		res.Err = fmt.Errorf("EvalRoofline: %w", err)
		return res
	}
	res.Cold = opt.Evictor != nil
	sameTime := opt.SameTime.applies(p, res.Cold)
	if sameTime {
		res.RefNames = opt.SameTime.Names
		// The reference's warm-up, not kept: its first call may make its arrays (see
		// benchcmd), which must not happen, nor be collected, between timed calls.
		opt.SameTime.Sample()
	}
	probe := res.Cold && opt.Probe != nil
	if probe {
		opt.Probe() // sizes its dispatch; not kept
	}
	// Garbage from building this case and the previous ones must not be collected inside a
	// timed batch; the kernels themselves do not allocate.
	runtime.GC()
	// A cold sample is one call; a warm one a batch of n, calibrated (the warm-up) to last
	// at least its share of MaxTime. The cold case's warm-up is the two calls above.
	n := 1
	var sample func() (float64, error)
	if res.Cold {
		if _, ok := in.(Buffers); !ok && opt.Evictor.Size() > 0 && p.Storage > opt.Evictor.Size()/2 {
			res.Warning = fmt.Sprintf("%s: %d MiB of tensors, beyond the last-level cache, timed cold without flushing them: its instance does not implement bench.Buffers, so the lines a cache kept from its warm-up can make it read faster than DRAM (docs/using.md: bench.Memory hands over any slice)", p.Name(), p.Storage>>20)
		}
		evict := EvictFor(opt.Evictor, in)
		sample = func() (float64, error) { return cold.Sample(in.Run, evict) }
	} else {
		target := opt.MaxTime / time.Duration(opt.Count*opt.Samples+2)
		if n, err = BatchSize(in.Run, target); err != nil {
			res.Err = err
			return res
		}
		sample = func() (float64, error) { return WarmSample(in.Run, n) }
	}
	for range opt.Count {
		var times []float64
		var refs [][]float64 // the reference's rates, by pattern
		var probes []float64
		take := func(k int) error {
			for range k {
				t, err := sample()
				if err != nil {
					return err
				}
				times = append(times, t)
				if sameTime {
					rates := opt.SameTime.Sample()
					if refs == nil {
						refs = make([][]float64, len(rates))
					}
					for j, r := range rates {
						refs[j] = append(refs[j], r)
					}
				}
				if probe {
					probes = append(probes, opt.Probe())
				}
			}
			return nil
		}
		rec := func() record.Record {
			r := record.Record{
				Device: opt.Device, Impl: opt.Impl, Op: p.Case.Case.Op, Workload: p.Case.Case.Label, DType: p.DType,
				Roof: op.ComputeRoof(), Flops: flops, Bytes: bytes,
				Seconds: stats.Median(times), MinSeconds: slices.Min(times), MaxSeconds: slices.Max(times), Iters: n * len(times),
			}
			r.RefRate, r.RefRateLow, r.RefRateHigh = refRate(times, refOf(res.RefNames, refs))
			if probes != nil {
				r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh = refRate(times, probes)
			}
			return r
		}
		if err := take(opt.Samples); err != nil {
			res.Err = err
			return res
		}
		r := rec()
		if st := opt.Settle; st != nil {
			began := time.Now()
			for len(times) < st.Max && time.Since(began) < st.MaxTime && st.Open(r) {
				if err := take(min(len(times), st.Max-len(times))); err != nil {
					res.Err = err
					return res
				}
				r = rec()
			}
			res.Extra += len(times) - opt.Samples
		}
		res.Seconds = append(res.Seconds, times...)
		if res.Refs == nil && refs != nil {
			res.Refs = make([][]float64, len(refs))
		}
		for j := range refs {
			res.Refs[j] = append(res.Refs[j], refs[j]...)
		}
		res.Probes = append(res.Probes, probes...)
		res.Records = append(res.Records, r)
	}
	return res
}

// RecordWriter writes records: record.BenchWriter (Go benchmark format) and
// record.JSONWriter (JSON lines) are two.
type RecordWriter interface {
	Write(record.Record) error
}

// Run measures each planned case in order with reg and writes its records to w as soon as
// it is done (flushing w after each case when it has a Flush method), so a run that stops
// part way has written what it measured. It prints one line per case to progress: the
// median time per call, the spread of the samples, and the rates the op's own counts imply;
// or the error of a case that failed (a kernel that disagrees with its reference among
// them), which writes no record. A case whose verdict Settle.Revisit says the machine left
// open is timed again after all the others and written then, one look or the other record
// by record (Settle.Revisit). It returns the number of failed cases; err is a failure to
// write.
func Run(reg Registry, plans []Planned, opt Options, w RecordWriter, progress io.Writer) (failed int, err error) {
	flusher, _ := w.(interface{ Flush() error })
	write := func(res Result) error {
		for _, r := range res.Records {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		if flusher != nil {
			return flusher.Flush()
		}
		return nil
	}
	var again []Result // the first looks of the cases to time once more, at the end
	st := opt.Settle
	for _, p := range plans {
		res := Measure(reg, p, opt)
		if res.Warning != "" {
			fmt.Fprintf(progress, "warning: %s\n", res.Warning)
		}
		if res.Err != nil {
			failed++
			fmt.Fprintf(progress, "ERROR %s: %v\n", p.Name(), res.Err)
			continue
		}
		if st != nil && st.Revisit != nil && st.Nearer != nil && slices.ContainsFunc(res.Records, st.Revisit) {
			again = append(again, res)
			fmt.Fprintln(progress, res.progress()+"  (open: the machine was off its calibrated state; looked at again at the end)")
			continue
		}
		if err := write(res); err != nil {
			return failed, err
		}
		fmt.Fprintln(progress, res.progress())
	}
	for _, first := range again {
		res := Measure(reg, first.Planned, opt)
		var kept string
		if res.Err != nil {
			res, kept = first, "the first look kept: the second failed: "+res.Err.Error()
		} else {
			// Both looks took opt.Count records.
			n := 0 // records kept from the second look
			for k := range res.Records {
				if st.Nearer(res.Records[k], first.Records[k]) {
					n++
				} else {
					res.Records[k] = first.Records[k]
				}
			}
			switch n {
			case len(res.Records):
				kept = "kept: its references sat nearer the calibrated machine"
			case 0:
				// The line shows the look whose records are written.
				res, kept = first, "the first look kept: its references sat nearer the calibrated machine"
			default:
				kept = fmt.Sprintf("kept for %d of %d records, whose references sat nearer the calibrated machine; the first look's for the others", n, len(res.Records))
			}
		}
		if err := write(res); err != nil {
			return failed, err
		}
		fmt.Fprintln(progress, res.progress()+"  (second look: "+kept+")")
	}
	return failed, nil
}

// progress is the line Run prints for a measured case.
func (res Result) progress() string {
	med := stats.Median(res.Seconds)
	lo, hi := slices.Min(res.Seconds), slices.Max(res.Seconds)
	mode := "warm"
	if res.Cold {
		mode = "cold"
	}
	line := fmt.Sprintf("%-58s %s %10s  [%s .. %s]  %11s  %13s",
		res.Name(), mode, Seconds(med), Seconds(lo), Seconds(hi), report.Rate(float64(res.Bytes)/med, "B/s"), report.Rate(float64(res.Flops)/med, "FLOP/s"))
	if r := res.Records[0]; r.RefRate > 0 {
		// The figure the physics check judges: the row's median rate over the reference's;
		// then each pattern's median and range.
		rate := float64(r.Bytes) / r.Seconds
		line += fmt.Sprintf("  same-time ref %s (row %.2fx", report.Rate(r.RefRate, "B/s"), rate/r.RefRate)
		if r.RefRateLow > 0 {
			// The ratio's interval: the reference's high bound gives its low end.
			line += fmt.Sprintf(" [%.2f .. %.2f]", rate/r.RefRateHigh, rate/r.RefRateLow)
		}
		line += "):"
		for j, rates := range res.Refs {
			name := fmt.Sprintf("ref%d", j)
			if j < len(res.RefNames) {
				name = res.RefNames[j]
			}
			line += fmt.Sprintf(" %s %s [%s .. %s]", name, report.Rate(stats.Median(rates), "B/s"), report.Rate(slices.Min(rates), "B/s"), report.Rate(slices.Max(rates), "B/s"))
		}
	}
	if r := res.Records[0]; r.ProbeRate > 0 {
		line += fmt.Sprintf("  probe %s [%s .. %s]", report.Rate(r.ProbeRate, "FLOP/s"), report.Rate(slices.Min(res.Probes), "FLOP/s"), report.Rate(slices.Max(res.Probes), "FLOP/s"))
	}
	if res.Extra > 0 {
		line += fmt.Sprintf("  +%d samples to settle its verdict (%d in all)", res.Extra, len(res.Seconds))
	}
	return line
}

// Seconds formats a time in seconds with three significant digits and a unit ("12.3µs").
func Seconds(s float64) string { return report.SI(s, "s") }
