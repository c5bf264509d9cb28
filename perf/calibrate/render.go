package calibrate

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

// Estimate factors for ceilings the CPU does not report. Each is stated in the profile next
// to its value, never presented as a specification.
const (
	// DRAMEstimateFactor: no CPU reports its DRAM channels and transfer rate to user code,
	// so the theoretical DRAM value is a stated estimate: this factor times the best round of
	// the envelope. It feeds only the physics check (efficiency is priced on the measured
	// envelope), which must never convict a correct formula. The envelope is the best call
	// of about a minute of calibration, not the hardware's limit: in a virtual machine the
	// host's memory controller is shared, and a single cold call of a correct streaming row
	// can run well above every call the calibration caught, when the other guests go quiet
	// (docs/history.md has the runs). So the line sits three quarters above the envelope: a
	// correct row is accused only beyond that, and a row whose formula doubles its bytes is
	// convicted by this line whenever its fastest call ran above half the factor of the
	// envelope. The report's same-time check (report.SameTimeLine: the row against streaming
	// references timed between its samples, which a burst or the load moves alike) is the one
	// that convicts it whatever the machine did, so this fixed line can afford the margin. An
	// envelope of a plain Go copy would be too low: the non-temporal kernels outrun it, which
	// is why the mixes stream as they do.
	DRAMEstimateFactor = 1.75
	// ComputeEstimateFactor: without a clock from the OS the theoretical FMA peak is this factor times the best rate the SIMD kernel reached. The
	// kernel keeps both FMA pipes of every core busy, so it runs at the peak of the clock it
	// got; 25% covers a higher clock at another time (turbo on a quieter machine).
	ComputeEstimateFactor = 1.25
	// FMAPipesAssumed: CPUs report their vector width but not how many FMA pipes a core
	// has; 2 is the most on current x86 and Arm server cores, so the derived value stays a
	// ceiling.
	FMAPipesAssumed = 2
)

// theoretical is a ceiling's theoretical value, whether it is an estimate, and why.
type theoretical struct {
	value    float64
	estimate bool
	note     string
}

// computeCeiling derives the theoretical FLOP/s of a kernel of lanes lanes whose best
// measured rate is best: from the cpufreq maximum when the OS exposes one and the result is
// a ceiling, else a stated estimate above the measurement.
func computeCeiling(cpu profiles.CPU, lanes int, isa string, best float64) theoretical {
	return computeCeilingOf(cpu, float64(lanes*FMAPipesAssumed*2),
		fmt.Sprintf("%d lanes (%s) x %d FMA pipes (assumed: CPUs do not report it) x 2 FLOPs per FMA", lanes, isa, FMAPipesAssumed), best)
}

// computeCeilingOf is computeCeiling for a unit doing perCycle FLOPs a cycle a core, as
// perCycleHow says.
func computeCeilingOf(cpu profiles.CPU, perCycle float64, perCycleHow string, best float64) theoretical {
	cores := cpu.Physical
	if cores == 0 {
		cores = cpu.Logical
	}
	derive := func(mhz float64) float64 { return float64(cores) * mhz * 1e6 * perCycle }
	how := func(mhz float64, src string) string {
		return fmt.Sprintf("%d cores x %.0f MHz (%s) x %s", cores, mhz, src, perCycleHow)
	}
	var why []string
	for _, clk := range []struct {
		mhz float64
		src string
	}{{cpu.MaxMHz, "cpufreq max"}, {cpu.NominalMHz, "/proc/cpuinfo cpu MHz: no cpufreq maximum, so the nominal clock; turbo could exceed it"}} {
		if clk.mhz <= 0 {
			continue
		}
		if v := derive(clk.mhz); v >= best {
			return theoretical{v, true, how(clk.mhz, clk.src)}
		}
		why = append(why, fmt.Sprintf("%s = %.4g is below the measurement", how(clk.mhz, clk.src), derive(clk.mhz)))
	}
	if len(why) == 0 {
		why = append(why, "the OS reports no clock")
	}
	return theoretical{best * ComputeEstimateFactor, true, fmt.Sprintf("no datasheet value (%s): %g x the best rate measured (%.4g), which kept the unit busy at the clock it got; the margin covers a higher clock at another time",
		strings.Join(why, "; "), ComputeEstimateFactor, best)}
}

