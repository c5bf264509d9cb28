package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

// runCalibrate measures this machine and writes its device profile (spec §5.1): main-memory
// bandwidth per access mix on arrays far larger than the last-level cache, the multiply-add
// rate Go code reaches in float32 and float64, and the cost of an empty parallel dispatch.
func runCalibrate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "", "write the profile to `FILE` (atomically); - for standard output")
	mib := fl.Int("mib", 0, "size of each array in `MiB` (default: 8x the last-level cache, at least 64 MiB); smaller arrays measure the cache, not DRAM")
	repeats := fl.Int("repeats", 5, "runs of each measurement; the best is kept")
	fmaMS := fl.Int("fma-ms", 150, "duration of one multiply-add run in `ms`")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: ropgen calibrate -o FILE [-mib N] [-repeats N] [-fma-ms N]")
		fmt.Fprintln(stderr, "\nMeasures this machine on all its CPUs and writes its device profile: DRAM bandwidth")
		fmt.Fprintln(stderr, "for copy, triad, read and write (the best mix is the ceiling, each mix's fraction is")
		fmt.Fprintln(stderr, "kept), the float32 and float64 multiply-add rate of Go code, and the latency floor.")
		fmt.Fprintln(stderr, "Takes a few seconds with the defaults.\n\nflags:")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return usageExit(err)
	}
	if *out == "" || fl.NArg() > 0 || *repeats < 1 || *fmaMS < 1 || *mib < 0 {
		fl.Usage()
		return 2
	}
	cpu := profiles.HostCPU()
	cfg := calibration{
		workers:   runtime.GOMAXPROCS(0),
		arrayMiB:  *mib,
		repeats:   *repeats,
		fmaTarget: time.Duration(*fmaMS) * time.Millisecond,
	}
	if cfg.arrayMiB == 0 {
		cfg.arrayMiB = defaultArrayMiB(cpu, memAvailable())
	}
	fmt.Fprintf(stderr, "calibrate: %s, %d workers, arrays of %d MiB, best of %d\n", cpu.Model, cfg.workers, cfg.arrayMiB, cfg.repeats)
	m := cfg.measure()
	text := renderHostProfile(cpu, cfg, m, time.Now().UTC())
	// What we write must load: a profile that fails its own schema is a bug here, not later.
	if _, err := profiles.Parse("calibrated profile", text); err != nil {
		fmt.Fprintf(stderr, "ropgen calibrate: internal error: the measured profile does not load:\n%v\n", err)
		return 1
	}
	if *out == "-" {
		stdout.Write(text)
	} else if err := writeFileAtomic(*out, text); err != nil {
		fmt.Fprintln(stderr, "ropgen calibrate:", err)
		return 1
	}
	for _, mx := range memMixes {
		fmt.Fprintf(stderr, "  %-5s %8.2f GB/s\n", mx.name, m.mixRate[mx.name]/1e9)
	}
	fmt.Fprintf(stderr, "  fp32  %8.2f GFLOP/s\n  fp64  %8.2f GFLOP/s\n  latency floor %.2f µs\n",
		m.fma32/1e9, m.fma64/1e9, m.latency*1e6)
	return 0
}

// defaultArrayMiB sizes each array at 8× the total last-level cache of the CPUs we run on (at
// least 64 MiB), so almost every access goes to DRAM. cpu0's LLC is shared by LLCShared
// CPUs; a CPU with several LLC instances (chiplets) has one per group. The three arrays of
// the triad take at most 3/8 of the available memory (avail bytes; 0 when unknown).
func defaultArrayMiB(cpu profiles.CPU, avail int64) int {
	total := cpu.LLCBytes
	if cpu.LLCShared > 0 {
		total *= int64((cpu.Logical + cpu.LLCShared - 1) / cpu.LLCShared)
	}
	mib := max(64, 8*total>>20)
	if avail > 0 {
		mib = min(mib, avail/8>>20)
	}
	return int(max(1, mib))
}

