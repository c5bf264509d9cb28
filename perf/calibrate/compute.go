package calibrate

import (
	"slices"
	"sync"
	"time"

	"github.com/ropgen/ropgen/perf/instrument"
	"github.com/ropgen/ropgen/perf/profiles"
)

// fmaKernel is one multiply-add throughput kernel: run(iters) does iters iterations of accs
// independent multiply-adds on vectors of lanes elements of dtype (2 FLOPs per lane each) and
// returns the sum of its accumulators, so a test can check the work was done. unit is the
// role the kernel's instructions fill ("vector": the SIMD pipes, "cube": a matrix unit such
// as AMX; "" for the scalar chains), how says what one instruction does (for the profile),
// and tileCycles, for a matrix unit, the cycles one instruction is assumed to occupy it (the
// theoretical value's derivation; 0: a SIMD instruction on FMAPipesAssumed pipes).
type fmaKernel struct {
	name, dtype string
	lanes, accs int
	unit, how   string
	tileCycles  int
	run         func(iters int) float64
}

// flopsPerIter is the FLOP count of one iteration.
func (k fmaKernel) flopsPerIter() float64 { return 2 * float64(k.lanes*k.accs) }

// The scalar kernels: fmaChains independent chains, each x = x*mul + add, so several
// multiply-adds are in flight at once and the rate measures throughput, not latency. Go
// does not vectorize: this is the rate scalar Go code reaches, one lane of the SIMD unit (the
// compiler fuses x*mul + add into one FMA instruction only where the target guarantees FMA,
// e.g. GOAMD64=v3 or arm64).
const fmaChains = 12

// fmaMul and fmaAdd keep every chain finite: x converges to fmaAdd/(1-fmaMul).
const fmaMul, fmaAdd = 0.999999, 1e-6

var scalarKernels = []fmaKernel{
	{name: "scalar", dtype: "fp32", lanes: 1, accs: fmaChains, run: fma32Chains},
	{name: "scalar", dtype: "fp64", lanes: 1, accs: fmaChains, run: fma64Chains},
}

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

// kernels are every multiply-add kernel this host can run: its SIMD ones, those of its
// low-precision and matrix units, then the scalar.
func kernels() []fmaKernel {
	return append(append(simdKernels(), unitKernels()...), scalarKernels...)
}

// simdKernels are the host's SIMD multiply-add kernels: the instrument's (instrument.FMAKernels),
// whose fp32 one the same-time compute probe runs.
func simdKernels() []fmaKernel {
	var ks []fmaKernel
	for _, k := range instrument.FMAKernels() {
		ks = append(ks, fmaKernel{name: k.Name, dtype: k.DType, lanes: k.Lanes, accs: k.Accs, unit: "vector", run: k.Run})
	}
	return ks
}

// itersFor is the iteration count that makes one run of k take about target
// (instrument.ItersFor).
func itersFor(k fmaKernel, target time.Duration) int { return instrument.ItersFor(k.run, target) }

// fmaDispatch is the length of one dispatch of a multiply-add run (instrument.FMADispatch).
const fmaDispatch = instrument.FMADispatch

// fmaRate runs k on every worker at once, dispatches times for iters iterations each, and
// returns the FLOP/s over all dispatches and over the fastest one (instrument.FMARate).
func fmaRate(workers int, k fmaKernel, iters, dispatches int) (sustained, peak float64) {
	return instrument.FMARate(workers, k.run, k.flopsPerIter(), iters, dispatches)
}

// measureCompute times every kernel cfg.Repeats times in interleaved rounds; a round's
// sample is its fastest dispatch. After each round it calls between (nil: nothing).
func measureCompute(cfg Config, between func()) []ComputeResult {
	ks := kernels()
	iters := make([]int, len(ks))
	dispatch := min(cfg.FMATime, fmaDispatch)
	for i, k := range ks {
		iters[i] = itersFor(k, dispatch)
	}
	dispatches := max(1, int(cfg.FMATime/dispatch))
	samples := make([][]float64, len(ks))
	for range cfg.Repeats {
		for i, k := range ks {
			_, peak := fmaRate(cfg.Workers, k, iters[i], dispatches)
			samples[i] = append(samples[i], peak)
		}
		if between != nil {
			between()
		}
	}
	out := make([]ComputeResult, len(ks))
	for i, k := range ks {
		out[i] = ComputeResult{Kernel: k.name, DType: k.dtype, Lanes: k.lanes, Accs: k.accs, Unit: k.unit, How: k.how, TileCycles: k.tileCycles, Samples: slices.Clone(samples[i]), Rate: profiles.SpreadOf(samples[i])}
	}
	return out
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
