// Package calibrate measures the host the way the roofline model needs it (docs/model.md §4): the
// ceilings of the hardware, not of the code that happens to run on it. It measures
//
//   - the SIMD multiply-add peak per dtype (fp32, fp64) with assembly kernels that reach it
//     (AVX2+FMA and AVX-512 on amd64, NEON on arm64, chosen at run time from the CPU's
//     features), and the scalar-Go rate as a second, labelled roof;
//   - a main-memory envelope over access mixes that include the non-temporal-store copy and
//     the streaming patterns of the catalog's kernels, so no legitimate kernel exceeds it;
//   - the L1, L2 and L3 bandwidth from a working-set sweep with plateau detection;
//   - the latency floor of a parallel dispatch;
//
// each repeated in interleaved rounds and kept with its spread (min, median, max), and
// writes the host profile with the provenance of every number. Run is the measurement;
// Render turns its Result into profile YAML.
package calibrate

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ropgen/ropgen/perf/instrument"
	"github.com/ropgen/ropgen/perf/profiles"
)

// WideSpread is the relative spread, (max-min)/median, above which a measurement is flagged
// as noisy: profiles.ComputeTolerance, whose comment says why.
const WideSpread = profiles.ComputeTolerance

// Config holds the knobs of one calibration.
type Config struct {
	Workers  int           // goroutines, one per CPU (GOMAXPROCS)
	ArrayMiB int           // size of each DRAM array; 0: DefaultArrayMiB
	Repeats  int           // interleaved rounds of every measurement
	FMATime  time.Duration // duration of one multiply-add run
	// SweepBytes is the traffic of one cache-sweep measurement per worker; 0 skips the sweep.
	SweepBytes int64
	// SweepMax is the largest per-worker working set of the sweep; 0: from the caches.
	SweepMax int64
	Log      io.Writer // progress and warnings; nil: discarded
}

// Default returns the configuration `ropgen calibrate` uses without flags: short enough to
// run before every benchmark run on a small machine.
func Default() Config {
	return Config{Workers: runtime.GOMAXPROCS(0), Repeats: 7, FMATime: 200 * time.Millisecond, SweepBytes: 128 << 20}
}

// Result is what a calibration found. Rates are bytes/s and FLOP/s.
type Result struct {
	CPU    profiles.CPU
	Config Config
	When   profiles.Conditions
	// Mixes are the memory mixes measured, in profiles.Mixes order, with their spreads: the
	// warm ones, then the cold ones (coldmix.go, over perf/instrument's cold mixes).
	Mixes []MixResult
	// ColdMiB is the size of each array of the cold mixes.
	ColdMiB int
	// Compute holds every multiply-add kernel measured, SIMD and scalar.
	Compute []ComputeResult
	// Sweep is the working-set sweep; Caches the levels found in it; SweepLimit why the
	// sweep's largest size is what it is (sweepMax).
	Sweep      []SweepPoint
	Caches     []CacheLevel
	SweepLimit string
	// Latency is the median empty parallel dispatch in seconds, over Dispatches trials.
	Latency    float64
	Dispatches int
	Warnings   []string
	// Attempt is which attempt of Calibrate this is (0: measured by Run alone).
	Attempt int
}

// MixResult is one memory mix's measurement.
type MixResult struct {
	Name, How     string
	Reads, Writes int // arrays read and written per element index
	Rate          profiles.Spread
	Samples       []float64 // the rates behind Rate, in the order measured (refuse.go)
}

// ComputeResult is one multiply-add kernel's measurement.
type ComputeResult struct {
	Kernel      string // "avx512", "avx2", "neon", "avx512bf16", "amx", "scalar"
	DType       string // "fp32", "fp64", "bf16", "fp16", "int8"
	Lanes, Accs int
	// Unit, How and TileCycles are the kernel's (fmaKernel: unit, how, tileCycles).
	Unit, How  string
	TileCycles int
	Rate       profiles.Spread
	Samples    []float64 // the rates behind Rate, in the order measured (refuse.go)
}

// Envelope returns the mix with the highest best rate: the memory ceiling.
func (r *Result) Envelope() MixResult {
	var best MixResult
	for _, m := range r.Mixes {
		if m.Rate.Max > best.Rate.Max {
			best = m
		}
	}
	return best
}

