// Package ops is the op catalog: one Go type per manifest entry, with CPU kernels, and the
// generated EvalRoofline and ComputeRoof methods (zz_roofline.go, written by ropgen).
package ops

import (
	"fmt"
	"strings"

	"ropgen/manifest"
)

// DType is a tensor element type, numbered after manifest.DTypes (zero is invalid). The CPU
// kernels compute in float32 whatever the dtype; the dtype fixes the storage size, so
// elem_bytes follows it.
type DType uint8

// The dtypes, in the order of manifest.DTypes.
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
)

func (d DType) spec() manifest.DTypeSpec {
	if d == Invalid || int(d) > len(manifest.DTypes) {
		return manifest.DTypeSpec{Name: fmt.Sprintf("DType(%d)", d)}
	}
	return manifest.DTypes[d-1]
}

// Size is the storage size of one element in bytes.
func (d DType) Size() int { return d.spec().Size }

func (d DType) String() string { return d.spec().Name }

// ParseDType returns the dtype named s.
func ParseDType(s string) (DType, error) {
	names := make([]string, len(manifest.DTypes))
	for i, spec := range manifest.DTypes {
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

// Op is what every op in the catalog provides: its generated roofline (spec §4.4) and the
// compute roof its FLOPs are priced against (spec §1.4).
type Op interface {
	EvalRoofline() (flops, bytes int64, err error)
	ComputeRoof() string
}
