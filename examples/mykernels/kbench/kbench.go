// Package kbench is example.com/mykernels' op catalog as a bench.Registry: it builds each op
// of package kernels and its inputs from a manifest case, so that ropgen's benchmark layer
// (run, predict, ab, eval) works on these ops. This file is all a module writes for it.
package kbench

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"

	"example.com/mykernels/kernels"
)

// Registry builds the ops of package kernels.
var Registry bench.Registry = registry{}

type registry struct{}

// builders are the ops this registry builds, by manifest name.
var builders = map[string]func(b *builder) (*instance, error){
	"ScaleFwd": func(b *builder) (*instance, error) {
		alpha, _ := b.c.Params["alpha"].(float64)
		x := b.input("x")
		op := kernels.NewScaleFwd(alpha, x.DType)
		y := b.output("y", op.Bind(x))
		return &instance{op: op, outs: []*kernels.Tensor{y},
			run: func() error { return op.Forward(y, x) },
			ref: func(want []*kernels.Tensor) { op.Reference(want[0], x) }}, nil
	},
	"MatVecFwd": func(b *builder) (*instance, error) {
		a, x := b.input("a"), b.input("x")
		op, err := kernels.NewMatVecFwd(b.c.Dims["M"], b.c.Dims["K"], a.DType)
		if err != nil {
			return nil, err
		}
		y := b.output("y", []int{op.M})
		return &instance{op: op, outs: []*kernels.Tensor{y}, tol: 1e-4,
			run: func() error { return op.Forward(y, a, x) },
			ref: func(want []*kernels.Tensor) { op.Reference(want[0], a, x) }}, nil
	},
	"RowSumFwd": func(b *builder) (*instance, error) {
		x := b.input("x")
		op := &kernels.RowSumFwd{R: b.c.Dims["R"], C: b.c.Dims["C"], DType: x.DType}
		y := b.output("y", []int{op.R})
		return &instance{op: op, outs: []*kernels.Tensor{y}, tol: 1e-4,
			run: func() error { return op.Forward(y, x) },
			ref: func(want []*kernels.Tensor) { op.Reference(want[0], x) }}, nil
	},
}

func (registry) Has(name string) bool { _, ok := builders[name]; return ok }

func (registry) Build(c manifest.Case, opt bench.BuildOptions) (bench.Instance, error) {
	build, ok := builders[c.Op]
	if !ok {
		return nil, fmt.Errorf("kbench: no op %s", c.Op)
	}
	b := &builder{c: c, opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, uint64(len(c.Label))))}
	in, err := build(b)
	if err == nil {
		err = b.err
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", c.Op, c.Label, err)
	}
	in.storage, in.shapes, in.tensors = b.storage, b.shapes, b.tensors
	return in, nil
}

// builder makes a case's tensors: random inputs in [-1, 1), or meta tensors.
type builder struct {
	c       manifest.Case
	opt     bench.BuildOptions
	rng     *rand.Rand
	storage int64
	shapes  map[string][]int  // every tensor's shape, by name (bench.Shaper)
	tensors []*kernels.Tensor // every tensor made, for Buffers
	err     error
}

func (b *builder) tensor(name string, shape []int) *kernels.Tensor {
	dt, err := kernels.ParseDType(b.c.DTypes[name])
	if err != nil && b.err == nil {
		b.err = err
	}
	t := kernels.NewTensor(dt, b.opt.Meta, shape...)
	b.storage += int64(t.Numel()) * 4 // float32 storage whatever the dtype
	if b.shapes == nil {
		b.shapes = map[string][]int{}
	}
	b.shapes[name] = shape
	b.tensors = append(b.tensors, t)
	return t
}

func (b *builder) input(name string) *kernels.Tensor {
	t := b.tensor(name, b.c.Shapes[name])
	for i := range t.Data {
		t.Data[i] = 2*b.rng.Float32() - 1
	}
	return t
}

func (b *builder) output(name string, shape []int) *kernels.Tensor { return b.tensor(name, shape) }

// instance is one built op as a bench.Instance.
type instance struct {
	op      any
	outs    []*kernels.Tensor
	run     func() error
	ref     func(want []*kernels.Tensor)
	tol     float64
	storage int64
	shapes  map[string][]int
	tensors []*kernels.Tensor
}

func (in *instance) Op() any        { return in.op }
func (in *instance) Run() error     { return in.run() }
func (in *instance) Storage() int64 { return in.storage }

// Shapes are the shapes of the case's tensors, outputs included (bench.Shaper): the work
// list of `kbench eval -json` states them all, ScaleFwd's arbitrary-rank y too.
func (in *instance) Shapes() map[string][]int { return in.shapes }

// Buffers names the memory of the case's tensors (bench.Buffers), so that a cold sample
// flushes them from every cache level: without it a DRAM-sized case can find lines of its
// warm-up still cached, and run warns. bench.Memory hands over a slice of any number type.
func (in *instance) Buffers() [][]byte {
	out := make([][]byte, 0, len(in.tensors))
	for _, t := range in.tensors {
		out = append(out, bench.Memory(t.Data))
	}
	return out
}

// Check runs the kernel, then the reference into fresh outputs, and compares them.
func (in *instance) Check() error {
	if err := in.run(); err != nil {
		return err
	}
	want := make([]*kernels.Tensor, len(in.outs))
	for i, o := range in.outs {
		want[i] = kernels.NewTensor(o.DType, false, o.Shape...)
	}
	in.ref(want)
	tol := max(in.tol, 1e-6)
	var errs []error
	for i, o := range in.outs {
		if err := kernels.Close(o, want[i], tol); err != nil {
			errs = append(errs, fmt.Errorf("output %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}
