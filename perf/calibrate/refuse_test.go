package calibrate

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

// rounds are samples in measurement order around v: the best v, the others within 4%.
func rounds(v float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v * (1 - 0.04*float64((i*3)%5)/4)
	}
	s[n/2] = v
	return s
}

func spreadOfRounds(s []float64) profiles.Spread { return profiles.SpreadOf(slices.Clone(s)) }

// quietResult is a calibration whose every priced figure's rounds agree: a DRAM envelope
// (copy_cold) on DRAM-sized arrays, the copy mix, two SIMD kernels and three cache levels,
// each faster than the next and than DRAM.
func quietResult() *Result {
	r := &Result{
		CPU:    profiles.CPU{Model: "Test CPU", Logical: 2, Physical: 2, LLCBytes: 32 << 20, LLCShared: 2},
		Config: Config{Workers: 2, ArrayMiB: 256, Repeats: 7},
	}
	mix := func(name string, v float64, n int) {
		s := rounds(v, n)
		r.Mixes = append(r.Mixes, MixResult{Name: name, Reads: 1, Writes: 1, Samples: s, Rate: spreadOfRounds(s)})
	}
	mix("copy", 8e9, 7)
	mix("copy_nt", 11e9, 7)
	mix("copy_cold", 12e9, 28)
	for _, c := range []struct {
		kernel, dtype string
		v             float64
	}{{"avx512", "fp32", 300e9}, {"avx2", "fp32", 160e9}, {"avx512", "fp64", 150e9}, {"scalar", "fp32", 14e9}} {
		s := rounds(c.v, 7)
		r.Compute = append(r.Compute, ComputeResult{Kernel: c.kernel, DType: c.dtype, Samples: s, Rate: spreadOfRounds(s)})
	}
	for _, c := range []struct {
		key string
		v   float64
	}{{"l1", 400e9}, {"l2", 150e9}, {"l3", 50e9}} {
		s := rounds(c.v, 5)
		r.Caches = append(r.Caches, CacheLevel{Key: c.key, Rounds: s, Rate: spreadOfRounds(s)})
	}
	return r
}

func refusedFor(t *testing.T, r *Result, want ...string) {
	t.Helper()
	got := r.Refusals()
	if len(got) != len(want) {
		t.Fatalf("%d refusals, want %d (%q): %q", len(got), len(want), want, got)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("refusal %d = %q, want it to say %q", i, got[i], w)
		}
	}
}

func TestRefusals(t *testing.T) {
	refusedFor(t, quietResult())

	// A busy core: most multiply-add rounds ran at two thirds of the best one.
	r := quietResult()
	r.Compute[0].Samples = []float64{300e9, 200e9, 210e9, 290e9, 205e9, 198e9, 220e9}
	r.Compute[0].Rate = spreadOfRounds(r.Compute[0].Samples)
	refusedFor(t, r, "vector.fp32 (avx512): the median round (2.1e+11) is 30% below the best (3e+11), more than its tolerance of 10%")

	// The clock moved: the first half's rounds agree, the second's too, 20% apart.
	r = quietResult()
	r.Compute[2].Samples = []float64{126e9, 125e9, 124e9, 150e9, 151e9, 149e9, 150e9}
	r.Compute[2].Rate = spreadOfRounds(r.Compute[2].Samples)
	refusedFor(t, r, "vector.fp64 (avx512): the best round moved by 20% between the first 3 rounds (1.26e+11) and the last 4 (1.51e+11)")

	// The DRAM envelope's cold calls: most of them slowed, and the copy mix too.
	r = quietResult()
	r.Mixes[2].Samples = []float64{12e9, 6e9, 7e9, 6e9, 12e9, 5e9, 6e9}
	r.Mixes[2].Rate = spreadOfRounds(r.Mixes[2].Samples)
	r.Mixes[0].Samples = []float64{8e9, 8e9, 5e9, 5e9, 5e9, 5e9, 8e9}
	r.Mixes[0].Rate = spreadOfRounds(r.Mixes[0].Samples)
	refusedFor(t, r, "the DRAM envelope (copy_cold mix): the median round", "the copy mix (the drift reference's ceiling): the median round")
	// On arrays smaller than 2x the LLC the hbm figures are a cache's, and the profile says
	// so: they are not judged as DRAM.
	r.Config.ArrayMiB = 2
	refusedFor(t, r)
	// Nor with fewer rounds than a spread needs (-repeats 1 or 2).
	r.Config.ArrayMiB, r.Config.Repeats = 256, 2
	refusedFor(t, r)

	// Orderings: an L2 slower than L3, an L3 slower than DRAM.
	r = quietResult()
	r.Caches[1].Rounds = rounds(45e9, 5)
	r.Caches[1].Rate = spreadOfRounds(r.Caches[1].Rounds)
	refusedFor(t, r, "l2 bandwidth (4.5e+10 B/s) is not above l3 bandwidth (5e+10 B/s)")
	r = quietResult()
	r.Caches[2].Rounds = rounds(11.5e9, 5)
	r.Caches[2].Rate = spreadOfRounds(r.Caches[2].Rounds)
	refusedFor(t, r, "l3 bandwidth (1.15e+10 B/s) is not above the DRAM envelope (1.2e+10 B/s, copy_cold mix)")
	r.Config.ArrayMiB = 2 // not DRAM: the envelope is a cache's
	refusedFor(t, r)

	// Five rounds are too few for halves: two disturbed first rounds with the median near
	// the best are not refused.
	r = quietResult()
	r.Caches[0].Rounds = []float64{255e9, 260e9, 475e9, 427e9, 460e9}
	r.Caches[0].Rate = spreadOfRounds(r.Caches[0].Rounds)
	refusedFor(t, r)

	// A cache level's rounds disagreeing is refused like any figure's.
	r = quietResult()
	r.Caches[0].Rounds = []float64{400e9, 250e9, 260e9, 390e9, 240e9}
	r.Caches[0].Rate = spreadOfRounds(r.Caches[0].Rounds)
	refusedFor(t, r, "l1 bandwidth: the median round (2.6e+11) is 35% below the best (4e+11), more than its tolerance of 25%")
}