// Render writes r as a host profile, with the provenance of every number in comments.
func Render(r *Result) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	cpu, cfg := r.CPU, r.Config
	num := func(v float64) string { return strconv.FormatFloat(v, 'e', 6, 64) }
	back := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	spread := func(s profiles.Spread) string {
		return fmt.Sprintf("{min: %s, median: %s, max: %s, n: %d}", num(s.Min), num(s.Median), num(s.Max), s.N)
	}
	// ceiling writes theoretical, estimate, note, calibration and spread at indent; the
	// calibration is computed from the printed numbers, so that theoretical x calibration
	// is the printed max to 12 digits (the loader checks it lies in the spread).
	ceiling := func(indent string, th theoretical, s profiles.Spread) {
		ts := num(th.value)
		p("%stheoretical: %s", indent, ts)
		if th.estimate {
			p("%sestimate: true", indent)
		}
		p("%snote: %q", indent, th.note)
		if s.N > 0 {
			p("%scalibration: %s  # best of %d rounds / theoretical", indent, strconv.FormatFloat(back(num(s.Max))/back(ts), 'g', 12, 64), s.N)
			p("%sspread: %s", indent, spread(s))
		}
	}

	p("# Host profile measured by `ropgen calibrate` (package perf/calibrate) at %s.", r.When.At.Format(time.RFC3339))
	p("# Measured per machine: regenerate it rather than copy it to another one.")
	p("# CPU: %s; %d logical CPUs, %d physical cores.", cpu.Model, cpu.Logical, cpu.Physical)
	if cpu.MaxMHz > 0 {
		p("# Max clock %.0f MHz (cpufreq).", cpu.MaxMHz)
	} else {
		p("# Max clock: not exposed by the kernel, so compute ceilings are stated estimates.")
	}
	for _, c := range cpu.Caches {
		p("# L%d cache (cpu0, /sys): %d KiB, shared by %d CPUs.", c.Level, c.Bytes>>10, c.Shared)
	}
	p("# Every measurement ran on %d goroutines (GOMAXPROCS), one OS thread each, in %d", cfg.Workers, cfg.Repeats)
	p("# interleaved rounds (round 1 of every kernel, then round 2, ...). Each figure keeps its")
	p("# spread; the effective ceiling is the best round, since noise on a shared machine only")
	p("# ever slows a run. A spread above %.0f%% of the median is flagged below: the report's", 100*WideSpread)
	p("# at-ceiling band is 80-105%%, and a ceiling that moves more than that between rounds moves")
	p("# rows across its lines.")
	p("# Roles: hbm = DRAM (main memory; the key keeps the GPU profiles' name: docs/model.md §4).")
	p("# vector = the cores' SIMD FMA pipes, measured with assembly kernels (the best ISA wins).")
	p("# scalar = one lane of them, what scalar Go code reaches: a labelled roof for the chart,")
	p("# no op prices against it.")
	p("# cube = the matrix role: the unit an optimal matrix contraction of the dtype would use here")
	p("# (AMX tiles where the OS enables them, else the SIMD unit of the dtype); each note says which.")
	for _, w := range r.Warnings {
		p("# WARNING: %s.", w)
	}
	if r.Attempt > 0 && cfg.Repeats < minJudged {
		p("# WARNING: NOT CHECKED for noise: %d rounds cannot show a spread (at least %d can).", cfg.Repeats, minJudged)
	} else if r.Attempt > 0 {
		p("# Accepted on attempt %d (perf/calibrate, Refusals): every priced figure's median round within", r.Attempt)
		p("# %.0f%% (compute) or %.0f%% (memory) of its best, its best the same within that in both halves", 100*ComputeTolerance, 100*MemoryTolerance)
		p("# of its rounds, and each cache level faster than the next and than DRAM.")
	}
	if cpu.LLCBytes > 0 && int64(cfg.ArrayMiB)<<20 < 2*cpu.LLCBytes {
		p("# WARNING: the arrays are less than 2x the last-level cache: the hbm numbers below are")
		p("# partly cache bandwidth, not DRAM. Recalibrate without -mib for a real profile.")
	}
	p("device: %q  # profiles.HostDeviceName(): the name the benchmark layer records", "cpu: "+cpu.Model)
	p("memory: DRAM  # the hbm roof is main memory: the report and chart call it DRAM")
	if len(r.When.Refused) == 0 {
		p("measured: {at: %q, boot_id: %q, loadavg: %.2f, cores: %d}  # loadavg: 1-minute, just before measuring",
			r.When.At.Format(time.RFC3339), r.When.BootID, r.When.LoadAvg, r.When.Cores)
	} else {
		// A refused measurement (ropgen calibrate -loaded): the reasons travel with it, so no
		// reader takes its figures for the host's ceilings.
		p("measured:  # REFUSED: measured under load; its figures are lower bounds, not this host's ceilings")
		p("  at: %q", r.When.At.Format(time.RFC3339))
		p("  boot_id: %q", r.When.BootID)
		p("  loadavg: %.2f  # 1-minute, just before measuring", r.When.LoadAvg)
		p("  cores: %d", r.When.Cores)
		p("  refused:")
		for _, why := range r.When.Refused {
			p("    - %q", why)
		}
	}

	env := r.Envelope()
	hbm := theoretical{env.Rate.Max * DRAMEstimateFactor, true, fmt.Sprintf(
		"DRAM. No datasheet value: the CPU does not report its DRAM channels or transfer rate. Estimate = %g x the envelope's best round (%.4g B/s, %s mix), for the physics check alone: a correct row is accused only if it runs %.0f%% above the best round of the fastest mix; a row whose formula doubles its bytes is convicted whenever it really ran above %.2f of the envelope%s",
		DRAMEstimateFactor, env.Rate.Max, env.Name, 100*(DRAMEstimateFactor-1), DRAMEstimateFactor/2, r.doubledCheck())}
	n := cfg.ArrayMiB << 20 / elemBytes
	p("hbm:  # bytes/s; the envelope (best mix) of %d mixes: warm passes over arrays of %d MiB (%d float32), and the _cold mixes: one cold call a sample over arrays of %d MiB, as ropbench times a row", len(r.Mixes), cfg.ArrayMiB, n, r.ColdMiB)
	ths := num(hbm.value)
	ceiling("  ", hbm, env.Rate)
	p("  calibration_mixes:  # each mix's best round / theoretical; bytes counted as STREAM does (no write-allocate)")
	for _, m := range r.Mixes {
		p("    %s: %s  # %s, %d bytes per element", m.Name, strconv.FormatFloat(back(num(m.Rate.Max))/back(ths), 'g', 12, 64), m.How, (m.Reads+m.Writes)*elemBytes)
	}
	p("  mix_spreads:  # bytes/s")
	for _, m := range r.Mixes {
		p("    %s: %s", m.Name, spread(m.Rate))
	}

	if len(r.Caches) > 0 && len(r.When.Refused) > 0 {
		// A sweep under load orders the levels by the load, not by the hierarchy (the
		// profile loader refuses such an order), and the report's verdicts do not use them.
		p("# Cache roofs: not written. This measurement was refused as measured under load, and a")
		p("# working-set sweep under load orders the levels by the load; calibrate a quiet machine for them.")
	} else if len(r.Caches) > 0 {
		p("# Cache bandwidth from a working-set sweep (%d sizes per worker, %d KiB to %d MiB, each", len(r.Sweep), r.Sweep[0].Bytes>>10, r.Sweep[len(r.Sweep)-1].Bytes>>20)
		p("# worker its own buffer; the best of the read and copy mixes, ymm and zmm, at each size), plateaus")
		p("# of each size's best round found within %.0f%% of their median and named by the /sys cache sizes. Bytes: the largest", 100*plateauTol)
		p("# working set on the plateau (all workers together for a shared level).")
		if r.SweepLimit != "" {
			p("# The sweep stops at %d KiB per worker: %s.", r.Sweep[len(r.Sweep)-1].Bytes>>10, r.SweepLimit)
		}
		p("caches:")
		for _, c := range r.Caches {
			if c.NoPlateau {
				p("  %s:  # no plateau: the %d sweep sizes in %d KiB-%d KiB per worker, which fit in this level and not the one below", c.Key, c.Points, c.From>>10, c.To>>10)
				ceiling("    ", theoretical{c.Rate.Max, true, "no datasheet value and no plateau (rounds of neighbouring sizes differed by more than the plateau tolerance): the best rate the sweep reached at the sizes that fit in this level"}, c.Rate)
			} else {
				p("  %s:  # plateau %d KiB-%d KiB per worker, %d sizes", c.Key, c.From>>10, c.To>>10, c.Points)
				ceiling("    ", theoretical{c.Rate.Max, true, "no datasheet value: the best rate the sweep reached on this plateau"}, c.Rate)
			}
			p("    bytes: %d", c.Bytes)
			if sys, _ := r.sysBytes(c.Key); sys > 0 {
				p("    sys_bytes: %d  # %s", sys, r.beyond(c))
			}
		}
	}

	roof := func(key string) {
		if c, ok := r.Filler(key); ok {
			_, dt, _ := strings.Cut(key, ".")
			p("  %s:  # %s", dt, roofComment(c))
			ceiling("    ", r.roofTheoretical(key, c), c.Rate)
		}
	}
	for _, u := range []struct{ unit, comment string }{
		{"vector", "FLOP/s"},
		{"cube", "FLOP/s (int8: operations/s); the matrix role"},
		{"scalar", "FLOP/s of scalar Go code: one lane; drawn under the SIMD roof"},
	} {
		p("%s:  # %s", u.unit, u.comment)
		for _, key := range r.RoofKeys() {
			if strings.HasPrefix(key, u.unit+".") {
				roof(key)
			}
		}
	}
	for _, c := range r.Compute {
		if !r.fills(c) {
			p("# also measured: %s %s, best %.4g FLOP/s (median %.4g)", c.Kernel, c.DType, c.Rate.Max, c.Rate.Median)
		}
	}
	p("# seconds: median of %d empty parallel dispatches to %d workers (start, join), as the CPU", r.Dispatches, cfg.Workers)
	p("# kernels dispatch; rows whose SOL and measured times are both below it are latency-bound.")
	p("latency_floor: %.4e", max(r.Latency, 1e-9))
	if h := HalfPrecision(cpu, r.ownDTypes()); h != "" {
		p("# How bf16/fp16 rows are computed here, from the CPU's flags: the report prices them at the")
		p("# fp32 pipes and quotes this line.")
		p("half_precision: %q", h)
	}
	return b.Bytes()
}

