package calibrate

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

func TestComputeCeiling(t *testing.T) {
	cpu := profiles.CPU{Model: "X", Logical: 8, Physical: 4, MaxMHz: 3000}
	// 4 cores × 3000 MHz × 16 float32 lanes × 2 pipes × 2 FLOPs per FMA.
	if th := computeCeiling(cpu, 16, "avx512", 1e9); th.value != 768e9 || !th.estimate || !strings.Contains(th.note, "4 cores x 3000 MHz (cpufreq max) x 16 lanes (avx512)") {
		t.Errorf("fp32 ceiling = %+v", th)
	}
	// A derived ceiling below the measurement is no ceiling: the nominal clock is tried,
	// then a stated estimate.
	cpu.NominalMHz = 2000
	if th := computeCeiling(cpu, 16, "avx512", 1e12); th.value != 1e12*ComputeEstimateFactor || !strings.Contains(th.note, "below the measurement") {
		t.Errorf("ceiling below measurement: %+v", th)
	}
	cpu.MaxMHz = 0
	if th := computeCeiling(cpu, 8, "avx2", 1e9); th.value != 4*2000e6*8*2*2 || !strings.Contains(th.note, "/proc/cpuinfo cpu MHz") {
		t.Errorf("nominal clock: %+v", th)
	}
	cpu.NominalMHz, cpu.Physical = 0, 0
	if th := computeCeiling(cpu, 8, "avx2", 2e9); th.value != 2e9*ComputeEstimateFactor || !strings.Contains(th.note, "the OS reports no clock") {
		t.Errorf("no clock: %+v", th)
	}
}

// synthetic builds a sweep whose rate is levels[i] for working sets up to bounds[i], with
// relative noise of ±noise alternating in sign, and a lone outlier when outlier >= 0.
func synthetic(bounds []int64, levels []float64, noise float64, outlier int) []SweepPoint {
	var pts []SweepPoint
	for i, w := range sweepSizes(256 << 20) {
		k := 0
		for k < len(bounds)-1 && w > bounds[k] {
			k++
		}
		v := levels[k] * (1 + noise*float64(1-2*(i%2)))
		if i == outlier {
			v /= 3
		}
		pts = append(pts, SweepPoint{Bytes: w, Kernel: "read", Rate: profiles.Spread{Min: v, Median: v, Max: v, N: 1}, Samples: []float64{v}})
	}
	return pts
}

