package manifest

import (
	"fmt"
	"math"
	"strings"
)

// Footprint is what a case's tensors take as stored: for each present input and each output,
// its elements times its dtype's size. The minimum-traffic rule (docs/model.md) reads every
// input once and writes every output once, so a tensor the op touches whole is at least its
// stored size of traffic: a bytes formula below the footprint leaves out bytes the kernel
// must move. A tensor marked partial in the signature (a gather's table) is left out, with
// its reason; so is a tensor whose shape is not known (an arbitrary-rank output when no
// built shapes are given), which makes Bytes a floor of what is known, never a guess.
type Footprint struct {
	// Bytes is the sum over the counted tensors; InputBytes the inputs' part of it.
	Bytes, InputBytes int64
	// Counted names each counted tensor with its bytes ("x 4194304"), in signature order.
	Counted []string
	// Partial names each tensor left out as partial, with its reason.
	Partial []string
	// Unknown names each tensor left out because its shape is not known.
	Unknown []string
}

// String is the footprint for a message: "x 4194304 + y 4194304 = 8388608 bytes", and what
// it leaves out.
func (f Footprint) String() string {
	s := strings.Join(f.Counted, " + ")
	if len(f.Counted) > 1 {
		s += fmt.Sprintf(" = %d", f.Bytes)
	}
	if s == "" {
		s = "0"
	}
	s += " bytes"
	if len(f.Partial) > 0 {
		s += "; partial, left out: " + strings.Join(f.Partial, "; ")
	}
	if len(f.Unknown) > 0 {
		s += "; shape unknown, left out: " + strings.Join(f.Unknown, ", ")
	}
	return s
}

// Footprint returns the stored footprint of case c of op. shapes, when not nil, are the
// shapes the op bound on a build (bench.Shaper); they give the arbitrary-rank outputs that
// no workload row states. Otherwise each tensor's shape is the row's (c.Shapes).
func (op *Op) Footprint(c Case, shapes map[string][]int) (Footprint, error) {
	var f Footprint
	add := func(t *Tensor, input bool) error {
		dt, present := c.DTypes[t.Name]
		if !present {
			return nil // an absent optional input
		}
		if t.Partial != nil {
			f.Partial = append(f.Partial, t.Name+" ("+t.Partial.Value+")")
			return nil
		}
		shape, ok := shapes[t.Name]
		if !ok {
			shape, ok = c.Shapes[t.Name]
		}
		if !ok {
			f.Unknown = append(f.Unknown, t.Name)
			return nil
		}
		n, err := TensorBytes(shape, dt)
		if err != nil {
			return fmt.Errorf("%s %s: %v", op.Name, t.Name, err)
		}
		if f.Bytes > math.MaxInt64-n {
			return fmt.Errorf("%s: the tensors' bytes overflow int64", op.Name)
		}
		f.Bytes += n
		if input {
			f.InputBytes += n
		}
		f.Counted = append(f.Counted, fmt.Sprintf("%s %d", t.Name, n))
		return nil
	}
	for i, ts := range [][]*Tensor{op.Inputs, op.Outputs} {
		for _, t := range ts {
			if err := add(t, i == 0); err != nil {
				return Footprint{}, err
			}
		}
	}
	return f, nil
}

// TensorBytes is the stored size of a tensor of shape and dtype: its elements times the
// dtype's size (ropgen's own dtypes or the module's, LookupDType).
func TensorBytes(shape []int, dtype string) (int64, error) {
	spec, ok := LookupDType(dtype)
	if !ok {
		return 0, fmt.Errorf("unknown dtype %q", dtype)
	}
	n := int64(spec.Size)
	for _, d := range shape {
		if d < 0 || (d > 0 && n > math.MaxInt64/int64(d)) {
			return 0, fmt.Errorf("size of shape %v overflows int64", shape)
		}
		n *= int64(d)
	}
	return n, nil
}
