package bench

import (
	"fmt"
)

// Limits bound what a run takes on: ropgen's CPU kernels store every tensor as float32, and
// the reference check runs plain loops, so the catalog's real workloads (a 70B prefill GEMM,
// a 128256 × 8192 embedding table) are for Predict, not for this machine.
type Limits struct {
	// MaxStorage bounds the memory of a case's tensors (inputs and outputs, as the
	// instance's Storage reports it). 0: no bound.
	MaxStorage int64
	// FlopLimit bounds a case's FLOPs (its EvalRoofline count): the plain reference loop
	// that checks the kernel is far slower than the kernel, and the bound keeps that check
	// to seconds a case.
	// 0: no bound.
	FlopLimit int64
	// Quick keeps only the rows sized for the CPU (label cpu-*) within QuickMaxStorage.
	Quick bool
}

// QuickMaxStorage bounds the tensors of a quick case. It keeps the small cpu-* rows (the
// largest is a 16 MiB matrix-vector product) and leaves out the bandwidth rows (cpu-large:
// 64 MiB or more each way), whose building, reference check and slowest kernels take
// seconds each on a small machine: with them a quick run would not be quick.
const QuickMaxStorage = 32 << 20

// DefaultLimits are the limits of a full run on a workstation: 1 GiB of tensors, 2e9 FLOPs.
var DefaultLimits = Limits{MaxStorage: 1 << 30, FlopLimit: 2e9}

// Planned is a case with what a meta build (shapes, no data) says about it.
type Planned struct {
	Case
	Flops, Bytes int64  // EvalRoofline of the meta build
	Roof         string // ComputeRoof of the meta build
	Storage      int64  // memory of its tensors (Instance.Storage)
	// Shapes are the shapes the meta build bound, by tensor name, when the instance is a
	// Shaper; nil otherwise.
	Shapes map[string][]int
	// Skip says why the case is not run, or is "" when it is.
	Skip string
}

// Plan builds every case with reg as meta tensors, reads its roofline, and decides against
// lim whether to run it. A case of an op that reg has no builder for, or whose type has no
// generated EvalRoofline yet, is skipped with that reason (a new op on its way in; the ops
// and generator tests fail on it already); one that does not build or whose roofline fails
// is an error: the catalog is broken, and skipping it would hide that.
func Plan(reg Registry, cases []Case, lim Limits) ([]Planned, error) {
	out := make([]Planned, 0, len(cases))
	for _, c := range cases {
		p, err := plan(reg, c)
		if err != nil {
			return nil, err
		}
		if p.Skip == "" {
			p.Skip = lim.skip(p)
		}
		out = append(out, p)
	}
	return out, nil
}

// plan is Plan of one case, skipping only for a missing builder or generated roofline.
func plan(reg Registry, c Case) (Planned, error) {
	p := Planned{Case: c}
	if !reg.Has(c.Case.Op) {
		p.Skip = SkipNoBuilder
		return p, nil
	}
	in, err := reg.Build(c.Case, BuildOptions{Meta: true})
	if err != nil {
		return Planned{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	op, ok := in.Op().(Op)
	if !ok {
		p.Skip = SkipNotGenerated
		return p, nil
	}
	if p.Flops, p.Bytes, err = op.EvalRoofline(); err != nil {
		return Planned{}, fmt.Errorf("%s: EvalRoofline: %w", c.Name(), err)
	}
	p.Roof = op.ComputeRoof()
	p.Storage = in.Storage()
	if sh, ok := in.(Shaper); ok {
		p.Shapes = sh.Shapes()
	}
	return p, nil
}

// SkipNoBuilder is the skip reason of a case whose op is implemented in the manifest but
// has no builder in the registry yet: nothing can build it, not even its roofline.
const SkipNoBuilder = "implemented in the manifest, but the registry has no builder for it"

// SkipNotGenerated is the skip reason of a case whose op type has no generated
// EvalRoofline yet (a new op before `go generate ./...`): there are no counts to record.
const SkipNotGenerated = "its op type has no generated EvalRoofline: run go generate ./..."

// SkipNotCPU is the skip reason of a row that -quick leaves out for not being sized for the
// CPU: most of the catalog, so a run counts the rows -quick leaves out rather than listing
// them.
const SkipNotCPU = "not a cpu-* row (-quick)"

// SkipQuickLarge is the skip reason of a cpu-* row that -quick leaves out for its size (the
// bandwidth rows).
var SkipQuickLarge = fmt.Sprintf("a cpu-* row with more than %s of tensors (-quick)", mib(QuickMaxStorage))

func (lim Limits) skip(p Planned) string {
	switch {
	case lim.Quick && !IsCPUWorkload(p.Case):
		return SkipNotCPU
	case lim.Quick && p.Storage > QuickMaxStorage:
		return SkipQuickLarge
	case lim.MaxStorage > 0 && p.Storage > lim.MaxStorage:
		return fmt.Sprintf("%s of tensors, above -max-bytes %s", mib(p.Storage), mib(lim.MaxStorage))
	case lim.FlopLimit > 0 && p.Flops > lim.FlopLimit:
		return fmt.Sprintf("%.3g FLOPs, above -max-flops %.3g (the plain reference alone would take about %.0f s at 1 GFLOP/s)",
			float64(p.Flops), float64(lim.FlopLimit), float64(p.Flops)/1e9)
	}
	return ""
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