// memAvailable is the kernel's estimate of memory available without swapping, in bytes; 0
// when /proc/meminfo does not say.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kib << 10
			}
		}
	}
	return 0
}

// calibration holds the knobs of one run.
type calibration struct {
	workers   int
	arrayMiB  int
	repeats   int
	fmaTarget time.Duration
}

// measurements is what one run found; rates in bytes/s, FLOP/s, and seconds.
type measurements struct {
	mixRate      map[string]float64
	fma32, fma64 float64
	latency      float64
	dispatches   int
}

// memMix is one memory access pattern. Bytes are counted as STREAM counts them: each element
// read once, each written once, 8 bytes each. A store that misses also reads its line first
// on most CPUs (write-allocate), but that traffic is not in any formula's minimum bytes, so
// counting it here would raise the ceiling above what a formula can ever be priced against.
type memMix struct {
	name          string
	reads, writes int // arrays read and written per element index
	kernel        func(a, b, c []float64) float64
}

// sink keeps the read mix's sums alive so the compiler cannot drop the loads.
var sink float64

const triadScalar = 3.0

var memMixes = []memMix{
	{"copy", 1, 1, func(a, b, _ []float64) float64 { copy(b, a); return 0 }},
	{"triad", 2, 1, func(a, b, c []float64) float64 {
		b, c = b[:len(a)], c[:len(a)]
		for i := range a {
			a[i] = b[i] + triadScalar*c[i]
		}
		return 0
	}},
	{"read", 1, 0, func(a, _, _ []float64) float64 { return sum8(a) }},
	{"write", 0, 1, func(a, _, _ []float64) float64 {
		for i := range a {
			a[i] = triadScalar // non-zero, so the loop is not turned into a memclr
		}
		return 0
	}},
}

// bytes is the traffic the mix moves over n elements.
func (mx memMix) bytes(n int) int64 { return int64(mx.reads+mx.writes) * int64(n) * 8 }

// sum8 adds with eight independent chains, so that floating-point add latency, not memory,
// never limits the read rate.
func sum8(a []float64) float64 {
	var s [8]float64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		v := a[i : i+8 : i+8]
		s[0] += v[0]
		s[1] += v[1]
		s[2] += v[2]
		s[3] += v[3]
		s[4] += v[4]
		s[5] += v[5]
		s[6] += v[6]
		s[7] += v[7]
	}
	for ; i < len(a); i++ {
		s[0] += a[i]
	}
	return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]
}

