package calibrate

import (
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

// RoofKernel is the kernel that measures one compute roof on this host, for a side-by-side
// with other code (cmd/ropcompare against C intrinsics loops): Peak times it the way a
// calibration round does, so that a ratio to it is a ratio to the roof.
type RoofKernel struct {
	Key    string // "vector.fp32", "vector.bf16", "cube.bf16", ...
	Kernel string // "avx512", "avx512bf16", "amx", ...
	k      fmaKernel
	iters  int
}

// RoofKernels lists the kernels behind this host's vector and cube roofs: per vector dtype
// the widest SIMD kernel (the last listed: AVX-512 after AVX2; a calibration keeps the
// fastest, which on an AVX-512 CPU is it), and a matrix-unit kernel for its cube key where
// there is one (without one, cube.<dtype> is the vector kernel's measurement, listed once).
func RoofKernels() []RoofKernel {
	var out []RoofKernel
	ks := kernels()
	for _, dt := range vectorDTypes {
		if j := lastIndex(ks, func(k fmaKernel) bool { return k.unit == "vector" && k.dtype == dt }); j >= 0 {
			out = append(out, RoofKernel{Key: "vector." + dt, Kernel: ks[j].name, k: ks[j]})
		}
	}
	for _, dt := range cubeDTypes {
		if j := lastIndex(ks, func(k fmaKernel) bool { return k.unit == "cube" && k.dtype == dt }); j >= 0 {
			out = append(out, RoofKernel{Key: "cube." + dt, Kernel: ks[j].name, k: ks[j]})
		}
	}
	return out
}

func lastIndex(ks []fmaKernel, f func(fmaKernel) bool) int {
	for i := len(ks) - 1; i >= 0; i-- {
		if f(ks[i]) {
			return i
		}
	}
	return -1
}

// Peak runs the kernel on workers goroutines for about d and returns the FLOP/s (int8:
// operations/s) of its fastest dispatch, the statistic of a calibration round (fmaRate).
func (rk *RoofKernel) Peak(workers int, d time.Duration) float64 {
	if rk.iters == 0 {
		rk.iters = itersFor(rk.k, fmaDispatch)
	}
	_, peak := fmaRate(max(1, workers), rk.k, rk.iters, max(1, int(d/fmaDispatch)))
	return peak
}

// Probe is the same-time compute probe of the benchmark (bench.Options.Probe,
// record.ProbeRate): the kernel behind this host's vector.fp32 roof, run for one short
// dispatch on every worker. Timed after each sample of a row, it says how fast the machine
// computed at that moment: a lower clock or another process on a core slows it as it slows
// the row, while a memory stream may not notice either.
type Probe struct {
	rk      RoofKernel
	workers int
}

// NewProbe returns the probe on all CPUs (GOMAXPROCS); nil when this host has no
// vector.fp32 kernel.
func NewProbe() *Probe {
	for _, rk := range RoofKernels() {
		if rk.Key == profiles.ProbeKey {
			return &Probe{rk: rk, workers: max(1, runtimeWorkers())}
		}
	}
	return nil
}

// Sample runs one dispatch of the probe (as long as one dispatch of a calibration round)
// and returns its FLOP/s. The first call also sizes the dispatch.
func (p *Probe) Sample() float64 { return p.rk.Peak(p.workers, fmaDispatch) }
