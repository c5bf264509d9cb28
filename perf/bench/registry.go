package bench

import "github.com/ropgen/ropgen/manifest"

// Op is what every benchmarked op provides: its generated roofline (EvalRoofline) and the
// compute roof its FLOPs are priced against (ComputeRoof). ropgen generate writes both.
type Op interface {
	EvalRoofline() (flops, bytes int64, err error)
	ComputeRoof() string
}

// Instance is one op built for one manifest.Case with its inputs and outputs.
type Instance interface {
	// Op is the op value with its shapes bound, so that its EvalRoofline works (on a meta
	// build too). It satisfies Op once the op type's methods are generated; a value that
	// does not is reported as not generated yet.
	Op() any
	// Run calls the op's kernel once (Forward) over the inputs, writing the outputs.
	Run() error
	// Check runs the kernel and the op's plain reference and compares every output within
	// the op's tolerance: a fast wrong kernel is no kernel.
	Check() error
	// Storage is the memory the instance's tensors take, in bytes, as allocated (a meta
	// build reports what a data build would take): the run limits compare it, and a case
	// smaller than the eviction buffer is timed cold.
	Storage() int64
}

// Snapshotter is an Instance that can compare its outputs with a copy of them taken
// earlier. `ab` uses it to check that two arms compute the same outputs, not only that each
// is within tolerance of the reference; an Instance without it is checked against the
// reference alone.
type Snapshotter interface {
	// Snapshot copies the outputs now and returns a function that compares the outputs at
	// the time it is called with that copy, within the op's tolerance.
	Snapshot() (same func() error)
}

// BuildOptions say how a Registry builds an Instance.
type BuildOptions struct {
	// Seed seeds the inputs' random data, so a build is reproducible.
	Seed uint64
	// Meta builds shapes and dtypes only, no data: enough to bind the op's shapes and call
	// EvalRoofline on workloads too large for this machine. Run and Check are never called
	// on a meta instance.
	Meta bool
}

// Registry is a module's op catalog as the benchmark layer sees it: it builds an op and its
// inputs from a manifest case. A module that uses ropgen implements it over its own op
// package (see docs/using.md); ropgen's own is internal/opsbench.
type Registry interface {
	// Has reports whether the registry builds the op named name.
	Has(name string) bool
	// Build builds the op of c (c.Op names it) with its constructor, makes its inputs
	// (random from opt.Seed, or meta), binds its shapes and allocates its outputs.
	Build(c manifest.Case, opt BuildOptions) (Instance, error)
}

// Knob is a setting an `ab` arm changes while it runs ("procs=1", "simd=2").
type Knob struct {
	Doc string
	// Max is the largest value the knob takes on this machine; nil: no bound but 1 at least.
	Max func() int
	// Set applies value and returns the function that restores the previous setting.
	Set func(value int) (restore func())
}

// Knobber is a Registry with settings of its own that `ab` arms may change, by name, beside
// the builtin procs (GOMAXPROCS): ropgen's ops have simd, the kernels' SIMD level.
type Knobber interface {
	Knobs() map[string]Knob
}