// parallel runs body(w) on workers goroutines, each locked to its own OS thread, released
// together, and returns the time from release until the last one finishes.
func parallel(workers int, body func(w int)) time.Duration {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(workers)
	done.Add(workers)
	for w := range workers {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-start
			body(w)
			done.Done()
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	done.Wait()
	return time.Since(t0)
}

// part is worker w's contiguous share of n elements: each worker keeps the same partition in
// every run, and it first touched those pages, so they sit on its memory node.
func part(w, workers, n int) (lo, hi int) { return w * n / workers, (w + 1) * n / workers }

func (cfg calibration) measure() measurements {
	m := measurements{mixRate: map[string]float64{}}
	n := cfg.arrayMiB << 20 / 8
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	parallel(cfg.workers, func(w int) {
		lo, hi := part(w, cfg.workers, n)
		for i := lo; i < hi; i++ {
			a[i], b[i], c[i] = 1, 2, 0.5
		}
	})
	for _, mx := range memMixes {
		best := time.Duration(math.MaxInt64)
		for range cfg.repeats {
			sums := make([]float64, cfg.workers)
			d := parallel(cfg.workers, func(w int) {
				lo, hi := part(w, cfg.workers, n)
				sums[w] = mx.kernel(a[lo:hi], b[lo:hi], c[lo:hi])
			})
			sink += sums[0]
			best = min(best, d)
		}
		m.mixRate[mx.name] = float64(mx.bytes(n)) / best.Seconds()
	}
	a, b, c = nil, nil, nil
	runtime.GC() // give the arrays back before the compute runs
	m.fma32 = cfg.fmaRate(fma32Chains)
	m.fma64 = cfg.fmaRate(fma64Chains)
	m.latency, m.dispatches = latencyFloor(cfg.workers)
	return m
}

// The multiply-add kernels: fmaChains independent chains, each x = x*mul + add, so several
// multiply-adds are in flight at once and the rate measures throughput, not latency. Go has
// no SIMD intrinsics and does not vectorize: this is the rate scalar Go code reaches (one
// lane of the SIMD unit; the compiler fuses x*mul + add into one FMA instruction only where
// the target guarantees FMA, e.g. GOAMD64=v3 or arm64). Each multiply-add counts 2 FLOPs.
const fmaChains = 12

// fmaFLOPs is the FLOP count of one iteration of a multiply-add kernel.
const fmaFLOPs = 2 * fmaChains

// fmaMul and fmaAdd keep every chain finite: x converges to fmaAdd/(1-fmaMul).
const fmaMul, fmaAdd = 0.999999, 1e-6

func fma32Chains(iters int) float64 {
	var x [fmaChains]float32
	for i := range x {
		x[i] = float32(i)
	}
	x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11 := x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11]
	const mul, add float32 = fmaMul, fmaAdd
	for range iters {
		x0, x1, x2, x3 = x0*mul+add, x1*mul+add, x2*mul+add, x3*mul+add
		x4, x5, x6, x7 = x4*mul+add, x5*mul+add, x6*mul+add, x7*mul+add
		x8, x9, x10, x11 = x8*mul+add, x9*mul+add, x10*mul+add, x11*mul+add
	}
	return float64(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11)
}

func fma64Chains(iters int) float64 {
	var x [fmaChains]float64
	for i := range x {
		x[i] = float64(i)
	}
	x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11 := x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11]
	const mul, add = fmaMul, fmaAdd
	for range iters {
		x0, x1, x2, x3 = x0*mul+add, x1*mul+add, x2*mul+add, x3*mul+add
		x4, x5, x6, x7 = x4*mul+add, x5*mul+add, x6*mul+add, x7*mul+add
		x8, x9, x10, x11 = x8*mul+add, x9*mul+add, x10*mul+add, x11*mul+add
	}
	return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11
}

// fmaRate runs kernel on every worker for about cfg.fmaTarget and returns the best FLOP/s.
// The iteration count comes from a short single-thread probe.
func (cfg calibration) fmaRate(kernel func(iters int) float64) float64 {
	iters := 1 << 14
	for {
		t0 := time.Now()
		sink += kernel(iters)
		if d := time.Since(t0); d >= cfg.fmaTarget/20 || iters >= 1<<40 {
			iters = int(float64(iters) * float64(cfg.fmaTarget) / float64(max(d, time.Microsecond)))
			break
		}
		iters *= 4
	}
	iters = max(iters, 1)
	best := time.Duration(math.MaxInt64)
	for range cfg.repeats {
		sums := make([]float64, cfg.workers)
		best = min(best, parallel(cfg.workers, func(w int) { sums[w] = kernel(iters) }))
		sink += sums[0]
	}
	return float64(cfg.workers) * float64(iters) * fmaFLOPs / best.Seconds()
}

// latencyFloor is the median cost in seconds of an empty parallel dispatch to every worker,
// done the way the CPU kernels dispatch (ops.parallelFor): start workers-1 goroutines, do the
// caller's share, join. A kernel call cannot finish sooner; the median, not the minimum,
// because a dispatch on a busy machine pays the typical wake-up, not the luckiest one.
func latencyFloor(workers int) (seconds float64, trials int) {
	const n = 2000
	d := make([]time.Duration, n)
	for i := range d {
		t0 := time.Now()
		var wg sync.WaitGroup
		for range workers - 1 {
			wg.Go(func() {})
		}
		wg.Wait()
		d[i] = time.Since(t0)
	}
	slices.Sort(d)
	return max(d[n/2], time.Nanosecond).Seconds(), n
}

