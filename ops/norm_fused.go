package ops

import (
	"fmt"
	"math"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// FusedAddRMSNormFwd is vLLM's fused_add_rms_norm as two outputs: residual_out = x +
// residual, then y = rms_norm(residual_out) * weight over the last dim N. The fused kernel
// updates the residual stream in place; here residual_out is its own output tensor.
type FusedAddRMSNormFwd struct {
	T, N  int
	Eps   float64
	DType DType
}

// NewFusedAddRMSNormFwd returns the fused add and rms_norm of t rows of n over dtype dt.
func NewFusedAddRMSNormFwd(t, n int, eps float64, dt DType) (*FusedAddRMSNormFwd, error) {
	const name = "FusedAddRMSNormFwd"
	if err := checkDims(name, dimArg{"T", t}, dimArg{"N", n}); err != nil {
		return nil, err
	}
	if err := checkDType(name, dt, floatDTypes...); err != nil {
		return nil, err
	}
	if !(eps >= 0) {
		return nil, fmt.Errorf("%s: eps %v must be a non-negative number", name, eps)
	}
	return &FusedAddRMSNormFwd{T: t, N: n, Eps: eps, DType: dt}, nil
}

// Bind checks x, residual ([T, N]) and weight ([N]) and returns the shape of both outputs.
func (op *FusedAddRMSNormFwd) Bind(x, residual, weight *Tensor) ([]int, error) {
	const name = "FusedAddRMSNormFwd"
	if err := checkFixed(name, "x", x, op.DType, op.T, op.N); err != nil {
		return nil, err
	}
	if err := checkFixed(name, "residual", residual, op.DType, op.T, op.N); err != nil {
		return nil, err
	}
	if err := checkFixed(name, "weight", weight, op.DType, op.N); err != nil {
		return nil, err
	}
	return []int{op.T, op.N}, nil
}

// Forward computes residualOut = x + residual and y = rms_norm(residualOut) * weight, row
// by row on both cores: the sum goes to residual_out with the vector add, its squares are
// summed while the row is in cache, and the scaled row is written (streamed when large,
// as rms_norm's).
func (op *FusedAddRMSNormFwd) Forward(y, residualOut, x, residual, weight *Tensor) error {
	const name = "FusedAddRMSNormFwd"
	shape, err := op.Bind(x, residual, weight)
	if err != nil {
		return err
	}
	if err := checkData(name, []string{"x", "residual", "weight"}, x, residual, weight); err != nil {
		return err
	}
	if err := checkOutput(name, y, op.DType, shape); err != nil {
		return err
	}
	if err := checkOutput(name, residualOut, op.DType, shape); err != nil {
		return err
	}
	n, w := op.N, weight.Data
	v := alongDim{outer: op.T, n: n, inner: 1}
	stream := streams(2 * len(y.Data)) // both outputs go to memory
	v.eachRowStreamed(stream, func(lo, hi int) {
		xs, rs, ys, os := x.Data[lo:hi], residual.Data[lo:hi], y.Data[lo:hi], residualOut.Data[lo:hi]
		for i := f32.Arith(opAdd, os, xs, rs); i < len(os); i++ {
			os[i] = xs[i] + rs[i]
		}
		i, s0 := f32.SumSq(os)
		scaleRow(ys, os, w, prefetchNext(x.Data, lo, hi), float32(1/math.Sqrt(sumSqRest(os, i, s0)/float64(n)+op.Eps)), stream)
	})
	return nil
}

// reference adds in float32 (residual_out is x + residual rounded, as torch's add in the
// tensors' dtype) and normalizes in float64.
func (op *FusedAddRMSNormFwd) reference(y, residualOut, x, residual, weight *Tensor) {
	for r := range op.T {
		row := residualOut.Data[r*op.N : (r+1)*op.N]
		ss := 0.0
		for i := range row {
			row[i] = x.Data[r*op.N+i] + residual.Data[r*op.N+i]
			ss += float64(row[i]) * float64(row[i])
		}
		inv := 1 / math.Sqrt(ss/float64(op.N)+op.Eps)
		for i, v := range row {
			y.Data[r*op.N+i] = float32(float64(v) * inv * float64(weight.Data[i]))
		}
	}
}