func TestPlateaus(t *testing.T) {
	cpu := profiles.CPU{Caches: []profiles.Cache{{Level: 1, Bytes: 48 << 10, Shared: 1}, {Level: 2, Bytes: 2 << 20, Shared: 1}, {Level: 3, Bytes: 32 << 20, Shared: 2}}}
	bounds := []int64{48 << 10, 2 << 20, 16 << 20, 1 << 40}
	levels := []float64{400e9, 150e9, 60e9, 10e9}
	for _, tc := range []struct {
		name    string
		noise   float64
		outlier int
	}{{"clean", 0, -1}, {"noisy", 0.06, -1}, {"outlier in l2", 0.03, 8}} {
		t.Run(tc.name, func(t *testing.T) {
			got := plateaus(synthetic(bounds, levels, tc.noise, tc.outlier), cpu, 2, 10e9)
			if len(got) != 3 {
				t.Fatalf("%d levels: %v", len(got), got)
			}
			for i, c := range got {
				if c.Key != profiles.CacheKeys[i] || math.Abs(c.Rate.Median-levels[i]) > 0.1*levels[i] {
					t.Errorf("level %d = %v, want %s at %g", i, c, profiles.CacheKeys[i], levels[i])
				}
			}
			if got[0].To > 48<<10 || got[1].From <= 48<<10 || got[1].To > 2<<20 || got[2].Bytes != got[2].To*2 {
				t.Errorf("ranges: %v", got)
			}
		})
	}
	// A VM that reports a huge L3 the guest cannot use: the plateau beyond L2 runs at DRAM
	// speed and is DRAM, not l3.
	big := profiles.CPU{Caches: []profiles.Cache{{Level: 1, Bytes: 48 << 10, Shared: 1}, {Level: 2, Bytes: 2 << 20, Shared: 1}, {Level: 3, Bytes: 480 << 20, Shared: 2}}}
	got := plateaus(synthetic([]int64{48 << 10, 2 << 20, 1 << 40}, []float64{400e9, 150e9, 10e9}, 0.02, -1), big, 2, 10e9)
	if len(got) != 2 || got[1].Key != "l2" {
		t.Errorf("DRAM-speed plateau named a cache: %v", got)
	}
	// A busy machine: the L1 sizes' best rounds zigzag by ±30%, so they form no plateau. The
	// level /sys reports is still measured, as the best round of the sizes that fit in it,
	// and marked.
	zig := synthetic(bounds, levels, 0, -1)
	for i := range zig {
		if zig[i].Bytes <= 48<<10 {
			v := levels[0] * (1 + 0.3*float64(1-2*(i%2)))
			zig[i].Rate = profiles.Spread{Min: v, Median: v, Max: v, N: 1}
			zig[i].Samples = []float64{v}
		}
	}
	got = plateaus(zig, cpu, 2, 10e9)
	if len(got) != 3 || got[0].Key != "l1" || !got[0].NoPlateau || got[1].NoPlateau || got[0].To > 48<<10 || got[0].Rate.Max != 1.3*levels[0] {
		t.Errorf("no L1 plateau: %v", got)
	}
	for i := range zig {
		if zig[i].Bytes <= 48<<10 {
			v := levels[1] * (0.7 + 0.1*float64(i%2))
			zig[i].Rate = profiles.Spread{Min: v, Median: v, Max: v, N: 1}
			zig[i].Samples = []float64{v}
		}
	}
	// An L1 slower than L2 is kept, for Refusals to refuse the calibration.
	got = plateaus(zig, cpu, 2, 10e9)
	if len(got) != 3 || got[0].Key != "l1" || got[1].Key != "l2" {
		t.Errorf("an L1 slower than L2 was not kept: %v", got)
	}
	r := &Result{Caches: got, Config: Config{Repeats: 5}}
	if why := r.Refusals(); len(why) != 1 || !strings.HasPrefix(why[0], "l1 bandwidth") || !strings.Contains(why[0], "is not above l2 bandwidth") {
		t.Errorf("refusals %q", why)
	}
	// Without /sys the plateaus are named in order.
	got = plateaus(synthetic(bounds, levels, 0, -1), profiles.CPU{}, 2, 10e9)
	if len(got) != 3 || got[2].Key != "l3" {
		t.Errorf("without /sys: %v", got)
	}
}

func testResult() *Result {
	spread := func(med float64) profiles.Spread {
		return profiles.Spread{Min: 0.95 * med, Median: med, Max: 1.03 * med, N: 7}
	}
	return &Result{
		CPU:    profiles.CPU{Model: "Test CPU 9000", Logical: 2, Physical: 2, LLCBytes: 32 << 20, LLCShared: 2, Caches: []profiles.Cache{{Level: 1, Bytes: 48 << 10, Shared: 1}, {Level: 3, Bytes: 32 << 20, Shared: 2}}},
		Config: Config{Workers: 2, ArrayMiB: 256, Repeats: 7},
		When:   profiles.Conditions{At: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), BootID: "boot-1", LoadAvg: 0.5, Cores: 2},
		Mixes: []MixResult{
			{Name: "copy", Reads: 1, Writes: 1, Rate: spread(8e9)},
			{Name: "copy_nt", Reads: 1, Writes: 1, Rate: spread(11e9)},
			{Name: "triad_nt", Reads: 2, Writes: 1, Rate: spread(10e9)},
			{Name: "read", Reads: 1, Rate: spread(9e9)},
		},
		Compute: []ComputeResult{
			{Kernel: "avx2", DType: "fp32", Lanes: 8, Accs: 12, Rate: spread(60e9)},
			{Kernel: "avx512", DType: "fp32", Lanes: 16, Accs: 12, Rate: spread(110e9)},
			{Kernel: "avx2", DType: "fp64", Lanes: 4, Accs: 12, Rate: spread(30e9)},
			{Kernel: "scalar", DType: "fp32", Lanes: 1, Accs: 12, Rate: spread(4e9)},
			{Kernel: "scalar", DType: "fp64", Lanes: 1, Accs: 12, Rate: spread(3e9)},
		},
		Sweep:      []SweepPoint{{Bytes: 16 << 10}, {Bytes: 64 << 20}},
		Caches:     []CacheLevel{{Key: "l1", Bytes: 32 << 10, From: 16 << 10, To: 32 << 10, Points: 3, Rate: spread(400e9)}, {Key: "l3", Bytes: 16 << 20, From: 4 << 20, To: 8 << 20, Points: 3, Rate: spread(40e9)}},
		Latency:    1.5e-6,
		Dispatches: 2000,
	}
}

