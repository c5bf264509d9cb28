package gen

import (
	"fmt"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
)

// vectorRoofs maps a dtype to the profile key of the vector unit that computes it, for the
// default ComputeRoof (docs/binding.md). fp8 has no arithmetic of its own: both formats
// convert exactly to fp16, so an optimal kernel computes them at the fp16 roof. A dtype not
// listed (int16, int32, int64, bool, a module's own) has no vector unit of its own in any
// profile and is priced at vector.fp32, the pipes that compute it when nothing else does.
var vectorRoofs = map[string]string{
	"float64":       "vector.fp64",
	"float32":       "vector.fp32",
	"bfloat16":      "vector.bf16",
	"float16":       "vector.fp16",
	"float8_e4m3":   "vector.fp16",
	"float8_e4m3fn": "vector.fp16",
	"float8_e5m2":   "vector.fp16",
	"int8":          "vector.int8",
	"uint8":         "vector.int8",
}

// fallbackRoof prices a dtype vectorRoofs does not list, and a dtype name the op's DType
// does not spell as the manifest does.
const fallbackRoof = "vector.fp32"

func vectorRoof(dtype string) string {
	if k, ok := vectorRoofs[dtype]; ok {
		return k
	}
	return fallbackRoof
}

// roofPlan is how an op's generated ComputeRoof picks its key: the roof of the one dtype the
// op's FLOPs can be done in, or, when its dtypes take different roofs, the roof of the dtype
// its DType field holds at run time, told apart by DType's String (the manifest's name) or,
// when DType has none, by its Size.
type roofPlan struct {
	tensor string   // the tensor whose dtype prices the FLOPs (the one elem_bytes reads)
	dtypes []string // its dtype union, in manifest order
	by     string   // "": one key; "String" or "Size": a switch on op.DType's method
}

// flopTensor returns the tensor whose dtype the op's FLOPs are done in, as elem_bytes
// defines it (docs/format.md): the first input, else the first output, with a same_as
// followed to the input it names; and that tensor's dtype union.
func flopTensor(op *manifest.Op) (string, []string) {
	var t *manifest.Tensor
	switch {
	case len(op.Inputs) > 0:
		t = op.Inputs[0]
	case len(op.Outputs) > 0:
		t = op.Outputs[0]
	default:
		return "", nil
	}
	name := t.Name
	src := strings.TrimSpace(t.DType.Value)
	if rest, ok := strings.CutPrefix(src, "same_as("); ok {
		if in := op.Input(strings.TrimSpace(strings.TrimSuffix(rest, ")"))); in != nil {
			src = strings.TrimSpace(in.DType.Value)
		}
	}
	var union []string
	for tok := range strings.SplitSeq(src, "|") {
		union = append(union, strings.TrimSpace(tok))
	}
	return name, union
}

// keys returns the distinct roof keys of the plan's dtypes, sorted.
func (p *roofPlan) keys() []string {
	var ks []string
	for _, d := range p.dtypes {
		ks = append(ks, vectorRoof(d))
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// defaultRoof plans op's generated ComputeRoof. Without a binding (b nil) a switch is on
// String, the documented spelling. An op whose dtypes take
// different roofs and whose DType cannot tell them apart is a finding: guessing would price
// some of its rows on the wrong unit.
func (b *Binding) defaultRoof(op *manifest.Op) (*roofPlan, diag.Findings) {
	p := &roofPlan{}
	p.tensor, p.dtypes = flopTensor(op)
	keys := p.keys()
	if len(keys) < 2 {
		return p, nil
	}
	if b == nil {
		p.by = "String"
		return p, nil
	}
	fail := func(format string, args ...any) (*roofPlan, diag.Findings) {
		why := fmt.Sprintf("%s's dtypes (%s) are priced on different units (%s); ", p.tensor, strings.Join(p.dtypes, " | "), strings.Join(keys, ", "))
		return nil, diag.Findings{{Pos: op.Pos, Op: op.Name, Field: "signature", Msg: why + fmt.Sprintf(format, args...) + ", or declare ComputeRoof by hand (docs/binding.md)"}}
	}
	var v *types.Var
	if obj, _ := b.Ops.Scope().Lookup(op.Name).(*types.TypeName); obj != nil {
		v, _ = lookup(types.NewPointer(obj.Type()), b.Ops, "DType").(*types.Var)
	}
	if v == nil || !v.IsField() {
		return fail("the generated ComputeRoof reads the field DType, which %s lacks: add it", op.Name)
	}
	if hasMethod(v.Type(), b.Ops, "String", types.Typ[types.String]) {
		p.by = "String"
		return p, nil
	}
	bySize := map[int]string{}
	for _, d := range p.dtypes {
		spec, _ := manifest.LookupDType(d)
		if k, seen := bySize[spec.Size]; seen && k != vectorRoof(d) {
			return fail("%s.DType (%s) has no String() string method to tell %d-byte dtypes apart: add one that returns the manifest's dtype name", op.Name, v.Type(), spec.Size)
		}
		bySize[spec.Size] = vectorRoof(d)
	}
	if !hasMethod(v.Type(), b.Ops, "Size", types.Typ[types.Int]) {
		return fail("%s.DType (%s) has neither String() string nor Size() int to tell them apart: add String, returning the manifest's dtype name", op.Name, v.Type())
	}
	p.by = "Size"
	return p, nil
}

// hasMethod reports whether t has a method name of type func() result.
func hasMethod(t types.Type, pkg *types.Package, name string, result types.Type) bool {
	f, _ := lookup(t, pkg, name).(*types.Func)
	if f == nil {
		return false
	}
	sig := f.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), result)
}