// Best returns the fastest kernel of dtype among the SIMD kernels (simd true; a matrix
// unit's are not SIMD) or the scalar one, and whether there is one.
func (r *Result) Best(dtype string, simd bool) (ComputeResult, bool) {
	var best ComputeResult
	ok := false
	for _, c := range r.Compute {
		if c.DType == dtype && (c.Kernel != "scalar") == simd && c.Unit != "cube" && c.Rate.Max > best.Rate.Max {
			best, ok = c, true
		}
	}
	return best, ok
}

func (c Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format, args...)
	}
}

// Run measures the host with cfg.
func Run(cfg Config) *Result {
	cpu := profiles.HostCPU()
	if cfg.ArrayMiB == 0 {
		cfg.ArrayMiB = instrument.DefaultArrayMiB(cpu, instrument.MemAvailable())
	}
	cfg.Workers = max(1, cfg.Workers)
	cfg.Repeats = max(1, cfg.Repeats)
	r := &Result{CPU: cpu, Config: cfg, When: Now(cfg.Workers)}
	cfg.logf("calibrate: %s, %d workers, arrays of %d MiB, %d interleaved rounds, load %.2f\n",
		cpu.Model, cfg.Workers, cfg.ArrayMiB, cfg.Repeats, r.When.LoadAvg)
	cfg.logf("  memory mixes on DRAM-sized arrays, and cold calls as ropbench times a row\n")
	cm := newColdMixes(cfg.Workers, cfg.ArrayMiB, nil)
	r.ColdMiB = int(cm.ArrayBytes() >> 20)
	r.Mixes = measureMixes(cfg, cm)
	runtime.GC() // give the arrays back before the sweep
	if cfg.SweepBytes > 0 {
		cfg.logf("  cache sweep\n")
		r.SweepLimit = "the configuration's SweepMax"
		if cfg.SweepMax == 0 {
			cfg.SweepMax, r.SweepLimit = sweepMax(cpu, cfg.Workers, instrument.MemAvailable())
		}
		r.Sweep = sweep(cfg, cpu)
		r.Caches = plateaus(r.Sweep, cpu, cfg.Workers, r.sweepDRAM())
		runtime.GC()
	}
	cfg.logf("  multiply-add kernels\n")
	// A cold sample of each cold mix after every multiply-add round: the envelope's cold
	// calls span most of the calibration, as a run's rows span minutes.
	r.Compute = measureCompute(cfg, func() { cm.round(1) })
	r.Mixes = append(r.Mixes, cm.results()...)
	r.Latency, r.Dispatches = latencyFloor(cfg.Workers)
	r.Warnings = r.spreadWarnings()
	for _, w := range r.Warnings {
		cfg.logf("warning: %s\n", w)
	}
	return r
}

// sweepDRAM is the DRAM rate of the sweep's own kernels: the best round of the read and copy
// mixes on the DRAM arrays (plateaus compares each size's best round with it).
func (r *Result) sweepDRAM() float64 {
	v := 0.0
	for _, m := range r.Mixes {
		if m.Name == "read" || m.Name == "copy" {
			v = max(v, m.Rate.Max)
		}
	}
	return v
}

// spreadWarnings names every figure whose spread exceeds WideSpread.
func (r *Result) spreadWarnings() []string {
	var ws []string
	check := func(what string, s profiles.Spread) {
		if s.Rel() > WideSpread {
			ws = append(ws, fmt.Sprintf("%s varied by %.0f%% between rounds (min %.4g, median %.4g, max %.4g; more than %.0f%%: the machine was busy or its clock moved)",
				what, 100*s.Rel(), s.Min, s.Median, s.Max, 100*WideSpread))
		}
	}
	env := r.Envelope()
	check("the memory envelope ("+env.Name+")", env.Rate)
	keys, fillers := r.pricedRoofs()
	for i, c := range fillers {
		check(keys[i]+" ("+c.Kernel+")", c.Rate)
	}
	for _, c := range r.Caches {
		check(c.Key+" bandwidth", c.Rate)
	}
	return ws
}

// Now returns the conditions of a measurement starting now on workers cores: the time, the
// boot id and the 1-minute load average (empty and 0 where /proc does not say).
func Now(workers int) profiles.Conditions {
	c := profiles.Conditions{At: time.Now().UTC().Truncate(time.Second), Cores: workers}
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		c.BootID = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			c.LoadAvg, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	return c
}
