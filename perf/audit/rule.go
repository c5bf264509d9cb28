package audit

import (
	"fmt"

	"github.com/ropgen/ropgen/manifest"
)

// The audit's one rule (docs/audit.md, "Reading the verdicts"), for the cache simulation and
// for Nsight Compute alike. A formula counts the minimum traffic: every input read once and
// every output written once, which is at least the tensors' stored footprint unless the op
// touches part of a tensor (a gather; the signature marks it partial). Measured traffic is
// the kernel's, and a kernel can only move more than the minimum, never less. So:
//
//   - measured below the formula (beyond ε): the formula counts bytes no kernel moved, an
//     overcount: FAIL;
//   - measured within ε of the formula: PASS;
//   - measured above a formula that counts less than the footprint: the formula leaves out
//     bytes the kernel had to move, an undercount: FAIL;
//   - measured above a formula that counts at least the footprint: the formula has every
//     tensor once, and what moves beyond it is the kernel's own (a second pass over its
//     data, reuse that needs more cache than the chip or the simulation has): a WARN
//     naming the factor, never a verdict on the formula.
//
// Where the footprint is not wholly known (an arbitrary-rank output no row states, a record
// whose workload the manifest lacks), a formula below what is known is still an undercount;
// above it, the two cannot be told apart, and the row is a WARN that says so.

// Floor is the footprint side of the rule for one audited row.
type Floor struct {
	// Bytes is the stored footprint of the tensors known to be touched whole, on the audited
	// side (inputs only on the read side).
	Bytes int64
	// Unknown is "" when Bytes is the whole footprint, else what it leaves out for want of a
	// shape or a manifest.
	Unknown string
	// Text says how Bytes was counted ("x 4194304 + y 4194304 = 8388608 bytes").
	Text string
}

// FloorOf is the Floor of a manifest footprint on the total or, with reads, the read side.
func FloorOf(fp manifest.Footprint, reads bool) Floor {
	f := Floor{Bytes: fp.Bytes, Text: fp.String()}
	if reads {
		f.Bytes, f.Text = fp.InputBytes, fmt.Sprintf("the inputs of %s", fp)
	}
	if len(fp.Unknown) > 0 {
		f.Unknown = fmt.Sprintf("no shape for %v", fp.Unknown)
	}
	return f
}

// Times is the Floor of n calls of one case (the cache simulation repeats a small one).
func (f Floor) Times(n int) Floor {
	if n > 1 {
		f.Bytes *= int64(n)
		f.Text = fmt.Sprintf("%d calls of %s", n, f.Text)
	}
	return f
}

// UnknownFloor is the Floor of a row whose footprint cannot be found, saying why.
func UnknownFloor(why string) Floor { return Floor{Unknown: why} }

// Judge applies the rule: measured against formula bytes, with the tensors' footprint floor,
// ε the tolerance both ways. The note says which case of the rule the verdict is, with the
// ratio; it is "" for a PASS.
func Judge(formula, measured int64, floor Floor, eps float64) (Verdict, string) {
	f, m := float64(formula), float64(measured)
	r := m / f
	switch {
	case m < f*(1-eps):
		return Fail, fmt.Sprintf("the kernel moved %.2fx the formula's bytes: the formula counts bytes it never moves (an overcount)", r)
	case m <= f*(1+eps):
		return Pass, ""
	case formula < floor.Bytes:
		return Fail, fmt.Sprintf("the kernel moved %.2fx the formula's bytes, and the formula counts less than its tensors take as stored (%s): it leaves out bytes the kernel moves (an undercount)", r, floor.Text)
	case floor.Unknown != "":
		return Warn, fmt.Sprintf("the kernel moved %.2fx the formula's bytes; the tensors' footprint is not known (%s), so an undercount cannot be told from the kernel's own extra traffic", r, floor.Unknown)
	}
	return Warn, fmt.Sprintf("the kernel moved %.2fx the formula's bytes, and the formula counts at least its tensors as stored (%s): the extra traffic is the kernel's (more than one pass over its data, or reuse that needs more cache), not the formula's", r, floor.Text)
}