// TestRenderedProfileLoadsWithTheMeasuredNumbers checks that what calibrate writes loads back
// with each effective ceiling equal to its best round, the spreads kept, the envelope as the
// DRAM ceiling, the fastest SIMD kernel as vector, the scalar roofs labelled, the caches, and
// the measurement conditions.
func TestRenderedProfileLoadsWithTheMeasuredNumbers(t *testing.T) {
	r := testResult()
	text := Render(r)
	p, err := profiles.Parse("host.yaml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	rel := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s = %g, want %g", what, got, want)
		}
	}
	if p.Device != "cpu: Test CPU 9000" || p.MemoryLabel != "DRAM" {
		t.Errorf("device = %q", p.Device)
	}
	rel("hbm effective (the copy_nt envelope's best)", p.HBM.Effective, 11e9*1.03)
	rel("hbm theoretical", p.HBM.Theoretical, 11e9*1.03*DRAMEstimateFactor)
	if !p.HBM.Estimate || !strings.Contains(p.HBM.Note, "doubles its bytes") || !strings.Contains(p.HBM.Note, "triad_nt mix") {
		t.Errorf("hbm estimate %v, note %q", p.HBM.Estimate, p.HBM.Note)
	}
	rel("hbm spread median", p.HBM.Spread.Median, 11e9)
	for _, m := range r.Mixes {
		rel("mix "+m.Name, p.MixFractions[m.Name]*p.HBM.Theoretical, m.Rate.Max)
		rel("mix spread "+m.Name, p.MixSpreads[m.Name].Min, m.Rate.Min)
	}
	for key, want := range map[string]float64{"vector.fp32": 110e9 * 1.03, "vector.fp64": 30e9 * 1.03, "cube.fp32": 110e9 * 1.03, "cube.fp64": 30e9 * 1.03, "scalar.fp32": 4e9 * 1.03, "scalar.fp64": 3e9 * 1.03} {
		v, ok := p.Resolve(key, profiles.Effective)
		if !ok {
			t.Errorf("%s: %s", key, p.Why(key, profiles.Effective))
		}
		rel(key, v, want)
		if c, _ := p.Roof(key); c.Spread.N != 7 || !c.Estimate || c.Note == "" {
			t.Errorf("%s: %+v", key, c)
		}
	}
	if len(p.Caches) != 2 || p.Caches[0].Key != "l1" || p.Caches[1].Bytes != 16<<20 {
		t.Errorf("caches %+v", p.Caches)
	}
	rel("l1", p.Caches[0].Effective, 400e9*1.03)
	if p.LatencyFloor != 1.5e-6 {
		t.Errorf("latency floor = %g", p.LatencyFloor)
	}
	if !reflect.DeepEqual(p.Measured, r.When) {
		t.Errorf("measured = %+v, want %+v", p.Measured, r.When)
	}
	if !bytes.Contains(text, []byte("also measured: avx2 fp32")) {
		t.Errorf("the slower SIMD kernel is not mentioned")
	}
	if bytes.Contains(text, []byte("WARNING")) {
		t.Errorf("arrays of 8x the LLC flagged as cache-sized, or an 8%% spread flagged")
	}
	r.Config.ArrayMiB = 4
	r.Warnings = r.spreadWarnings()
	if small := Render(r); !bytes.Contains(small, []byte("WARNING: the arrays are less than 2x the last-level cache")) {
		t.Errorf("arrays smaller than the LLC not flagged")
	}
}

func TestSpreadWarnings(t *testing.T) {
	r := testResult()
	if ws := r.spreadWarnings(); len(ws) != 0 {
		t.Errorf("an 8%% spread warned: %v", ws)
	}
	r.Compute[1].Rate = profiles.Spread{Min: 50e9, Median: 100e9, Max: 110e9, N: 7}
	ws := r.spreadWarnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "vector.fp32 (avx512) varied by 60%") {
		t.Errorf("warnings %v", ws)
	}
}

