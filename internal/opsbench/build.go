package opsbench

import (
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

// builder builds the Instance of one op from a case, with the op's constructor.
type builder func(b *caseBuilder) (*ops.Instance, error)

// Registered returns the names of every op Build can build, sorted.
func Registered() []string {
	names := make([]string, 0, len(builders))
	for name := range builders {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Build constructs the op of c with its constructor (which validates the params and
// dtypes), makes its inputs (random data from opt.Seed, or meta tensors), binds the op's
// shapes and allocates its outputs.
func Build(c manifest.Case, opt bench.BuildOptions) (*ops.Instance, error) {
	build, ok := builders[c.Op]
	if !ok {
		return nil, fmt.Errorf("op %s has no Go implementation registered in package ops", c.Op)
	}
	b := &caseBuilder{c: c, opt: opt}
	in, err := build(b)
	if err == nil {
		err = b.err
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", c.Op, c.Label, err)
	}
	in.Name = c.Op + " " + c.Label
	return in, nil
}

// caseBuilder reads a case's params, dtypes and shapes for a builder and makes its tensors.
// Accessors record the first error in err and return a zero value, so a builder reads all
// it needs and checks err once before calling the constructor.
type caseBuilder struct {
	c   manifest.Case
	opt bench.BuildOptions
	err error
}

func (b *caseBuilder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// param returns the param named name as a T.
func param[T any](b *caseBuilder, name string) T {
	var zero T
	v, ok := b.c.Params[name]
	if !ok {
		b.fail("param %s missing from the case", name)
		return zero
	}
	t, ok := v.(T)
	if !ok {
		b.fail("param %s is %T, want %T", name, v, zero)
	}
	return t
}

func (b *caseBuilder) int(name string) int       { return param[int](b, name) }
func (b *caseBuilder) ints(name string) []int    { return param[[]int](b, name) }
func (b *caseBuilder) bool(name string) bool     { return param[bool](b, name) }
func (b *caseBuilder) float(name string) float64 { return param[float64](b, name) }

// optFloat returns a nullable float64 param (*float64 in the manifest): nil when null.
func (b *caseBuilder) optFloat(name string) *float64 {
	if v, ok := b.c.Params[name]; ok && v == nil {
		return nil
	}
	f := b.float(name)
	return &f
}

// optInt returns a nullable int param (*int in the manifest): nil when null.
func (b *caseBuilder) optInt(name string) *int {
	if v, ok := b.c.Params[name]; ok && v == nil {
		return nil
	}
	i := b.int(name)
	return &i
}

// pair reads a [h, w] param.
func (b *caseBuilder) pair(name string) [2]int {
	v := b.ints(name)
	if b.err == nil && len(v) != 2 {
		b.fail("param %s is %v; it must be a pair [h, w]", name, v)
	}
	if len(v) != 2 {
		return [2]int{}
	}
	return [2]int(v)
}

// dim returns a dim of the case's fixed-rank shapes.
func (b *caseBuilder) dim(name string) int {
	v, ok := b.c.Dims[name]
	if !ok {
		b.fail("dim %s missing from the case", name)
	}
	return v
}

// dtype returns the dtype of the tensor (input or output) named name.
func (b *caseBuilder) dtype(name string) ops.DType {
	s, ok := b.c.DTypes[name]
	if !ok {
		b.fail("no dtype for tensor %s in the case", name)
		return ops.Invalid
	}
	dt, err := ops.ParseDType(s)
	if err != nil {
		b.fail("tensor %s: %v", name, err)
	}
	return dt
}

// has reports whether the case binds the (optional) input named name.
func (b *caseBuilder) has(name string) bool {
	_, ok := b.c.Shapes[name]
	return ok
}

// tensor makes the input named name with the case's shape and dtype, or a meta tensor.
// It returns nil, recording no error, for an absent optional input.
func (b *caseBuilder) tensor(name string) *ops.Tensor {
	shape, ok := b.c.Shapes[name]
	if !ok {
		return nil
	}
	dt := b.dtype(name)
	if b.err != nil {
		return nil
	}
	mk := ops.NewTensor
	if b.opt.Meta {
		mk = ops.NewMeta
	}
	t, err := mk(dt, shape...)
	if err != nil {
		b.fail("input %s: %v", name, err)
	}
	return t
}

// seed derives the seed of one input from the options, the case and the input's name.
func (b *caseBuilder) seed(name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", b.c.Op, b.c.Label, name)
	return h.Sum64() ^ b.opt.Seed
}

// input makes the input named name filled with values uniform in [-1, 1): the range of
// activations and weights after normalization, where float32 kernels and references agree
// to a few ulps. Nil for an absent optional input.
func (b *caseBuilder) input(name string) *ops.Tensor {
	t := b.tensor(name)
	if t != nil && !t.IsMeta() {
		if err := ops.FillUniform(t, b.seed(name), -1, 1); err != nil {
			b.fail("input %s: %v", name, err)
		}
	}
	return t
}

// indices makes the input named name filled with integers in [0, n): ids into a table of n
// rows.
func (b *caseBuilder) indices(name string, n int) *ops.Tensor {
	t := b.tensor(name)
	if t != nil && !t.IsMeta() {
		if err := ops.FillInts(t, b.seed(name), n); err != nil {
			b.fail("input %s: %v", name, err)
		}
	}
	return t
}

// output allocates the output named name with the shape the op's Bind returned and the
// case's dtype for it. When the manifest declares the output's shape, the op must agree.
func (b *caseBuilder) output(name string, shape []int) *ops.Tensor {
	dt := b.dtype(name)
	if b.err != nil {
		return nil
	}
	if want, ok := b.c.Shapes[name]; ok && !slices.Equal(want, shape) {
		b.fail("output %s: the op computes shape %v, the manifest declares %v", name, shape, want)
		return nil
	}
	mk := ops.NewTensor
	if b.opt.Meta {
		mk = ops.NewMeta
	}
	t, err := mk(dt, shape...)
	if err != nil {
		b.fail("output %s: %v", name, err)
	}
	return t
}

// present drops absent (nil) optional inputs, as Instance.Inputs wants.
func present(args ...ops.Arg) []ops.Arg {
	return slices.DeleteFunc(args, func(a ops.Arg) bool { return a.T == nil })
}
