package ops

import (
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/ropgen/ropgen/manifest"
)

// Arg is one named input or output of an Instance.
type Arg struct {
	Name string
	T    *Tensor
}

// Instance is one op built for one manifest.Case: the op value, its inputs, its outputs, and
// the two ways of computing the outputs. The benchmark layer times Run; tests and the
// benchmark layer compare Run with Reference first (Check); the structural oracle reads the
// tensors' sizes.
type Instance struct {
	Case manifest.Case
	// Op is the op value, e.g. *SoftmaxFwd. Its shapes are bound already (Build calls the
	// op's Bind), so EvalRoofline works on it, also on a meta instance. It satisfies Op once
	// zz_roofline.go is generated.
	Op any
	// Inputs are the present inputs in signature order (an absent optional input is left
	// out). Every input is its own storage.
	Inputs []Arg
	// Outputs are the outputs in signature order, shaped by the op.
	Outputs []Arg
	// Run calls the op's Forward over Inputs, writing Outputs.
	Run func() error
	// Reference computes the outputs with the op's plain reference implementation into outs,
	// which are shaped as Outputs.
	Reference func(outs []*Tensor) error
	// Tol is how far Run's outputs may be from Reference's (see Check).
	Tol Tol
}

// Check runs the kernel and the reference and compares every output within the instance's
// tolerance: a fast wrong kernel is no kernel.
func (in *Instance) Check() error {
	if err := in.Run(); err != nil {
		return err
	}
	want := make([]*Tensor, len(in.Outputs))
	for i, o := range in.Outputs {
		t, err := NewTensor(o.T.DType, o.T.Shape...)
		if err != nil {
			return err
		}
		want[i] = t
	}
	if err := in.Reference(want); err != nil {
		return fmt.Errorf("%s: reference: %w", in.Case.Op, err)
	}
	for i, o := range in.Outputs {
		if err := Compare(o.T, want[i], in.Tol); err != nil {
			return fmt.Errorf("%s %s: output %s: kernel vs reference: %w", in.Case.Op, in.Case.Label, o.Name, err)
		}
	}
	return nil
}

// BuildOptions says how Build makes the inputs.
type BuildOptions struct {
	// Seed is mixed with the op name, the workload label and the input name to seed each
	// input's random data, so inputs differ from each other and are reproducible.
	Seed uint64
	// Meta builds meta tensors (shape and dtype, no data): enough to bind the op's shapes
	// and call EvalRoofline on workloads too large for the CPU, but Run and Check refuse it.
	Meta bool
}

// builder builds an Instance from a case; kernel files register one per op in init.
type builder func(b *caseBuilder) (*Instance, error)

var registry = map[string]builder{}

// register adds the builder of the op named name (its manifest name and Go type name).
func register(name string, build builder) {
	if _, dup := registry[name]; dup {
		panic("ops: op " + name + " registered twice")
	}
	registry[name] = build
}

// Registered returns the names of every op Build can build, sorted.
func Registered() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Build constructs the op of c with its constructor (which validates the params and
// dtypes), makes its inputs (random data from opt.Seed, or meta tensors), binds the op's
// shapes and allocates its outputs.
func Build(c manifest.Case, opt BuildOptions) (*Instance, error) {
	build, ok := registry[c.Op]
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
	in.Case = c
	return in, nil
}

// caseBuilder reads a case's params, dtypes and shapes for a builder and makes its tensors.
// Accessors record the first error in err and return a zero value, so a builder reads all
// it needs and checks err once before calling the constructor.
type caseBuilder struct {
	c   manifest.Case
	opt BuildOptions
	err error
}

// xyOp is an op with one input x and one output y: most of the catalog.
type xyOp interface {
	Bind(x *Tensor) ([]int, error)
	Forward(out, x *Tensor) error
}

// xyInstance finishes the builder of a one-input op once its params are read and op is made:
// it binds input x, shapes output y, and checks the kernel against ref within tol.
func (b *caseBuilder) xyInstance(op xyOp, ref func(out, x *Tensor) error, tol Tol) (*Instance, error) {
	x := b.input("x")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(x)
	if err != nil {
		return nil, err
	}
	y := b.output("y", shape)
	return &Instance{
		Op:        op,
		Inputs:    []Arg{{"x", x}},
		Outputs:   []Arg{{"y", y}},
		Run:       func() error { return op.Forward(y, x) },
		Reference: func(outs []*Tensor) error { return ref(outs[0], x) },
		Tol:       tol,
	}, nil
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
func (b *caseBuilder) dtype(name string) DType {
	s, ok := b.c.DTypes[name]
	if !ok {
		b.fail("no dtype for tensor %s in the case", name)
		return Invalid
	}
	dt, err := ParseDType(s)
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
func (b *caseBuilder) tensor(name string) *Tensor {
	shape, ok := b.c.Shapes[name]
	if !ok {
		return nil
	}
	dt := b.dtype(name)
	if b.err != nil {
		return nil
	}
	mk := NewTensor
	if b.opt.Meta {
		mk = NewMeta
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
func (b *caseBuilder) input(name string) *Tensor {
	t := b.tensor(name)
	if t != nil && !t.IsMeta() {
		if err := FillUniform(t, b.seed(name), -1, 1); err != nil {
			b.fail("input %s: %v", name, err)
		}
	}
	return t
}

// indices makes the input named name filled with integers in [0, n): ids into a table of n
// rows.
func (b *caseBuilder) indices(name string, n int) *Tensor {
	t := b.tensor(name)
	if t != nil && !t.IsMeta() {
		if err := FillInts(t, b.seed(name), n); err != nil {
			b.fail("input %s: %v", name, err)
		}
	}
	return t
}

// output allocates the output named name with the shape the op's Bind returned and the
// case's dtype for it. When the manifest declares the output's shape, the op must agree.
func (b *caseBuilder) output(name string, shape []int) *Tensor {
	dt := b.dtype(name)
	if b.err != nil {
		return nil
	}
	if want, ok := b.c.Shapes[name]; ok && !slices.Equal(want, shape) {
		b.fail("output %s: the op computes shape %v, the manifest declares %v", name, shape, want)
		return nil
	}
	mk := NewTensor
	if b.opt.Meta {
		mk = NewMeta
	}
	t, err := mk(dt, shape...)
	if err != nil {
		b.fail("output %s: %v", name, err)
	}
	return t
}