// HalfPrecision says how cpu computes the 16-bit multiply-adds that have no roof of their
// own here (own: the dtypes measured on instructions of their own), from its flags: by
// conversion to fp32 and the fp32 FMA pipes (whose measured rate is then the roof of the best
// code), or with instructions of their own that this calibration does not measure. "" when
// both have roofs, or when the flags say nothing (no /proc/cpuinfo).
func HalfPrecision(cpu profiles.CPU, own map[string]bool) string {
	// The instructions that multiply bf16 or fp16 without converting to fp32 first, by the
	// names /proc/cpuinfo gives them: x86 "flags", arm64 "Features".
	isa := map[string][]string{"bf16": {"avx512_bf16", "amx_bf16"}, "fp16": {"avx512_fp16", "amx_fp16"}}
	conv := map[string]string{"bf16": "bf16 by a 16-bit shift", "fp16": "fp16 in software"}
	switch {
	case cpu.Flags["asimd"]:
		isa = map[string][]string{"bf16": {"bf16"}, "fp16": {"fphp"}}
		conv["fp16"] = "fp16 by FCVTL"
	case cpu.Flags["f16c"]:
		conv["fp16"] = "fp16 by F16C (VCVTPH2PS)"
	case !cpu.Flags["sse2"]:
		return "" // no flags read, or a CPU this does not know
	}
	var dts, native, absent, how []string
	for _, dt := range []string{"bf16", "fp16"} {
		if own[dt] {
			continue
		}
		dts = append(dts, dt)
		how = append(how, conv[dt])
		for _, f := range isa[dt] {
			if cpu.Flags[f] {
				native = append(native, f)
			} else {
				absent = append(absent, f)
			}
		}
	}
	if len(dts) == 0 {
		return ""
	}
	if len(native) > 0 {
		return fmt.Sprintf("this CPU has %s: kernels using those instructions run above the fp32 pipes, which this calibration does not measure, so the fp32 price of %s is a low roof", strings.Join(native, ", "), strings.Join(dts, " and "))
	}
	subject, verb := dts[0], "is"
	if len(dts) == 2 {
		subject, verb = "bf16 and fp16", "are"
	}
	return fmt.Sprintf("no %s multiply-add instructions (no %s): %s %s converted to fp32 (%s) and computed on the fp32 FMA pipes, so those are the roof", strings.Join(dts, "/"), strings.Join(absent, ", "), subject, verb, strings.Join(how, ", "))
}