// Estimate factors for ceilings the CPU does not report. Stated in the profile next to each
// value, never presented as a specification.
const (
	// dramEstimateFactor: no CPU reports its DRAM channels and transfer rate to user code, so
	// the DRAM ceiling is an estimate 50% above the best mix measured. It only feeds the
	// physics check (efficiency uses the measured envelope). 25% proved too tight: on a shared
	// machine a calibration run under load measured the envelope 30-40% below what a later
	// quiet benchmark of a copy reached, and the check then flagged a correct formula.
	dramEstimateFactor = 1.5
	// fmaPipesAssumed: the CPU reports its vector width but not how many FMA pipes a core
	// has; 2 is the most on current x86 and Arm server cores, so it keeps the ceiling above.
	fmaPipesAssumed = 2
)

// simdLanes32 is the float32 SIMD width the CPU flags report, and the name of the flag.
func simdLanes32(cpu profiles.CPU) (int, string) {
	switch {
	case cpu.Flags["avx512f"]:
		return 16, "avx512f"
	case cpu.Flags["avx2"]:
		return 8, "avx2"
	case cpu.Flags["avx"]:
		return 8, "avx"
	case cpu.Flags["asimd"]:
		return 4, "asimd"
	case cpu.Flags["sse2"]:
		return 4, "sse2"
	}
	return 1, "no SIMD flag"
}

// computeCeiling derives a compute unit's theoretical FLOP/s for elements of elemBytes from
// what the CPU reports, or, without a maximum frequency, states an estimate above the
// measured rate. It returns the value and the provenance comment.
func computeCeiling(cpu profiles.CPU, elemBytes int, measured float64) (float64, string) {
	lanes32, flag := simdLanes32(cpu)
	lanes := max(1, lanes32*4/elemBytes)
	fma := cpu.Flags["fma"] || cpu.Flags["asimd"] // a fused multiply-add per lane per cycle
	perLane := 1.0                                // FLOPs per lane per cycle per pipe
	how := "no FMA: a multiply or an add"
	if fma {
		perLane, how = 2, "FMA = 2 FLOPs"
	}
	cores := cpu.Physical
	if cores == 0 {
		cores = cpu.Logical
	}
	why := "no cpufreq maximum exposed"
	if cpu.MaxMHz > 0 {
		v := float64(cores) * cpu.MaxMHz * 1e6 * float64(lanes) * fmaPipesAssumed * perLane
		if v >= measured {
			return v, fmt.Sprintf("FLOP/s: %d cores x %.0f MHz (cpufreq max) x %d lanes (%s) x %d pipes (assumed; not reported) x %s",
				cores, cpu.MaxMHz, lanes, flag, fmaPipesAssumed, how)
		}
		why = fmt.Sprintf("the ceiling derived from the cpufreq maximum, %.4g, is below the measurement", v)
	}
	// Scale the measurement instead: the scalar kernel fills one lane, SIMD code can fill
	// `lanes`, and a factor 2 covers a clock or pipe count the CPU does not report.
	k := float64(lanes) * 2
	return measured * k, fmt.Sprintf("FLOP/s. No datasheet value available (%s); estimate = measured x %g (%d SIMD lanes (%s) x 2)", why, k, lanes, flag)
}

