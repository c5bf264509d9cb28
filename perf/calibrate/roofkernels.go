package calibrate

import "time"

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
