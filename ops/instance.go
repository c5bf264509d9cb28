package ops

import "fmt"

// Arg is one named input or output of an Instance.
type Arg struct {
	Name string
	T    *Tensor
}

// Instance is one op with its tensors: the op value, its inputs, its outputs, and the two
// ways of computing the outputs. The benchmark layer (internal/opsbench, which builds
// instances from manifest cases) times Run; tests and the benchmark layer compare Run with
// Reference first (Check); the structural oracle reads the tensors' sizes.
type Instance struct {
	// Name is what Check's errors call the instance, e.g. "GemmFwd cpu-small".
	Name string
	// Op is the op value, e.g. *SoftmaxFwd, its shapes bound (its Bind called), so that
	// EvalRoofline works on it, also on meta tensors.
	Op any
	// Inputs are the present inputs in signature order (an absent optional input is left
	// out). Every input is its own storage.
	Inputs []Arg
	// Outputs are the outputs in signature order, shaped by the op.
	Outputs []Arg
	// Run calls the op's Forward over Inputs, writing Outputs.
	Run func() error
	// Reference computes the outputs with the op's plain reference implementation (its
	// Reference method) into outs, which are shaped as Outputs.
	Reference func(outs []*Tensor) error
	// Tol is how far Run's outputs may be from Reference's: the op's Tolerance.
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
		return fmt.Errorf("%s: reference: %w", in.Name, err)
	}
	for i, o := range in.Outputs {
		if err := Compare(o.T, want[i], in.Tol); err != nil {
			return fmt.Errorf("%s: output %s: kernel vs reference: %w", in.Name, o.Name, err)
		}
	}
	return nil
}