// emitComputeRoof writes the default ComputeRoof of op name by plan p.
func emitComputeRoof(g *source, name string, p *roofPlan) {
	g.p()
	keys := p.keys()
	if p.by == "" {
		key := fallbackRoof
		if len(keys) == 1 {
			key = keys[0]
		}
		g.p("// ComputeRoof returns the profile key of the unit that prices ", name, "'s FLOPs:")
		g.p("// by default the vector unit of ", p.tensor, "'s dtype (", strings.Join(p.dtypes, " | "), ").")
		g.p("// Declare ComputeRoof by hand to override it.")
		g.p("func (op *", name, ") ComputeRoof() string { return ", fmt.Sprintf("%q", key), " }")
		return
	}
	g.p("// ComputeRoof returns the profile key of the unit that prices ", name, "'s FLOPs:")
	g.p("// by default the vector unit of ", p.tensor, "'s dtype, told by DType.", p.by, "(); a dtype")
	g.p("// not listed is priced at ", fallbackRoof, ". Declare ComputeRoof by hand to override it.")
	if p.by == "String" {
		g.p("func (op *", name, ") ComputeRoof() string { return ", roofByName, "(op.DType.String()) }")
		return
	}
	g.p("func (op *", name, ") ComputeRoof() string {")
	g.p("switch op.DType.Size() {")
	sizes := map[int]string{}
	for _, d := range p.dtypes {
		spec, _ := manifest.LookupDType(d)
		sizes[spec.Size] = vectorRoof(d)
	}
	for _, s := range slices.Sorted(maps.Keys(sizes)) {
		if k := sizes[s]; k != fallbackRoof {
			g.p("case ", s, ":")
			g.p("return ", fmt.Sprintf("%q", k))
		}
	}
	g.p("}")
	g.p("return ", fmt.Sprintf("%q", fallbackRoof))
	g.p("}")
}

// roofByName is the generated function that maps a dtype's manifest name to its vector roof,
// emitted once (emitRoofByName) for the ops whose ComputeRoof reads DType.String.
const roofByName = "rooflineVectorRoof"

// emitRoofByName writes roofByName when some plan switches on String.
func emitRoofByName(g *source, roofs map[string]*roofPlan) {
	if !slices.ContainsFunc(slices.Collect(maps.Values(roofs)), func(p *roofPlan) bool { return p != nil && p.by == "String" }) {
		return
	}
	g.p()
	g.p("// ", roofByName, " returns the profile key of the vector unit that computes dtype, by its")
	g.p("// manifest name (docs/binding.md); a name not listed is priced at ", fallbackRoof, ".")
	g.p("func ", roofByName, "(dtype string) string {")
	g.p("switch dtype {")
	byKey := map[string][]string{}
	for d, k := range vectorRoofs {
		if k != fallbackRoof {
			byKey[k] = append(byKey[k], fmt.Sprintf("%q", d))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		slices.Sort(byKey[k])
		g.p("case ", strings.Join(byKey[k], ", "), ":")
		g.p("return ", fmt.Sprintf("%q", k))
	}
	g.p("}")
	g.p("return ", fmt.Sprintf("%q", fallbackRoof))
	g.p("}")
}
