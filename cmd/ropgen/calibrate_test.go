package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

// TestMemMixBytesFollowTheKernels checks each mix's byte count against what its kernel
// actually does: an array counts as written when the kernel changes it, and as read when
// poisoning it with NaN changes a result. A kernel edited without its counts (or the reverse)
// would price every CPU row against the wrong DRAM ceiling.
func TestMemMixBytesFollowTheKernels(t *testing.T) {
	const n = 37 // not a multiple of sum8's unroll
	fresh := func() [3][]float64 {
		var arrs [3][]float64
		for k := range arrs {
			arrs[k] = make([]float64, n)
			for i := range arrs[k] {
				arrs[k][i] = float64(k*100 + i + 1)
			}
		}
		return arrs
	}
	run := func(mx memMix, arrs [3][]float64) ([3][]float64, float64) {
		s := mx.kernel(arrs[0], arrs[1], arrs[2])
		return arrs, s
	}
	same := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })
	}
	for _, mx := range memMixes {
		before := fresh()
		after, sum := run(mx, fresh())
		writes := 0
		for k := range after {
			if !same(before[k], after[k]) {
				writes++
			}
		}
		reads := 0
		for k := range 3 {
			poisoned := fresh()
			for i := range poisoned[k] {
				poisoned[k][i] = math.NaN()
			}
			got, psum := run(mx, poisoned)
			changed := !same([]float64{sum}, []float64{psum})
			for j := range got {
				if j != k && !same(after[j], got[j]) {
					changed = true
				}
			}
			if changed {
				reads++
			}
		}
		if reads != mx.reads || writes != mx.writes {
			t.Errorf("%s: kernel reads %d and writes %d arrays; the mix counts %d and %d", mx.name, reads, writes, mx.reads, mx.writes)
		}
		if got, want := mx.bytes(n), int64((reads+writes)*8*n); got != want {
			t.Errorf("%s: %d bytes over %d elements, want %d", mx.name, got, n, want)
		}
	}
}

func TestMemMixKernelsComputeTheirFormulas(t *testing.T) {
	a, b, c := []float64{1, 2, 3}, []float64{4, 5, 6}, []float64{7, 8, 9}
	byName := map[string]memMix{}
	for _, mx := range memMixes {
		byName[mx.name] = mx
	}
	byName["triad"].kernel(a, b, c)
	if !slices.Equal(a, []float64{4 + 3*7, 5 + 3*8, 6 + 3*9}) {
		t.Errorf("triad: %v", a)
	}
	byName["copy"].kernel(a, b, c)
	if !slices.Equal(b, a) {
		t.Errorf("copy: %v, %v", a, b)
	}
	x := make([]float64, 19)
	for i := range x {
		x[i] = float64(i)
	}
	if s := byName["read"].kernel(x, nil, nil); s != 171 {
		t.Errorf("read sum = %g, want 171", s)
	}
}

func TestComputeCeiling(t *testing.T) {
	cpu := profiles.CPU{Model: "X", Flags: map[string]bool{"avx512f": true, "avx2": true, "fma": true}, Logical: 8, Physical: 4, MaxMHz: 3000}
	// 4 cores × 3000 MHz × 16 float32 lanes × 2 pipes × 2 FLOPs per FMA.
	if v, prov := computeCeiling(cpu, 4, 1e9); v != 768e9 || !strings.Contains(prov, "4 cores x 3000 MHz (cpufreq max) x 16 lanes (avx512f)") {
		t.Errorf("fp32 ceiling = %g, %q", v, prov)
	}
	if v, _ := computeCeiling(cpu, 8, 1e9); v != 384e9 {
		t.Errorf("fp64 ceiling = %g, want 384e9", v)
	}
	// A ceiling below the measurement is no ceiling: fall back to a stated estimate.
	if v, prov := computeCeiling(cpu, 4, 1e12); v != 1e12*32 || !strings.Contains(prov, "below the measurement") {
		t.Errorf("ceiling below measurement: %g, %q", v, prov)
	}
	cpu.MaxMHz = 0
	cpu.Flags = map[string]bool{"avx2": true, "fma": true}
	if v, prov := computeCeiling(cpu, 8, 2e9); v != 2e9*8 || !strings.Contains(prov, "No datasheet value available (no cpufreq maximum exposed); estimate = measured x 8") {
		t.Errorf("no max clock: %g, %q", v, prov)
	}
	cpu.Flags = map[string]bool{"sse2": true}
	cpu.MaxMHz, cpu.Physical = 2000, 0
	// No FMA: a multiply or an add per lane per pipe; Logical cores when Physical is unknown.
	if v, _ := computeCeiling(cpu, 4, 1e9); v != 8*2000e6*4*2*1 {
		t.Errorf("sse2 ceiling = %g", v)
	}
}

