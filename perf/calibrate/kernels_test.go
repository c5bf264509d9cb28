package calibrate

import (
	"math"
	"slices"
	"testing"

	"github.com/ropgen/ropgen/perf/instrument"
	"github.com/ropgen/ropgen/perf/profiles"
)

// TestFMAKernelsDoTheirIterations checks every multiply-add kernel this host runs against
// the work it claims: the SIMD kernels add exactly 2^-20 per lane per iteration (exact in
// both dtypes at these counts), so their accumulator sum is iters x lanes x accs x 2^-20; a
// kernel that skipped accumulators, lanes or iterations would be counted at FLOPs it never
// did. The scalar chains converge, so they are checked against a Go model of the chain.
func TestFMAKernelsDoTheirIterations(t *testing.T) {
	ks := kernels()
	if len(ks) < 2 {
		t.Fatalf("%d kernels", len(ks))
	}
	for _, k := range ks {
		for _, iters := range []int{0, 1, 1000} {
			got := k.run(iters)
			var want float64
			if k.name == "scalar" {
				for i := range fmaChains {
					x := float64(i)
					if k.dtype == "fp32" {
						x32 := float32(i)
						for range iters {
							x32 = x32*float32(fmaMul) + float32(fmaAdd)
						}
						x = float64(x32)
					} else {
						for range iters {
							x = x*fmaMul + fmaAdd
						}
					}
					want += x
				}
				if math.Abs(got-want) > 1e-4*max(1, math.Abs(want)) {
					t.Errorf("%s %s: %d iterations sum to %g, want %g", k.name, k.dtype, iters, got, want)
				}
				continue
			}
			want = float64(iters*k.lanes*k.accs) * math.Ldexp(1, -20)
			if got != want {
				t.Errorf("%s %s: %d iterations sum to %g, want %g (%d lanes x %d accumulators)", k.name, k.dtype, iters, got, want, k.lanes, k.accs)
			}
		}
	}
}

// TestMemMixBytesFollowTheKernels checks each mix's byte count against what its kernel
// actually does: an array counts as written when the kernel changes it, and as read when
// poisoning it with NaN changes a result. A kernel edited without its counts (or the
// reverse) would price every CPU row against the wrong DRAM ceiling. The lengths cover the
// assembly kernels' unaligned head, bulk and tail, and (9000) the non-temporal kernels'
// page-interleaved blocks.
func TestMemMixBytesFollowTheKernels(t *testing.T) {
	for _, n := range []int{37, 203, 9000} {
		for _, off := range []int{0, 1, 3} {
			checkMixBytes(t, n, off)
		}
	}
}

func checkMixBytes(t *testing.T, n, off int) {
	fresh := func() [3][]float32 {
		var arrs [3][]float32
		for k := range arrs {
			arrs[k] = make([]float32, n+off)[off:]
			for i := range arrs[k] {
				arrs[k][i] = float32(k*1000 + i + 1)
			}
		}
		return arrs
	}
	same := func(x, y []float32) bool {
		return slices.EqualFunc(x, y, func(a, b float32) bool { return a == b || a != a && b != b })
	}
	for _, mx := range append(mixes(), sweepMixes()...) {
		before := fresh()
		after := fresh()
		sum := mx.Kernel(after[0], after[1], after[2])
		writes := 0
		for k := range after {
			if !same(before[k], after[k]) {
				writes++
			}
		}
		reads := 0
		for k := range 3 {
			// Poison one element at a time positions: first, middle, last, so a kernel that
			// skipped its head, bulk or tail is caught.
			for _, at := range []int{0, n / 2, n - 1} {
				poisoned := fresh()
				poisoned[k][at] = float32(math.NaN())
				psum := mx.Kernel(poisoned[0], poisoned[1], poisoned[2])
				changed := sum != psum && !(math.IsNaN(sum) && math.IsNaN(psum))
				for j := range poisoned {
					if j != k && !same(after[j], poisoned[j]) {
						changed = true
					}
				}
				if !changed {
					if at == 0 {
						break // not read at all
					}
					t.Errorf("%s (n %d, offset %d): array %d element %d does not reach the result", mx.Name, n, off, k, at)
				}
				if at == n-1 {
					reads++
				}
			}
		}
		if reads != mx.Reads || writes != mx.Writes {
			t.Errorf("%s (n %d): kernel reads %d and writes %d arrays; the mix counts %d and %d", mx.Name, n, reads, writes, mx.Reads, mx.Writes)
		}
		if got, want := mx.Bytes(n), int64((reads+writes)*elemBytes*n); got != want {
			t.Errorf("%s: %d bytes over %d elements, want %d", mx.Name, got, n, want)
		}
	}
}

func TestMemMixKernelsComputeTheirFormulas(t *testing.T) {
	for _, n := range []int{203, 9000} { // 9000: whole page-interleaved blocks and a tail
		memMixFormulas(t, n)
	}
}

func memMixFormulas(t *testing.T, n int) {
	for _, mx := range append(mixes(), sweepMixes()...) {
		// Small integers, so that every sum and triad is exact in float32 in any order.
		a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
		wantSum := 0
		for i := range n {
			a[i], b[i], c[i] = float32(i%1024), float32(2*i+1), float32(3*i+2)
			wantSum += i % 1024
		}
		var want []float32
		switch mx.Name {
		case "copy", "copy_nt", "copy_zmm":
			want = slices.Clone(a)
			mx.Kernel(a, b, c)
			if !slices.Equal(b, want) {
				t.Errorf("%s: b = %v, want a", mx.Name, b)
			}
		case "triad", "triad_nt":
			for i := range n {
				want = append(want, b[i]+3*c[i])
			}
			mx.Kernel(a, b, c)
			if !slices.Equal(a, want) {
				t.Errorf("%s: a = %v, want b + 3c", mx.Name, a)
			}
		case "read", "read_zmm":
			if s := mx.Kernel(a, b, c); s != float64(wantSum) {
				t.Errorf("%s: sum %g, want %d", mx.Name, s, wantSum)
			}
		case "write", "write_nt":
			mx.Kernel(a, b, c)
			if slices.ContainsFunc(a, func(x float32) bool { return x != triadScalar }) {
				t.Errorf("%s: a = %v", mx.Name, a)
			}
		default:
			t.Errorf("mix %s untested", mx.Name)
		}
	}
}

// TestProbe: the same-time compute probe runs the kernel behind this host's vector.fp32 roof
// (the one RoofKernels lists for it) and reports a rate a multiply-add loop can reach: above
// a billion FLOP/s, and no faster than the same kernel's own peak over a longer run allows.
func TestProbe(t *testing.T) {
	p := instrument.NewProbe()
	var want *RoofKernel
	for _, rk := range RoofKernels() {
		if rk.Key == profiles.ProbeKey {
			want = &rk
		}
	}
	if (p == nil) != (want == nil) {
		t.Fatalf("probe %v, roof kernel %v", p, want)
	}
	if p == nil {
		t.Skip("no vector.fp32 kernel on this host")
	}
	if p.Kernel() != want.Kernel || p.Workers() < 1 {
		t.Errorf("probe runs %s on %d workers, want %s", p.Kernel(), p.Workers(), want.Kernel)
	}
	first, second := p.Sample(), p.Sample()
	peak := want.Peak(p.Workers(), 20*fmaDispatch)
	if first < 1e9 || second < 1e9 || second > 1.5*peak {
		t.Errorf("probe rates %.3g, %.3g FLOP/s against the kernel's peak %.3g", first, second, peak)
	}
}
