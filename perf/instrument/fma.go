package instrument

import (
	"math"
	"runtime"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

// FMA is one SIMD multiply-add throughput kernel: Run(iters) does iters iterations of Accs
// independent multiply-adds on vectors of Lanes elements of DType (2 FLOPs per lane each)
// and returns the sum of its accumulators, so a test can check the work was done. The
// calibration measures the host's vector roofs with them and the same-time compute probe runs
// the fp32 one, so the probe's rate and the roof it is divided by are one kernel's.
type FMA struct {
	Name, DType string
	Lanes, Accs int
	Run         func(iters int) float64
}

// FlopsPerIter is the FLOP count of one iteration.
func (k FMA) FlopsPerIter() float64 { return 2 * float64(k.Lanes*k.Accs) }

// FMAKernels are this host's SIMD multiply-add kernels, the narrower before the wider of each
// dtype (fma_amd64.s, fma_arm64.s; none elsewhere).
func FMAKernels() []FMA { return simdFMAs() }

// FMADispatch is the length of one dispatch of a multiply-add run: a run is a sequence of
// such dispatches, as a run of kernel calls is. On a busy machine a thread that works briefly
// and waits gets the CPU back sooner than one that computes for a second, so long dispatches
// measure the scheduler's share and short kernel calls would exceed such a "ceiling"
// (docs/history.md). A dispatch is as short as a short kernel call.
const FMADispatch = 2 * time.Millisecond

// ItersFor is the iteration count that makes one call of run take about target, from short
// single-thread probes: the count grows until a probe takes target/20, and then the fastest
// of five probes of that count decides (a probe that lost the CPU midway would otherwise
// shrink every dispatch until the dispatch overhead dominated it).
func ItersFor(run func(iters int) float64, target time.Duration) int {
	iters := 1 << 10
	for {
		t0 := time.Now()
		Keep(run(iters))
		if d := time.Since(t0); d >= target/20 || iters >= 1<<40 {
			break
		}
		iters *= 2
	}
	best := time.Duration(math.MaxInt64)
	for range 5 {
		t0 := time.Now()
		Keep(run(iters))
		best = min(best, time.Since(t0))
	}
	return max(1, int(float64(iters)*float64(target)/float64(max(best, time.Microsecond))))
}

// FMARate runs run on every worker at once, dispatches times for iters iterations each
// (flopsPerIter FLOPs an iteration), and returns the FLOP/s over the time of all dispatches
// (sustained) and of the fastest one (peak: what the pipes do while the workers have the CPU;
// nothing in a dispatch can run faster than the hardware, so its best is a ceiling, not an
// outlier).
func FMARate(workers int, run func(iters int) float64, flopsPerIter float64, iters, dispatches int) (sustained, peak float64) {
	sums := make([]float64, workers)
	var total time.Duration
	best := time.Duration(math.MaxInt64)
	for range max(1, dispatches) {
		d := Parallel(workers, func(w int) { sums[w] += run(iters) })
		total += d
		best = min(best, d)
	}
	Keep(sums[0])
	flops := float64(workers) * float64(iters) * flopsPerIter
	return flops * float64(max(1, dispatches)) / max(total, time.Nanosecond).Seconds(), flops / max(best, time.Nanosecond).Seconds()
}

// Sum32 is the sum of v in float64, the result of a kernel that stores float32 accumulators.
func Sum32(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x)
	}
	return s
}

// Sum64 is the sum of v.
func Sum64(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// Probe is the same-time compute probe of the benchmark (bench.Options.Probe,
// record.ProbeRate): the kernel behind this host's vector.fp32 roof (the widest fp32 FMA
// kernel, which a calibration keeps as that roof's), run for one short dispatch on every
// worker. Timed after each sample of a row, it says how fast the machine computed at that
// moment: a lower clock or another process on a core slows it as it slows the row, while a
// memory stream may not notice either.
type Probe struct {
	k       FMA
	iters   int
	workers int
}

// NewProbe returns the probe on all CPUs (GOMAXPROCS); nil when this host has no SIMD fp32
// multiply-add kernel.
func NewProbe() *Probe {
	ks := FMAKernels()
	for j := len(ks) - 1; j >= 0; j-- {
		if "vector."+ks[j].DType == profiles.ProbeKey {
			return &Probe{k: ks[j], workers: max(1, runtime.GOMAXPROCS(0))}
		}
	}
	return nil
}

// Kernel is the name of the kernel the probe runs.
func (p *Probe) Kernel() string { return p.k.Name }

// Workers is how many workers each dispatch runs on.
func (p *Probe) Workers() int { return p.workers }

// Sample runs one dispatch of the probe (as long as one dispatch of a calibration round)
// and returns its FLOP/s. The first call also sizes the dispatch.
func (p *Probe) Sample() float64 {
	if p.iters == 0 {
		p.iters = ItersFor(p.k.Run, FMADispatch)
	}
	_, peak := FMARate(p.workers, p.k.Run, p.k.FlopsPerIter(), p.iters, 1)
	return peak
}