// doubledCheck says how the streaming pattern of the catalog's two-input kernels (two
// reads, one streamed write, as AddFwd) sits against the conviction line: the triad_cold mix
// (that pattern timed as ropbench times AddFwd), else the triad_nt mix.
func (r *Result) doubledCheck() string {
	env := r.Envelope()
	for _, name := range []string{profiles.TriadCold, "triad_nt"} {
		for _, m := range r.Mixes {
			if m.Name == name && env.Rate.Max > 0 {
				f := m.Rate.Max / env.Rate.Max
				return fmt.Sprintf(" (the %s mix, the pattern of AddFwd's streaming kernel, reached %.2f of it here, so doubled bytes on such a row imply %.2f of the envelope against the line at %.2f)", name, f, 2*f, DRAMEstimateFactor)
			}
		}
	}
	return ""
}

// Summary is a few lines for a person: each ceiling with its spread.
func Summary(r *Result) string {
	var b strings.Builder
	for _, m := range r.Mixes {
		fmt.Fprintf(&b, "  %-10s %8.2f GB/s   (median; min %.2f, max %.2f)\n", m.Name, m.Rate.Median/1e9, m.Rate.Min/1e9, m.Rate.Max/1e9)
	}
	for _, c := range r.Caches {
		fmt.Fprintf(&b, "  %-10s %8.2f GB/s   (median; min %.2f, max %.2f; %d KiB)\n", c.Key, c.Rate.Median/1e9, c.Rate.Min/1e9, c.Rate.Max/1e9, c.Bytes>>10)
	}
	for _, c := range r.Compute {
		unit := "GFLOP/s"
		if c.DType == "int8" {
			unit = "Gop/s  " // integer multiply-adds, 2 operations each
		}
		fmt.Fprintf(&b, "  %-6s %s %8.2f %s (median; min %.2f, max %.2f)\n", c.Kernel, c.DType, c.Rate.Median/1e9, unit, c.Rate.Min/1e9, c.Rate.Max/1e9)
	}
	fmt.Fprintf(&b, "  latency floor %.2f µs\n", r.Latency*1e6)
	return b.String()
}

