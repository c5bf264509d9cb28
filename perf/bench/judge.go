package bench

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
)

// JudgeMargin is how far above the cold-call floor a case's speed-of-light time must be
// for Judge to keep it: at the roofline such a call spends at most a tenth of its time on
// dispatch and first touch, so its efficiency is the kernel's, and the report's latency
// rule (SOL under the floor) cannot take it, even when the run's own floor comes out
// somewhat above the one Judge was given.
const JudgeMargin = 10

// Judge keeps, of the runnable cases in plans, those that can earn a verdict on prof: per
// op, the case with the smallest tensors among the cpu-* rows whose speed-of-light time on
// prof is at least JudgeMargin times floor (the cold-call floor: the run's ref.floor, else
// the profile's latency_floor), and, when the cases are timed warm, whose tensors are
// larger than the profile's largest cache level, so that they stream from memory. (Cold
// cases, the default, stream from memory whatever their size: every sample starts after
// the caches are evicted.) The smallest such case is the cheapest to build, check and time,
// and the one nearest the rows an op's author tunes. Every other case gets a Skip reason.
func Judge(plans []Planned, prof *profiles.Profile, floor float64, warm bool) []Planned {
	out := slices.Clone(plans)
	best := map[string]int{} // op: index in out of its kept case
	var llc int64
	for _, c := range prof.Caches {
		llc = max(llc, c.Bytes)
	}
	for i := range out {
		p := &out[i]
		if !IsCPUWorkload(p.Case) {
			// Said for every such row, over a limit it may also be above: the rows not
			// sized for the CPU are most of the catalog, and a run counts them.
			p.Skip = SkipJudgeNotCPU
			continue
		}
		if p.Skip != "" {
			continue
		}
		if p.Skip = judgeSkip(p, prof, floor, warm, llc); p.Skip != "" {
			continue
		}
		j, ok := best[p.Case.Case.Op]
		switch {
		case !ok:
			best[p.Case.Case.Op] = i
		case cmp.Compare(p.Storage, out[j].Storage) < 0:
			out[j].Skip = SkipJudgeLarger
			best[p.Case.Case.Op] = i
		default:
			p.Skip = SkipJudgeLarger
		}
	}
	return out
}

// SkipJudgeLarger is the skip reason of a case Judge leaves out because a smaller case of
// its op can earn a verdict too.
const SkipJudgeLarger = "a smaller case of its op can earn a verdict (-judge)"

// SkipJudgeNotCPU is the skip reason of a row Judge leaves out for not being sized for the
// CPU (most of the catalog).
const SkipJudgeNotCPU = "not a cpu-* row (-judge)"

func judgeSkip(p *Planned, prof *profiles.Profile, floor float64, warm bool, llc int64) string {
	pr := Predict(*p, prof, profiles.Effective)
	switch {
	case pr.SOLTime != pr.SOLTime: // NaN: the profile cannot price it
		return fmt.Sprintf("no speed-of-light time on profile %s: %s (-judge)", prof.Name, pr.Note)
	case pr.SOLTime < JudgeMargin*floor:
		return fmt.Sprintf("speed-of-light time %.3g s is under %d x the latency floor %.3g s (-judge)", pr.SOLTime, JudgeMargin, floor)
	case warm && llc > 0 && p.Storage <= llc:
		return fmt.Sprintf("timed warm, its tensors (%s) fit the last-level cache (%s) (-judge)", mib(p.Storage), mib(llc))
	}
	return ""
}

// IsJudgeSkip reports whether reason is one of Judge's, which a run counts rather than lists.
func IsJudgeSkip(reason string) bool {
	return strings.HasSuffix(reason, "(-judge)")
}
