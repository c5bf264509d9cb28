// Package ops is the op catalog: one Go type per manifest entry, with CPU kernels, and the
// generated EvalRoofline and ComputeRoof methods (zz_roofline.go, written by ropgen).
package ops

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/internal/dtype"
)

// DType is a tensor element type, numbered after ropgen's dtype table (internal/dtype, which
// the manifest model validates names against; zero is invalid). The CPU kernels compute in
// float32 whatever the dtype; the dtype fixes the storage size, so elem_bytes follows it.
type DType uint8

// The dtypes, in the order of the table.
const (
	Invalid DType = iota
	Float32
	Float16
	BFloat16
	Float8E4M3
	Float8E5M2
	Int64
	Int32
	Int8
	Bool
	Float64
	Int16
	Uint8
	Float8E4M3FN
)

// valid reports whether d names a dtype of the table. Small enough to inline into Size,
// which every generated EvalRoofline calls per tensor.
func (d DType) valid() bool { return uint(d)-1 < uint(len(dtype.Builtin)) }

// Size is the storage size of one element in bytes; 0 for an invalid dtype.
func (d DType) Size() int {
	if !d.valid() {
		return 0
	}
	return dtype.Builtin[d-1].Size
}

func (d DType) String() string {
	if !d.valid() {
		return fmt.Sprintf("DType(%d)", d)
	}
	return dtype.Builtin[d-1].Name
}

// ParseDType returns the dtype named s.
func ParseDType(s string) (DType, error) {
	names := make([]string, len(dtype.Builtin))
	for i, spec := range dtype.Builtin {
		if spec.Name == s {
			return DType(i + 1), nil
		}
		names[i] = spec.Name
	}
	return Invalid, fmt.Errorf("unknown dtype %q (known: %s)", s, strings.Join(names, ", "))
}

// Tensor is a dense row-major CPU tensor. Data is always float32; DType is the element type
// the tensor stands for, which fixes its storage size in the roofline.
type Tensor struct {
	Shape []int
	DType DType
	Data  []float32
}

// Op is what every op in the catalog provides: its generated roofline (docs/model.md §7) and the
// compute roof its FLOPs are priced against (docs/model.md §3).
type Op interface {
	EvalRoofline() (flops, bytes int64, err error)
	ComputeRoof() string
}

// IsFloat reports whether d is a floating-point dtype.
func (d DType) IsFloat() bool {
	switch d {
	case Float32, Float16, BFloat16, Float8E4M3, Float8E5M2, Float64, Float8E4M3FN:
		return true
	}
	return false
}

// NewTensor returns a zero-filled tensor of dtype dt and the given shape. Every dim must be
// positive and the element count must fit in memory terms (an int).
func NewTensor(dt DType, shape ...int) (*Tensor, error) {
	t, err := NewMeta(dt, shape...)
	if err != nil {
		return nil, err
	}
	t.Data = make([]float32, t.Numel())
	return t, nil
}

// NewMeta returns a meta tensor: shape and dtype without data, as torch's meta device. A
// meta tensor is enough to bind an op's shapes (Bind) and evaluate its roofline on workloads
// too large for the CPU; a kernel refuses it.
func NewMeta(dt DType, shape ...int) (*Tensor, error) {
	if !dt.valid() {
		return nil, fmt.Errorf("invalid dtype %v", dt)
	}
	n := 1
	for i, d := range shape {
		if d < 1 {
			return nil, fmt.Errorf("shape %v: dim %d is %d; dims must be positive", shape, i, d)
		}
		if n > math.MaxInt/d {
			return nil, fmt.Errorf("shape %v: element count overflows int", shape)
		}
		n *= d
	}
	return &Tensor{Shape: slices.Clone(shape), DType: dt}, nil
}

// Numel is the number of elements: the product of the shape, 1 for a scalar.
func (t *Tensor) Numel() int { return shapeNumel(t.Shape) }

// shapeNumel is the element count of a shape, 1 for a scalar.
func shapeNumel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Bytes is the tensor's storage size: elements times the dtype's size.
func (t *Tensor) Bytes() int64 { return int64(t.Numel()) * int64(t.DType.Size()) }

// IsMeta reports whether t has a shape but no data (see NewMeta).
func (t *Tensor) IsMeta() bool { return t.Data == nil }

// String describes t as dtype[shape], e.g. "bfloat16[2 4096]", for error messages.
func (t *Tensor) String() string {
	if t == nil {
		return "<nil tensor>"
	}
	return fmt.Sprintf("%v%v", t.DType, t.Shape)
}

// checkData reports an error unless t holds data matching its shape: kernels call it so
// that a meta tensor or a hand-built tensor with a short Data slice fails cleanly.
func (t *Tensor) checkData(op, name string) error {
	switch {
	case t == nil:
		return fmt.Errorf("%s: %s is nil", op, name)
	case t.IsMeta():
		return fmt.Errorf("%s: %s %v is a meta tensor (no data); a kernel needs data", op, name, t)
	case len(t.Data) != t.Numel():
		return fmt.Errorf("%s: %s %v has %d elements of data, its shape needs %d", op, name, t, len(t.Data), t.Numel())
	}
	return nil
}