// fakeClock advances by step at every measurement.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestCalibrateRetriesThenRefuses(t *testing.T) {
	noisy := func() *Result {
		r := quietResult()
		r.Compute[0].Samples = []float64{300e9, 200e9, 210e9, 290e9, 205e9, 198e9, 220e9}
		r.Compute[0].Rate = spreadOfRounds(r.Compute[0].Samples)
		return r
	}
	var log strings.Builder
	cfg := Config{Log: &log}
	for _, tc := range []struct {
		name     string
		results  []*Result
		budget   time.Duration
		attempts int
		refused  bool
	}{
		{"quiet at once", []*Result{quietResult()}, time.Minute, 1, false},
		{"quiet on the second attempt", []*Result{noisy(), quietResult()}, time.Minute, 2, false},
		// Attempts of 30 s: a second fits a budget of 60 s, a third would not.
		{"noisy for the whole budget", []*Result{noisy(), noisy(), noisy(), quietResult()}, time.Minute, 2, true},
		{"no budget for a second", []*Result{noisy(), quietResult()}, 0, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)}
			calls := 0
			measure := func(Config) *Result {
				clock.t = clock.t.Add(30 * time.Second)
				calls++
				return tc.results[calls-1]
			}
			r, why := Calibrate(cfg, tc.budget, measure, clock.now)
			if calls != tc.attempts || r.Attempt != tc.attempts || (len(why) > 0) != tc.refused {
				t.Errorf("%d calls, attempt %d, refusals %q; want %d attempts, refused %v", calls, r.Attempt, why, tc.attempts, tc.refused)
			}
			if tc.refused && !strings.Contains(why[0], "vector.fp32") {
				t.Errorf("refusals %q do not name the noisy figure", why)
			}
		})
	}
	if !strings.Contains(log.String(), "attempt 1 refused (30s), measuring again (budget 1m0s, 30s spent)") {
		t.Errorf("log %q", log.String())
	}
}

// TestSweepMax: the sweep runs to 4x each worker's share of the LLC (64 MiB to 256 MiB),
// and its buffers stay within a quarter of the available memory, saying so when that stops it
// short.
func TestSweepMax(t *testing.T) {
	cpu := profiles.CPU{LLCBytes: 260 << 20, LLCShared: 2}
	if w, why := sweepMax(cpu, 2, 0); w != 256<<20 || !strings.Contains(why, "4x each worker's 133120 KiB share") {
		t.Errorf("no memory figure: %d, %q", w, why)
	}
	if w, why := sweepMax(cpu, 2, 24<<30); w != 256<<20 || strings.Contains(why, "available memory") {
		t.Errorf("24 GiB: %d, %q", w, why)
	}
	if w, why := sweepMax(cpu, 2, 1<<30); w != 128<<20 || !strings.Contains(why, "a quarter of the 1024 MiB of available memory over 2 workers") {
		t.Errorf("1 GiB: %d, %q", w, why)
	}
}

// TestRenderSysBytes: a level that /sys says is much larger than the sizes the sweep measured
// at its rate keeps the measured size as bytes, the /sys size as sys_bytes, and says what the
// sweep saw past it.
func TestRenderSysBytes(t *testing.T) {
	r := testResult()
	r.CPU.Caches = append(r.CPU.Caches, profiles.Cache{Level: 2, Bytes: 2 << 20, Shared: 1})
	r.CPU.Caches[1] = profiles.Cache{Level: 3, Bytes: 260 << 20, Shared: 2}
	r.Sweep = []SweepPoint{{Bytes: 4 << 20, Rate: profiles.Spread{Max: 41e9}}, {Bytes: 8 << 20, Rate: profiles.Spread{Max: 40e9}},
		{Bytes: 12 << 20, Rate: profiles.Spread{Max: 20e9}}, {Bytes: 256 << 20, Rate: profiles.Spread{Max: 10e9}}}
	r.SweepLimit = "4x each worker's share"
	text := string(Render(r))
	for _, want := range []string{
		"# The sweep stops at 262144 KiB per worker: 4x each worker's share.",
		"    sys_bytes: 272629760  # /sys: 266240 KiB for 2 worker(s); at 12288 KiB per worker, the next size swept past this level's, the best round was 0.49 of its roof, so working sets above 16384 KiB in all are not served at this rate here",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	p, err := profiles.Parse("host.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := p.Cache("l3"); c.Bytes != 16<<20 || c.SysBytes != 260<<20 {
		t.Errorf("l3 %+v", c)
	}
	if c, _ := p.Cache("l1"); c.SysBytes != 48<<10 {
		t.Errorf("l1 %+v", c)
	}
}
