// Package opsbench is ropgen's own op catalog (package ops) as a bench.Registry: what
// ropbench and roprun benchmark, and the model of the registry a module that uses ropgen
// writes for its own ops (docs/using.md). It holds what ties the ops to the manifest: the
// builders that read a manifest case's params, dims and dtypes by name, call the op's
// constructor and make its tensors, so that package ops needs no manifest model.
package opsbench

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

// Registry builds the ops of package ops.
var Registry bench.Registry = registry{}

type registry struct{}

// Knobs are the settings of package ops an ab arm may change beside procs.
func (registry) Knobs() map[string]bench.Knob {
	return map[string]bench.Knob{
		"simd": {
			Doc: "the kernels' SIMD level (1: Go loops, 2: AVX2+FMA, 3: AVX-512; capped at the CPU's)",
			Max: func() int { return ops.SIMDAVX512 },
			Set: ops.SetSIMD,
		},
	}
}

func (registry) Has(name string) bool { _, ok := builders[name]; return ok }

func (registry) Build(c manifest.Case, opt bench.BuildOptions) (bench.Instance, error) {
	in, err := Build(c, opt)
	if err != nil {
		return nil, err
	}
	return Instance{in}, nil
}

// Instance is an ops.Instance as a bench.Instance and bench.Snapshotter.
type Instance struct{ In *ops.Instance }

// Op is the op value (e.g. *ops.GemmFwd), its shapes bound.
func (i Instance) Op() any { return i.In.Op }

// Run calls the op's Forward once.
func (i Instance) Run() error { return i.In.Run() }

// Check runs the kernel and the reference and compares the outputs.
func (i Instance) Check() error { return i.In.Check() }

// Storage is the CPU memory of the tensors: ops stores every element as a float32,
// whatever its dtype.
func (i Instance) Storage() int64 {
	var n int64
	for _, a := range slices.Concat(i.In.Inputs, i.In.Outputs) {
		n += int64(a.T.Numel()) * 4
	}
	return n
}

// Buffers is the memory of every input and output tensor, for a cold sample's flush
// (bench.Buffers).
func (i Instance) Buffers() [][]byte {
	var bufs [][]byte
	for _, a := range slices.Concat(i.In.Inputs, i.In.Outputs) {
		if d := a.T.Data; len(d) > 0 {
			bufs = append(bufs, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d))), len(d)*4))
		}
	}
	return bufs
}

// Snapshot copies the outputs; the function it returns compares the outputs then with the
// copy, within the op's tolerance.
func (i Instance) Snapshot() func() error {
	want := make([]*ops.Tensor, len(i.In.Outputs))
	for k, o := range i.In.Outputs {
		want[k] = &ops.Tensor{Shape: o.T.Shape, DType: o.T.DType, Data: slices.Clone(o.T.Data)}
	}
	return func() error {
		for k, o := range i.In.Outputs {
			if err := ops.Compare(o.T, want[k], i.In.Tol); err != nil {
				return fmt.Errorf("output %s: %w", o.Name, err)
			}
		}
		return nil
	}
}

// Shapes are the bound shapes of every input and output, by name (bench.Shaper): the work
// list's, an arbitrary-rank output's included.
func (i Instance) Shapes() map[string][]int {
	m := map[string][]int{}
	for _, a := range slices.Concat(i.In.Inputs, i.In.Outputs) {
		m[a.Name] = slices.Clone(a.T.Shape)
	}
	return m
}
