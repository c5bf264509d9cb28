// Package bench is the benchmark layer (docs/model.md §8), as a library any module that uses ropgen
// can build on: it builds each op of a catalog on each manifest workload × dtype through the
// module's Registry, checks the kernel against its plain reference, times Forward, and
// records the time with the op's own EvalRoofline (flops, bytes) and ComputeRoof, so that the
// report prices records without re-instantiating an op. It also prices the catalog's
// workloads against a device profile without running anything (Predict), A/B-tests two
// settings of one op, and runs every workload through the generated EvalRoofline (Eval).
// Package benchcmd is all of that as a command: ropbench is benchcmd.Main over ropgen's own
// catalog, and a module's own benchmark command is one line of main.
//
// Nothing in this package counts FLOPs or bytes: every count comes from an op's generated
// EvalRoofline (a test scans the sources for local counting). It never imports ropgen's op
// catalog (package ops): the import-rule test keeps it so.
package bench

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/record"
)

// Case is one op × workload × dtype of the catalog.
type Case struct {
	Op   *manifest.Op
	Case manifest.Case
	// DType is the record's dtype label: the first input's dtype when that names the case
	// among its workload's dtypes, else name=dtype pairs ("q=bfloat16,k=float8_e4m3").
	DType string
}

// Name is op/workload/dtype, the row's identity in records and messages.
func (c Case) Name() string { return c.Case.Op + "/" + c.Case.Label + "/" + c.DType }

// Load validates the manifests at paths (files or directories) as mc says (manifest.Load)
// and returns the implemented ops and every case of theirs, in catalog order. Any finding is
// an error: a benchmark of a catalog that does not validate would time workloads nobody
// agreed on. An implemented op that the registry has no builder for is kept: Plan skips its
// cases and says so.
func Load(mc manifest.Config, paths ...string) ([]*manifest.Op, []Case, error) {
	cat, fs := mc.Load(paths...)
	if len(fs) > 0 {
		return nil, nil, fs
	}
	var impl []*manifest.Op
	var out []Case
	for _, op := range cat.Ops {
		if !op.Implemented() {
			continue
		}
		cases, fs := op.Cases()
		if len(fs) > 0 {
			return nil, nil, fs
		}
		impl = append(impl, op)
		out = append(out, label(op, cases)...)
	}
	return impl, out, nil
}

// FindOp returns the op named name among ops, or an error naming the ones there are.
func FindOp(ops []*manifest.Op, name string) (*manifest.Op, error) {
	names := make([]string, len(ops))
	for i, op := range ops {
		if op.Name == name {
			return op, nil
		}
		names[i] = op.Name
	}
	return nil, fmt.Errorf("no implemented op %q in the catalog (have: %s)", name, strings.Join(names, ", "))
}

// label wraps the cases of op with their record dtype labels (record.DTypeLabel).
func label(op *manifest.Op, cases []manifest.Case) []Case {
	inputs := make([]string, len(op.Inputs))
	for i, in := range op.Inputs {
		inputs[i] = in.Name
	}
	rows := map[string][]map[string]string{}
	for _, c := range cases {
		rows[c.Label] = append(rows[c.Label], c.DTypes)
	}
	out := make([]Case, len(cases))
	for i, c := range cases {
		out[i] = Case{Op: op, Case: c, DType: record.DTypeLabel(inputs, c.DTypes, rows[c.Label])}
	}
	return out
}

// Filter selects cases by regular expressions on the op name, the workload label and the
// dtype label; a nil expression selects everything. The commands compile the op expression
// anchored at both ends (see FullMatch), so that -op GemmFwd is GemmFwd alone.
type Filter struct {
	Op, Workload, DType *regexp.Regexp
}

// Match reports whether c passes every expression of f.
func (f Filter) Match(c Case) bool {
	return matches(f.Op, c.Case.Op) && matches(f.Workload, c.Case.Label) && matches(f.DType, c.DType)
}

func matches(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

// FullMatch compiles expr so that it must match a whole name: op names are identifiers, and
// GemmFwd should not also select BatchedGemmFwd. An empty expr selects everything (nil).
func FullMatch(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + expr + ")$")
}

// Select returns the cases f matches.
func (f Filter) Select(cases []Case) []Case {
	var out []Case
	for _, c := range cases {
		if f.Match(c) {
			out = append(out, c)
		}
	}
	return out
}

// CPULabelPrefix starts the label of every workload the manifests size for the CPU kernels
// (docs/format.md): the quick subset is drawn from these rows.
const CPULabelPrefix = "cpu-"

// IsCPUWorkload reports whether c is one of the rows sized for the CPU.
func IsCPUWorkload(c Case) bool { return strings.HasPrefix(c.Case.Label, CPULabelPrefix) }
