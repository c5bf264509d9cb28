// Package kernels is the op package of example.com/mykernels: its own tensor and dtype
// types, one Go type per manifest entry with a CPU kernel and a plain reference, and the
// EvalRoofline and ComputeRoof methods ropgen generates into zz_roofline.go. Nothing here
// imports ropgen: the generated code binds to these types.
package kernels

import (
	"fmt"
	"math"
)

// DType is an element type. The kernels compute in float32 whatever the dtype; the dtype
// fixes the storage size, which the roofline's elem_bytes reads through Size.
type DType uint8

// The dtypes the manifests name.
const (
	Float32 DType = iota + 1
	Float16
	BFloat16
)

var dtypes = map[string]DType{"float32": Float32, "float16": Float16, "bfloat16": BFloat16}

// Size is the storage size of one element in bytes.
func (d DType) Size() int {
	if d == Float32 {
		return 4
	}
	return 2
}

// String is the dtype's manifest name; the generated ComputeRoof reads it to price each
// dtype on its own vector unit.
func (d DType) String() string {
	for name, v := range dtypes {
		if v == d {
			return name
		}
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// ParseDType returns the dtype a manifest names.
func ParseDType(name string) (DType, error) {
	if d, ok := dtypes[name]; ok {
		return d, nil
	}
	return 0, fmt.Errorf("kernels: no dtype %q", name)
}

// Tensor is a dense row-major tensor. A meta tensor (Data nil) has a shape and no storage:
// enough to bind an op's shapes and price it.
type Tensor struct {
	Shape []int
	DType DType
	Data  []float32
}

// Numel is the number of elements.
func (t *Tensor) Numel() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// NewTensor allocates a zero tensor; meta allocates no data.
func NewTensor(dt DType, meta bool, shape ...int) *Tensor {
	t := &Tensor{Shape: shape, DType: dt}
	if !meta {
		t.Data = make([]float32, t.Numel())
	}
	return t
}

// Close reports whether got and want agree within tol (relative to the magnitude, at least
// tol absolute), element by element.
func Close(got, want *Tensor, tol float64) error {
	if len(got.Data) != len(want.Data) {
		return fmt.Errorf("%d elements, want %d", len(got.Data), len(want.Data))
	}
	for i := range got.Data {
		g, w := float64(got.Data[i]), float64(want.Data[i])
		if math.Abs(g-w) > tol*max(1, math.Abs(w)) {
			return fmt.Errorf("element %d: %g, want %g", i, g, w)
		}
	}
	return nil
}
