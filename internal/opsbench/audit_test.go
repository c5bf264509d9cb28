package opsbench

import (
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

// The structural oracle (docs/model.md §10), its completeness test, the FLOP-consistency test of
// the elementwise and reduction families, and a walk of every formula over the catalog.
// Every op is built through the registry as meta tensors: shapes and dtypes, no data, so the
// real LLM shapes cost nothing.

// oracleAudited are the ops whose bytes the structural oracle recomputes on every workload
// × dtype of their manifest entry.
var oracleAudited = []string{
	"ReluFwd", "LeakyReluFwd", "ClampFwd", "ExpFwd", "TanhFwd", "SigmoidFwd", "SiluFwd", "GeluFwd",
	"AddFwd", "SubFwd", "MulFwd", "DivFwd",
	"SumFwd", "MeanFwd", "AmaxFwd", "SoftmaxFwd", "LogSoftmaxFwd", "CumsumFwd",
	"RMSNormFwd", "LayerNormFwd", "RopeFwd", "FusedAddRMSNormFwd",
	"GemmFwd", "BatchedGemmFwd", "LinearFwd", "Conv2dFwd", "AvgPool2dFwd", "MaxPool2dFwd", "AttentionFwd",
	"AdaptiveAvgPool2dFwd", "AdaptiveMaxPool2dFwd",
	"GroupedGemmFwd", "Fp8BlockScaledGemmFwd",
	"CopyFwd", "TransposeFwd", "ConcatFwd", "PadFwd",
	"GeluErfFwd", "SoftplusFwd", "MishFwd", "EluFwd", "HardswishFwd",
	"LogsumexpFwd", "VarFwd", "TopKFwd", "MoeTopKGatingFwd",
}

// oracleExempt are the ops whose traffic depends on tensor contents, with the reason: those
// whose signature marks a tensor partial (manifest.Tensor.Partial), which leaves it out of the
// footprint floor too (bench.Undercount). The manifest is the one place that says so; the
// bytes audit (docs/audit.md) covers these ops instead.
func oracleExempt(ops map[string]*manifest.Op) map[string]string {
	out := map[string]string{}
	for name, op := range ops {
		for _, t := range append(slices.Clone(op.Inputs), op.Outputs...) {
			if t.Partial != nil {
				out[name] += t.Name + ": " + t.Partial.Value + "; "
			}
		}
	}
	return out
}

// oraclePending are implemented ops not yet classified, with what is missing. Target: empty.
var oraclePending = map[string]string{}

// oracleBytes is the oracle's independent count: the storage of each distinct input once
// (two inputs bound to one tensor count once) and of each output once, at the tensors' own
// shapes and dtypes.
func oracleBytes(in *ops.Instance) int64 {
	var seen []*ops.Tensor
	var n int64
	for _, a := range in.Inputs {
		if !slices.Contains(seen, a.T) {
			seen = append(seen, a.T)
			n += a.T.Bytes()
		}
	}
	for _, a := range in.Outputs {
		n += a.T.Bytes()
	}
	return n
}

// implementedCases resolves the catalog's implemented entries to their cases.
func implementedCases(t *testing.T) (map[string]*manifest.Op, map[string][]manifest.Case) {
	t.Helper()
	cat, cases := catalog(t)
	ops := map[string]*manifest.Op{}
	for _, op := range cat.Ops {
		if op.Implemented() {
			ops[op.Name] = op
		}
	}
	return ops, cases
}

// buildMeta builds c as meta tensors and returns the instance and its op as an Op.
func buildMeta(t *testing.T, c manifest.Case) (*ops.Instance, ops.Op, bool) {
	t.Helper()
	in, err := Build(c, bench.BuildOptions{Meta: true})
	if err != nil {
		t.Errorf("%v", err)
		return nil, nil, false
	}
	op, ok := in.Op.(ops.Op)
	if !ok {
		t.Errorf("%s: %T has no EvalRoofline/ComputeRoof: run go generate ./...", c.Op, in.Op)
	}
	return in, op, ok
}

func caseName(c manifest.Case) string {
	dts := make([]string, 0, len(c.DTypes))
	for k, v := range c.DTypes {
		dts = append(dts, k+"="+v)
	}
	slices.Sort(dts)
	return c.Op + " " + c.Label + " [" + strings.Join(dts, ",") + "]"
}

func TestStructuralOracle(t *testing.T) {
	_, cases := implementedCases(t)
	for _, name := range oracleAudited {
		if len(cases[name]) == 0 {
			t.Errorf("%s is audited but has no workloads to audit", name)
		}
		for _, c := range cases[name] {
			in, op, ok := buildMeta(t, c)
			if !ok {
				continue
			}
			_, bytes, err := op.EvalRoofline()
			if err != nil {
				t.Errorf("%s: EvalRoofline: %v", caseName(c), err)
				continue
			}
			if want := oracleBytes(in); bytes != want {
				t.Errorf("%s: EvalRoofline bytes = %d, the bound tensors hold %d (%+d)", caseName(c), bytes, want, bytes-want)
			}
		}
	}
}

// TestOracleBytes: the oracle counts a tensor bound to two inputs once, a broadcast input at
// its own size, and outputs at their dtype.
func TestOracleBytes(t *testing.T) {
	x := &ops.Tensor{Shape: []int{4096}, DType: ops.BFloat16}
	y := &ops.Tensor{Shape: []int{8, 4096}, DType: ops.Float32}
	in := &ops.Instance{Inputs: []ops.Arg{{Name: "a", T: x}, {Name: "b", T: x}}, Outputs: []ops.Arg{{Name: "y", T: y}}}
	if got, want := oracleBytes(in), int64(4096*2+8*4096*4); got != want {
		t.Errorf("oracleBytes = %d, want %d", got, want)
	}
}

// TestAuditCompleteness keeps the classification total: every implemented op is audited,
// exempt with a reason, or pending, exactly once, and every classified name is an
// implemented op. A new entry fails here until it is classified.
func TestAuditCompleteness(t *testing.T) {
	ops, _ := implementedCases(t)
	class := map[string][]string{}
	for _, name := range oracleAudited {
		class[name] = append(class[name], "audited")
	}
	for name, why := range oracleExempt(ops) {
		class[name] = append(class[name], "exempt")
		if strings.TrimSpace(why) == "" {
			t.Errorf("%s is exempt without a reason", name)
		}
	}
	for name, why := range oraclePending {
		class[name] = append(class[name], "pending")
		if strings.TrimSpace(why) == "" {
			t.Errorf("%s is pending without saying what is missing", name)
		}
	}
	for name := range ops {
		switch cl := class[name]; len(cl) {
		case 0:
			t.Errorf("%s is implemented but unclassified: add it to oracleAudited in internal/opsbench/audit_test.go (or mark the tensor it touches only in part partial: \"why\" in its manifest)", name)
		case 1:
		default:
			t.Errorf("%s is classified %d times: %v", name, len(cl), cl)
		}
	}
	for name := range class {
		if ops[name] == nil {
			t.Errorf("%s is classified but is not an implemented manifest entry", name)
		}
	}
	if len(oraclePending) > 0 {
		t.Logf("pending: %d ops still to audit", len(oraclePending))
	}
}

// flopRule is an op's FLOP count per docs/model.md §2.1, written here from the convention, not
// copied from the manifest: flops = PerElem·E + PerRow·R + Σ Optional[in]·E over present optional
// inputs, where E is the element count of the output ("out") or of input x ("in"), and R the number
// of lines reduced (for a reduction, its output elements; along a dim, E divided by that dim; for a
// norm, E divided by product(normalized_shape)).
type flopRule struct {
	basis    string // "out" or "in"
	perElem  int64
	perRow   int64
	rows     string // "", "out", "dim" or "normalized"
	optional map[string]int64
}

var flopRules = map[string]flopRule{
	"ReluFwd":       {basis: "out", perElem: 1},                         // compare-select
	"LeakyReluFwd":  {basis: "out", perElem: 2},                         // compare-select + mul
	"ClampFwd":      {basis: "out", perElem: 1},                         // a one- or two-bound clamp
	"ExpFwd":        {basis: "out", perElem: 1},                         // transcendental
	"TanhFwd":       {basis: "out", perElem: 1},                         // transcendental
	"SigmoidFwd":    {basis: "out", perElem: 4},                         // neg, exp, add, recip
	"SiluFwd":       {basis: "out", perElem: 5},                         // sigmoid + mul
	"GeluFwd":       {basis: "out", perElem: 8},                         // 5 mul, 2 add, tanh
	"AddFwd":        {basis: "out", perElem: 1},                         // per broadcast output element
	"SubFwd":        {basis: "out", perElem: 1},                         //
	"MulFwd":        {basis: "out", perElem: 1},                         //
	"DivFwd":        {basis: "out", perElem: 1},                         //
	"SumFwd":        {basis: "in", perElem: 1, perRow: -1, rows: "out"}, // N-1 adds per output
	"MeanFwd":       {basis: "in", perElem: 1},                          // N-1 adds + 1 divide
	"AmaxFwd":       {basis: "in", perElem: 1, perRow: -1, rows: "out"}, // N-1 compare-selects
	"SoftmaxFwd":    {basis: "in", perElem: 5, perRow: -2, rows: "dim"}, // max, sub, exp, sum, div
	"LogSoftmaxFwd": {basis: "in", perElem: 5},                          // max, sub, exp, sum, sub; log + add per row cancel the -2
	"CumsumFwd":     {basis: "in", perElem: 1, perRow: -1, rows: "dim"}, // N-1 adds per line
	"RMSNormFwd":    {basis: "in", perElem: 3, perRow: 2, rows: "normalized", optional: map[string]int64{"weight": 1}},
	"LayerNormFwd":  {basis: "in", perElem: 5, perRow: 2, rows: "normalized", optional: map[string]int64{"weight": 1, "bias": 1}},
	"RopeFwd":       {basis: "out", perElem: 3}, // 2 mul + 1 add
	// the add, then rms_norm with a weight: square, sum, scale, weight; mean, add eps,
	// rsqrt per row less the sum's missing add
	"FusedAddRMSNormFwd": {basis: "in", perElem: 5, perRow: 2, rows: "last"},
	"CopyFwd":            {basis: "out", perElem: 0}, // moves data only
	"TransposeFwd":       {basis: "out", perElem: 0},
	"ConcatFwd":          {basis: "out", perElem: 0},
	"PadFwd":             {basis: "out", perElem: 0}, // writing the pad value is no arithmetic
	"GeluErfFwd":         {basis: "out", perElem: 5}, // x/sqrt2, erf, +1, 0.5*x, mul
	"SoftplusFwd":        {basis: "out", perElem: 3}, // threshold select, exp, log1p
	"MishFwd":            {basis: "out", perElem: 4}, // exp, log1p, tanh, mul
	"EluFwd":             {basis: "out", perElem: 4}, // exp, -1, *alpha, select
	"HardswishFwd":       {basis: "out", perElem: 4}, // +3, clamp, mul, /6
	"LogsumexpFwd":       {basis: "in", perElem: 4},  // max, sub, exp, sum; log + add per line cancel the -2
	"VarFwd":             {basis: "in", perElem: 4},  // mean (N-1 adds, 1 divide), center, square, sum, divide
	"TopKFwd":            {basis: "in", perElem: 1},  // the threshold test of each element
}

// flopFamilies are the families whose every implemented op must have a flopRule.
var flopFamilies = []string{"elementwise", "reduction", "softmax", "scan", "norm", "rope", "layout", "activation", "statistics"}

// expect returns the rule's count for the instance; every "in" op has an input named x.
func (r flopRule) expect(c manifest.Case, in *ops.Instance) int64 {
	var x *ops.Tensor
	for _, a := range in.Inputs {
		if a.Name == "x" {
			x = a.T
		}
	}
	e := int64(in.Outputs[0].T.Numel())
	if r.basis == "in" {
		e = int64(x.Numel())
	}
	var rows int64
	switch r.rows {
	case "out":
		rows = int64(in.Outputs[0].T.Numel())
	case "dim":
		d, _ := c.Params["dim"].(int)
		if d < 0 {
			d += len(x.Shape)
		}
		rows = e / int64(x.Shape[d])
	case "normalized":
		ns, _ := c.Params["normalized_shape"].([]int)
		rows = e
		for _, d := range ns {
			rows /= int64(d)
		}
	case "last":
		rows = e / int64(x.Shape[len(x.Shape)-1])
	}
	want := r.perElem*e + r.perRow*rows
	for _, a := range in.Inputs {
		want += r.optional[a.Name] * e
	}
	return want
}

func TestFlopConsistency(t *testing.T) {
	ops, cases := implementedCases(t)
	for name, op := range ops {
		if _, ok := flopRules[name]; !ok && slices.Contains(flopFamilies, op.Family.Value) {
			t.Errorf("%s (family %s) has no flopRule in ops/audit_test.go: write its per-element count from docs/model.md §2.1", name, op.Family.Value)
		}
	}
	for name, rule := range flopRules {
		if ops[name] == nil {
			t.Errorf("flopRules names %s, which is not an implemented entry", name)
		}
		for _, c := range cases[name] {
			in, op, ok := buildMeta(t, c)
			if !ok {
				continue
			}
			flops, _, err := op.EvalRoofline()
			if err != nil {
				t.Errorf("%s: EvalRoofline: %v", caseName(c), err)
				continue
			}
			if want := rule.expect(c, in); flops != want {
				t.Errorf("%s: EvalRoofline flops = %d, the per-element rule gives %d", caseName(c), flops, want)
			}
		}
	}
}

// zeroFlops are the ops that do no arithmetic, with the reason.
var zeroFlops = map[string]string{
	"EmbeddingFwd": "a gather only moves data",
	"CopyFwd":      "a copy only moves data",
	"TransposeFwd": "a permutation only moves data",
	"ConcatFwd":    "a concatenation only moves data",
	"PadFwd":       "moves data and writes a constant",
}

// TestEvalRooflineEverywhere walks every implemented entry × workload × dtype through its
// generated EvalRoofline: no error, positive bytes, positive FLOPs (zero only for ops that
// do no arithmetic), and a compute roof of the form unit.dtype.
func TestEvalRooflineEverywhere(t *testing.T) {
	_, cases := implementedCases(t)
	for name, cs := range cases {
		for _, c := range cs {
			_, op, ok := buildMeta(t, c)
			if !ok {
				continue
			}
			flops, bytes, err := op.EvalRoofline()
			switch {
			case err != nil:
				t.Errorf("%s: %v", caseName(c), err)
			case bytes <= 0:
				t.Errorf("%s: bytes = %d", caseName(c), bytes)
			case flops < 0, flops == 0 && zeroFlops[name] == "":
				t.Errorf("%s: flops = %d", caseName(c), flops)
			case flops > 0 && zeroFlops[name] != "":
				t.Errorf("%s: flops = %d, but it is listed in zeroFlops (%s)", caseName(c), flops, zeroFlops[name])
			}
			if unit, dt, ok := strings.Cut(op.ComputeRoof(), "."); !ok || unit == "" || dt == "" {
				t.Errorf("%s: ComputeRoof() = %q, want unit.dtype", caseName(c), op.ComputeRoof())
			}
		}
	}
}

// TestEvalRooflineUnbound: an arbitrary-rank op whose shapes are not bound yet refuses to
// count, naming the op and the input, in inline mode and in func mode alike.
func TestEvalRooflineUnbound(t *testing.T) {
	softmax, _ := ops.NewSoftmaxFwd(-1, ops.Float32)
	sum, _ := ops.NewSumFwd([]int{0}, false, ops.Float32)
	add, _ := ops.NewAddFwd(ops.Float32)
	for _, c := range []struct {
		op          ops.Op
		name, input string
	}{{softmax, "SoftmaxFwd", "x"}, {sum, "SumFwd", "x"}, {add, "AddFwd", "a"}} {
		_, _, err := c.op.EvalRoofline()
		if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.input) {
			t.Errorf("%s before Bind: err = %v, want an error naming the op and input %s", c.name, err, c.input)
		}
	}
}
