package calibrate

import (
	"fmt"
	"slices"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

// A calibration is refused, not written, when its rounds disagree or its figures contradict
// the physics of a memory hierarchy (DESIGN.md, "Honest anywhere"): a profile measured on a
// busy machine prices correct kernels above its ceilings and convicts them later. Refused
// means no profile at all rather than one marked unreliable: a file that exists gets used
// (by report -profile, by a copy to another machine, by a tool in another language that reads
// the YAML), while an absent one cannot be priced with by accident, and make run already
// treats a missing profile as "calibrate".

// The tolerances of a figure's rounds: how far below its best round its median round may lie,
// and how far its best round may move between the first and second half of its rounds. The
// ceiling is the best round (noise on a shared machine only slows a round), so what must
// hold is that the best is typical: at least half the rounds within the tolerance of it, in
// both halves of the calibration.
const (
	// ComputeTolerance is the report's reason for WideSpread: the at-ceiling band is 80-105%
	// of the roof, and a roof that moves by more than a tenth moves rows across its lines.
	ComputeTolerance = WideSpread
	// MemoryTolerance is wider, the drift check's cap (report.DriftCap): a memory figure's
	// rounds share the memory system with every other process and, in a virtual machine,
	// with other guests, which slow them without taking a core; on an idle guest here the DRAM
	// rounds still spread more than the compute ones. A run's copy reference may be that far
	// off the profile before it counts as drift, so the profile's own rounds must agree at
	// least as well.
	MemoryTolerance = 0.25
)

// minJudged is the fewest rounds whose spread is judged: a calibration of fewer (-repeats 1,
// as the command's tests run) is checked for its orderings only, and its profile says so.
const minJudged = 3

// figure is one measured roof of a result with its rounds in the order measured.
type figure struct {
	what    string
	samples []float64
	tol     float64
}

// figures are the roofs a profile prices with (and the copy mix, the drift reference's
// ceiling), each with its rounds. The DRAM figures only when the arrays are DRAM-sized:
// smaller arrays measure a cache, and the profile says so (Render's warning).
func (r *Result) figures() []figure {
	var fs []figure
	if r.dramSized() {
		env := r.Envelope()
		fs = append(fs, figure{"the DRAM envelope (" + env.Name + " mix)", env.Samples, MemoryTolerance})
		for _, m := range r.Mixes {
			if m.Name == "copy" && m.Name != env.Name {
				fs = append(fs, figure{"the copy mix (the drift reference's ceiling)", m.Samples, MemoryTolerance})
			}
		}
	}
	keys, fillers := r.pricedRoofs()
	for i, c := range fillers {
		fs = append(fs, figure{keys[i] + " (" + c.Kernel + ")", c.Samples, ComputeTolerance})
	}
	for _, c := range r.Caches {
		fs = append(fs, figure{c.Key + " bandwidth", c.Rounds, MemoryTolerance})
	}
	return fs
}

// dramSized says whether the DRAM arrays are at least twice the last-level cache (or the
// cache is unknown), so that the hbm figures are main memory.
func (r *Result) dramSized() bool {
	return r.CPU.LLCBytes == 0 || int64(r.Config.ArrayMiB)<<20 >= 2*r.CPU.LLCBytes
}

// Refusals says why r must not become a profile, one reason a line; none when it may.
//
//   - A figure whose median round lies more than its tolerance below its best round: most
//     rounds did not reach the roof, so the best one is luck, or the others were slowed.
//   - A figure whose best round moved by more than its tolerance between the first and the
//     second half of its rounds: the machine changed during the calibration (the cold mixes'
//     rounds span all of it, from the memory mixes to the last multiply-add round).
//   - A cache level whose roof is not above the next level's, or not above the DRAM
//     envelope's: a level nearer the core is never slower, so one rate or the other is a
//     disturbed measurement.
func (r *Result) Refusals() []string {
	var out []string
	for _, f := range r.figures() {
		if r.Config.Repeats < minJudged || len(f.samples) < minJudged {
			continue // too few rounds to show a spread (Render says the profile is unchecked)
		}
		s := profiles.SpreadOf(slices.Clone(f.samples))
		if below := 1 - s.Median/s.Max; below > f.tol {
			out = append(out, fmt.Sprintf("%s: the median round (%.4g) is %.0f%% below the best (%.4g), more than its tolerance of %.0f%%: most rounds were slowed (a busy machine, or a moving clock)",
				f.what, s.Median, 100*below, s.Max, 100*f.tol))
		}
		if len(f.samples) < 6 {
			// Three rounds a half at least: with two, one disturbed pair of rounds decides
			// (short rounds, such as the sweep's L1 sizes, can move between halves on a quiet
			// machine while their median stays near the best).
			continue
		}
		h := len(f.samples) / 2
		a, b := slices.Max(f.samples[:h]), slices.Max(f.samples[h:])
		if moved := max(a, b)/min(a, b) - 1; moved > f.tol {
			out = append(out, fmt.Sprintf("%s: the best round moved by %.0f%% between the first %d rounds (%.4g) and the last %d (%.4g), more than its tolerance of %.0f%%: the machine changed during the calibration",
				f.what, 100*moved, h, a, len(f.samples)-h, b, 100*f.tol))
		}
	}
	cs := r.Caches // in key order: l1, l2, l3
	for i, c := range cs {
		for _, o := range cs[i+1:] {
			if c.Rate.Max <= o.Rate.Max {
				out = append(out, fmt.Sprintf("%s bandwidth (%.4g B/s) is not above %s bandwidth (%.4g B/s): a level nearer the core is never slower, so the rounds were disturbed", c.Key, c.Rate.Max, o.Key, o.Rate.Max))
			}
		}
		if env := r.Envelope(); r.dramSized() && c.Rate.Max <= env.Rate.Max {
			out = append(out, fmt.Sprintf("%s bandwidth (%.4g B/s) is not above the DRAM envelope (%.4g B/s, %s mix): a cache is never slower than main memory, so the rounds were disturbed", c.Key, c.Rate.Max, env.Rate.Max, env.Name))
		}
	}
	return out
}

// Calibrate measures with measure (Run; a test passes its own) until a result has no
// Refusals or the budget runs out: it measures again only when one more attempt, as long as
// the last, would end within budget of the start (now is the clock). It returns the last
// result, with its Attempt, and its refusals (none: accepted).
func Calibrate(cfg Config, budget time.Duration, measure func(Config) *Result, now func() time.Time) (*Result, []string) {
	start := now()
	for attempt := 1; ; attempt++ {
		t0 := now()
		r := measure(cfg)
		r.Attempt = attempt
		why := r.Refusals()
		if len(why) == 0 {
			return r, nil
		}
		took := now().Sub(t0)
		if budget <= 0 || now().Sub(start)+took > budget {
			return r, why
		}
		cfg.logf("calibrate: attempt %d refused (%v), measuring again (budget %v, %v spent):\n", attempt, took.Round(time.Second), budget, now().Sub(start).Round(time.Second))
		for _, w := range why {
			cfg.logf("  %s\n", w)
		}
	}
}