// sysBytes is the size /sys reports for cache level key as the sweep's workers see it (all
// the workers sharing it together, as CacheLevel.Bytes counts), and how many share it; 0
// when /sys does not say.
func (r *Result) sysBytes(key string) (int64, int) {
	for _, c := range r.CPU.Caches {
		if c.Level >= 1 && c.Level <= len(profiles.CacheKeys) && profiles.CacheKeys[c.Level-1] == key {
			sh := max(1, min(c.Shared, r.Config.Workers))
			return c.Bytes / int64(max(1, c.Shared)) * int64(sh), sh
		}
	}
	return 0, 0
}

// beyond says what the sweep saw past level c's last size, against the size /sys reports:
// the first larger size's best round as a fraction of the level's roof. A level that /sys
// says is larger than the sizes measured at its rate is not served at that rate beyond them
// here (a virtual machine may report the host's cache and get part of it; a non-inclusive
// level is not full at its size), and the profile says so rather than claim the /sys size.
func (r *Result) beyond(c CacheLevel) string {
	sys, shared := r.sysBytes(c.Key)
	what := fmt.Sprintf("/sys: %d KiB for %d worker(s)", sys>>10, shared)
	for _, pt := range r.Sweep {
		if pt.Bytes > c.To {
			what += fmt.Sprintf("; at %d KiB per worker, the next size swept past this level's, the best round was %.2f of its roof", pt.Bytes>>10, pt.Rate.Max/c.Rate.Max)
			break
		}
	}
	if sys > 2*c.Bytes {
		what += fmt.Sprintf(", so working sets above %d KiB in all are not served at this rate here, whatever /sys says (a virtual machine may report the host's cache and get part of it)", c.Bytes>>10)
	}
	return what
}