// renderHostProfile writes the profile YAML with a provenance comment on every number.
func renderHostProfile(cpu profiles.CPU, cfg calibration, m measurements, when time.Time) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	envelope, envMix := 0.0, ""
	for _, mx := range memMixes {
		if r := m.mixRate[mx.name]; r > envelope {
			envelope, envMix = r, mx.name
		}
	}
	hbm := envelope * dramEstimateFactor
	lanes, flag := simdLanes32(cpu)
	n := cfg.arrayMiB << 20 / 8

	p("# Host profile measured by `ropgen calibrate` at %s. Measured per machine: regenerate it", when.Format(time.RFC3339))
	p("# rather than copy it to another one.")
	p("# CPU: %s; %d logical CPUs, %d physical cores; float32 SIMD width %d lanes (%s), fma: %v;", cpu.Model, cpu.Logical, cpu.Physical, lanes, flag, cpu.Flags["fma"])
	if cpu.MaxMHz > 0 {
		p("# max clock %.0f MHz (cpufreq).", cpu.MaxMHz)
	} else {
		p("# max clock: not exposed by the kernel.")
	}
	p("# Every measurement ran on %d goroutines (GOMAXPROCS), one OS thread each, each on its own", cfg.workers)
	p("# partition of the arrays; the best of %d runs is kept.", cfg.repeats)
	llc := "unknown"
	if cpu.LLCBytes > 0 {
		llc = fmt.Sprintf("%d MiB, shared by %d CPUs", cpu.LLCBytes>>20, cpu.LLCShared)
	}
	p("# Last-level cache (cpu0): %s. Arrays: %d MiB each (%d float64).", llc, cfg.arrayMiB, n)
	if cpu.LLCBytes > 0 && int64(cfg.arrayMiB)<<20 < 4*cpu.LLCBytes {
		p("# WARNING: the arrays are less than 4x the last-level cache: the hbm numbers below are")
		p("# partly cache bandwidth, not DRAM. Recalibrate without -mib for a real profile.")
	}
	p("# Roles: hbm = DRAM (main memory). vector = the cores' SIMD FMA pipes. cube = the same")
	p("# pipes: a CPU has no matrix unit, so matrix contractions run on the FMA units too and")
	p("# cube.fp32 carries the same numbers as vector.fp32. Go has no SIMD intrinsics and does not")
	p("# vectorize: the calibrations are what scalar Go code reaches with %d independent", fmaChains)
	p("# multiply-add chains per goroutine (2 FLOPs each), a small fraction of the SIMD ceiling.")
	p("device: %q  # profiles.HostDeviceName(): the name the benchmark layer records", "cpu: "+cpu.Model)
	p("hbm:")
	p("  # bytes/s. No datasheet value available: the CPU does not report its DRAM channels or")
	p("  # transfer rate; estimate = measured envelope %.4g x %g.", envelope, dramEstimateFactor)
	p("  theoretical: %.6e", hbm)
	p("  calibration: %.6f  # envelope: the %s mix, %.4g B/s / theoretical", envelope/hbm, envMix, envelope)
	p("  calibration_mixes:  # each mix's best rate / theoretical; bytes counted as STREAM does (no write-allocate)")
	for _, mx := range memMixes {
		r := m.mixRate[mx.name]
		p("    %s: %.6f  # %.4g B/s: %s, %d bytes per element", mx.name, r/hbm, r, mixFormula[mx.name], (mx.reads+mx.writes)*8)
	}
	unit := func(key string, elemBytes int, measured float64) {
		th, prov := computeCeiling(cpu, elemBytes, measured)
		p("  %s:", key)
		p("    theoretical: %.6e  # %s", th, prov)
		p("    calibration: %.6f  # measured %.4g FLOP/s (Go multiply-add chains) / theoretical", measured/th, measured)
	}
	p("vector:")
	unit("fp32", 4, m.fma32)
	unit("fp64", 8, m.fma64)
	p("cube:  # the same FMA pipes as vector (no matrix unit)")
	unit("fp32", 4, m.fma32)
	p("# seconds: median of %d empty parallel dispatches to %d workers (start, join), as the CPU", m.dispatches, cfg.workers)
	p("# kernels dispatch; rows whose SOL and measured times are both below it are latency-bound.")
	p("latency_floor: %.4e", m.latency)
	return b.Bytes()
}

var mixFormula = map[string]string{
	"copy":  "b[i] = a[i]",
	"triad": "a[i] = b[i] + s*c[i]",
	"read":  "s += a[i]",
	"write": "a[i] = s",
}

// writeFileAtomic writes data to a temporary file beside name and renames it over name, so a
// reader never sees half a profile.
func writeFileAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