// TestRunShort runs a whole calibration with tiny sizes: every figure is measured, positive
// and kept with its spread, and the profile loads.
func TestRunShort(t *testing.T) {
	cfg := Config{Workers: 2, ArrayMiB: 2, Repeats: 2, FMATime: 2 * time.Millisecond, SweepBytes: 1 << 20, SweepMax: 1 << 20}
	r := Run(cfg)
	if len(r.Mixes) < 4 || len(r.Compute) < 2 || len(r.Sweep) == 0 || r.Latency <= 0 {
		t.Fatalf("result %+v", r)
	}
	// A warm mix has one sample a round; a cold mix coldPerRound a memory round and one
	// after each multiply-add round.
	cold := 0
	for _, m := range r.Mixes {
		want := cfg.Repeats
		if strings.HasSuffix(m.Name, "_cold") {
			cold++
			want = cfg.Repeats * (coldPerRound + 1)
		}
		if m.Rate.N != want || !(m.Rate.Min > 0 && m.Rate.Min <= m.Rate.Median && m.Rate.Median <= m.Rate.Max) {
			t.Errorf("mix %s: %+v; want %d samples", m.Name, m.Rate, want)
		}
	}
	if cold != 2 || r.ColdMiB != cfg.ArrayMiB {
		t.Errorf("%d cold mixes on arrays of %d MiB; want copy_cold and triad_cold on %d MiB", cold, r.ColdMiB, cfg.ArrayMiB)
	}
	// Tiny sweep rounds on a busy test machine can order two cache levels wrong, which the
	// calibration refuses: rendered as ropgen calibrate -loaded renders it, it still loads.
	r.When.Refused = r.Refusals()
	if _, err := profiles.Parse("short.yaml", Render(r)); err != nil {
		t.Fatalf("%v (refusals: %q)", err, r.When.Refused)
	}
}

// TestHalfPrecision: the line says conversion and the fp32 pipes where the CPU has no bf16/fp16
// multiply-add instructions (this Xeon: AVX-512F and F16C, no avx512_bf16, AMX or
// avx512_fp16), names the instructions where it has them and they were not measured, speaks
// only of the dtypes without a roof of their own, and is empty without flags or when both
// have one.
func TestHalfPrecision(t *testing.T) {
	flags := func(fs ...string) profiles.CPU {
		c := profiles.CPU{Flags: map[string]bool{}}
		for _, f := range fs {
			c.Flags[f] = true
		}
		return c
	}
	bf16 := map[string]bool{"bf16": true}
	for _, c := range []struct {
		cpu  profiles.CPU
		own  map[string]bool
		want string
	}{
		{flags("sse2", "avx2", "avx512f", "f16c"), nil, "no bf16/fp16 multiply-add instructions (no avx512_bf16, amx_bf16, avx512_fp16, amx_fp16): bf16 and fp16 are converted to fp32 (bf16 by a 16-bit shift, fp16 by F16C (VCVTPH2PS)) and computed on the fp32 FMA pipes"},
		{flags("sse2", "avx512f", "f16c", "avx512_bf16", "amx_bf16"), nil, "this CPU has avx512_bf16, amx_bf16: kernels using those instructions run above the fp32 pipes, which this calibration does not measure, so the fp32 price of bf16 and fp16 is a low roof"},
		// bf16 measured (AVX512-BF16, no AVX512-FP16): the line is fp16's alone.
		{flags("sse2", "avx512f", "f16c", "avx512_bf16"), bf16, "no fp16 multiply-add instructions (no avx512_fp16, amx_fp16): fp16 is converted to fp32 (fp16 by F16C (VCVTPH2PS)) and computed on the fp32 FMA pipes"},
		{flags("sse2", "avx512f", "avx512_bf16", "avx512_fp16"), map[string]bool{"bf16": true, "fp16": true}, ""},
		{flags("asimd", "fphp"), nil, "this CPU has fphp:"},
		{flags("asimd"), nil, "no bf16, fphp): bf16 and fp16 are converted to fp32 (bf16 by a 16-bit shift, fp16 by FCVTL)"},
		{profiles.CPU{}, nil, ""},
	} {
		got := HalfPrecision(c.cpu, c.own)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("HalfPrecision(%v, %v) = %q; want it to contain %q", c.cpu.Flags, c.own, got, c.want)
		}
	}
}
