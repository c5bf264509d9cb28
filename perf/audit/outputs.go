package audit

import (
	"fmt"
	"math"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/record"
)

// The read side needs the formula's read bytes, which no manifest field states: a formula is
// one number. They are derived as the formula's bytes minus the outputs' bytes, where the
// outputs' bytes are the sizes of the outputs the workload declares (product of the shape ×
// dtype size): the minimum-traffic rule counts every output written once, so what remains
// is what the formula counts as read. An output without a declared shape (arbitrary rank)
// has no size before the op runs, so such a row cannot be audited on the read side.

// FindCase returns the case of op for a record's workload label and dtype. The dtype is a
// record's form: a dtype name, which is the first input's dtype, or name=dtype pairs
// separated by commas, each naming a tensor's dtype; it must select exactly one case.
func FindCase(op *manifest.Op, cases []manifest.Case, workload, dtype string) (manifest.Case, error) {
	want, err := record.ParseDType(dtype, op.Inputs[0].Name)
	if err != nil {
		return manifest.Case{}, err
	}
	var found []manifest.Case
	for _, c := range cases {
		if c.Label != workload {
			continue
		}
		match := true
		for name, dt := range want {
			match = match && c.DTypes[name] == dt
		}
		if match {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return manifest.Case{}, fmt.Errorf("%s has no workload %q with dtype %q in the manifest", op.Name, workload, dtype)
	case 1:
		return found[0], nil
	}
	return manifest.Case{}, fmt.Errorf("%s workload %q: dtype %q selects %d dtype sets; name each input's dtype", op.Name, workload, dtype, len(found))
}

// DTypeLabel returns the dtype of case c in a record's form (record.DTypeLabel) among the
// cases of its row; FindCase reads it back.
func DTypeLabel(op *manifest.Op, cases []manifest.Case, c manifest.Case) string {
	inputs := make([]string, len(op.Inputs))
	for i, in := range op.Inputs {
		inputs[i] = in.Name
	}
	var row []map[string]string
	for _, o := range cases {
		if o.Label == c.Label {
			row = append(row, o.DTypes)
		}
	}
	return record.DTypeLabel(inputs, c.DTypes, row)
}

// OutputBytes returns the bytes of c's outputs from their declared shapes and dtypes.
func OutputBytes(op *manifest.Op, c manifest.Case) (int64, error) {
	var total int64
	for _, out := range op.Outputs {
		shape, ok := c.Shapes[out.Name]
		if !ok {
			return 0, fmt.Errorf("output %s of %s has no declared shape (arbitrary rank): its size is known only when the op runs", out.Name, op.Name)
		}
		n, err := manifest.TensorBytes(shape, c.DTypes[out.Name])
		if err != nil {
			return 0, fmt.Errorf("output %s of %s: %v", out.Name, op.Name, err)
		}
		if total > math.MaxInt64-n {
			return 0, fmt.Errorf("%s: output bytes overflow", op.Name)
		}
		total += n
	}
	return total, nil
}

// ManifestOutputBytes returns Options.OutputBytes over a catalog: each record's outputs'
// bytes from its op's declared output shapes for its workload and dtype.
func ManifestOutputBytes(cat *manifest.Catalog) func(record.Record) (int64, error) {
	find := caseFinder(cat)
	return func(r record.Record) (int64, error) {
		op, c, err := find(r)
		if err != nil {
			return 0, err
		}
		return OutputBytes(op, c)
	}
}

// ManifestFootprint returns Options.Footprint over a catalog: each record's tensors' stored
// footprint at the shapes its workload row states, and those work (when not nil) gives for
// the record's case; a tensor neither states (an arbitrary-rank output without a work list)
// is named unknown.
func ManifestFootprint(cat *manifest.Catalog, work WorkShapes) func(record.Record) (manifest.Footprint, error) {
	find := caseFinder(cat)
	return func(r record.Record) (manifest.Footprint, error) {
		op, c, err := find(r)
		if err != nil {
			return manifest.Footprint{}, err
		}
		return op.Footprint(c, work[RangeName(r.Op, r.Workload, r.DType)])
	}
}

// caseFinder returns the op and case of a record in cat, resolving each op's cases once.
func caseFinder(cat *manifest.Catalog) func(record.Record) (*manifest.Op, manifest.Case, error) {
	type resolved struct {
		op    *manifest.Op
		cases []manifest.Case
	}
	byOp := map[string]resolved{}
	return func(r record.Record) (*manifest.Op, manifest.Case, error) {
		res, ok := byOp[r.Op]
		if !ok && cat != nil {
			res.op = cat.Op(r.Op)
			if res.op != nil {
				// Findings in other rows do not stop this one; its own row yields no case.
				res.cases, _ = res.op.Cases()
			}
			byOp[r.Op] = res
		}
		if res.op == nil {
			return nil, manifest.Case{}, fmt.Errorf("op %s is not in the manifest", r.Op)
		}
		c, err := FindCase(res.op, res.cases, r.Workload, r.DType)
		return res.op, c, err
	}
}