func TestDefaultArrayMiB(t *testing.T) {
	// Two LLC instances of 32 MiB among 16 CPUs: 8 × 64 MiB.
	if got := defaultArrayMiB(profiles.CPU{Logical: 16, LLCBytes: 32 << 20, LLCShared: 8}, 0); got != 512 {
		t.Errorf("defaultArrayMiB = %d, want 512", got)
	}
	if got := defaultArrayMiB(profiles.CPU{Logical: 2}, 0); got != 64 {
		t.Errorf("defaultArrayMiB without an LLC = %d, want 64", got)
	}
	// 2 GiB available: each array at most 256 MiB, so the three fit in 3/8 of it.
	if got := defaultArrayMiB(profiles.CPU{Logical: 16, LLCBytes: 32 << 20, LLCShared: 8}, 2<<30); got != 256 {
		t.Errorf("defaultArrayMiB with 2 GiB available = %d, want 256", got)
	}
	if memAvailable() <= 0 {
		t.Errorf("memAvailable() = %d on a Linux host", memAvailable())
	}
}

// TestRenderedProfileLoadsWithTheMeasuredNumbers checks that what calibrate writes loads back
// with effective ceilings equal to the measurements, the envelope as the hbm ceiling, and
// every mix kept.
func TestRenderedProfileLoadsWithTheMeasuredNumbers(t *testing.T) {
	cpu := profiles.CPU{Model: "Test CPU 9000", Flags: map[string]bool{"avx2": true, "fma": true}, Logical: 2, Physical: 2, LLCBytes: 32 << 20, LLCShared: 2}
	m := measurements{
		mixRate:    map[string]float64{"copy": 8e9, "triad": 9.5e9, "read": 10e9, "write": 4e9},
		fma32:      3.3e9,
		fma64:      2.2e9,
		latency:    1.5e-6,
		dispatches: 2000,
	}
	text := renderHostProfile(cpu, calibration{workers: 2, arrayMiB: 256, repeats: 5}, m, time.Unix(0, 0))
	p, err := profiles.Parse("host.yaml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	rel := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-5*want {
			t.Errorf("%s = %g, want %g", what, got, want)
		}
	}
	if p.Device != "cpu: Test CPU 9000" {
		t.Errorf("device = %q", p.Device)
	}
	rel("hbm effective (the read envelope)", p.HBM.Effective, 10e9)
	for mix, rate := range m.mixRate {
		rel("mix "+mix, p.MixFractions[mix]*p.HBM.Theoretical, rate)
	}
	for key, want := range map[string]float64{"vector.fp32": 3.3e9, "vector.fp64": 2.2e9, "cube.fp32": 3.3e9} {
		v, ok := p.Resolve(key, profiles.Effective)
		if !ok {
			t.Errorf("%s: %s", key, p.Why(key, profiles.Effective))
		}
		rel(key, v, want)
	}
	if p.LatencyFloor != 1.5e-6 {
		t.Errorf("latency floor = %g", p.LatencyFloor)
	}
	if bytes.Contains(text, []byte("WARNING")) {
		t.Errorf("arrays of 8x the LLC flagged as cache-sized")
	}
	small := renderHostProfile(cpu, calibration{workers: 2, arrayMiB: 4, repeats: 1}, m, time.Unix(0, 0))
	if !bytes.Contains(small, []byte("WARNING: the arrays are less than 4x the last-level cache")) {
		t.Errorf("arrays smaller than the LLC not flagged")
	}
}

// TestCalibrateShortRun runs the whole command with small arrays and short runs.
func TestCalibrateShortRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cache", "host.yaml")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"calibrate", "-o", out, "-mib", "2", "-repeats", "1", "-fma-ms", "5"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	p, err := profiles.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Matches(profiles.HostDeviceName()) {
		t.Errorf("host profile device %q does not match HostDeviceName %q", p.Device, profiles.HostDeviceName())
	}
	if len(p.MixFractions) != 4 || p.LatencyFloor <= 0 {
		t.Errorf("mixes %v, latency floor %g", p.MixFractions, p.LatencyFloor)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("calibrate left %d files beside its output", len(entries))
	}
}

func TestCalibrateUsage(t *testing.T) {
	for _, args := range [][]string{{"calibrate"}, {"calibrate", "-o", "x", "extra"}, {"calibrate", "-o", "x", "-repeats", "0"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestWriteFileAtomicReplaces(t *testing.T) {
	name := filepath.Join(t.TempDir(), "p.yaml")
	for _, content := range []string{"one\n", "two\n"} {
		if err := writeFileAtomic(name, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(name); string(got) != content {
			t.Errorf("file holds %q, want %q", got, content)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(name)); len(entries) != 1 {
		t.Errorf("%d files in the directory, want 1", len(entries))
	}
}
