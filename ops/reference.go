package ops

import "math"

// Every op's Reference computes its outputs with plain float64 loops, the oracle its
// kernels are checked against (Instance.Check), and takes Forward's arguments. Its
// Tolerance is how far Forward's outputs may be from Reference's: Tol{} where the kernel
// does the reference's arithmetic in the reference's order (selections, layout, pools,
// one correctly rounded operation per element), so the two must agree bit for bit.

// Reference computes out = gelu_erf(x) in float64.
func (op *GeluErfFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol: float32 transcendentals.
func (op *GeluErfFwd) Tolerance() Tol { return unaryTol }

// Reference computes out = softplus(x) in float64.
func (op *SoftplusFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol: float32 transcendentals.
func (op *SoftplusFwd) Tolerance() Tol { return unaryTol }

// Reference computes out = mish(x) in float64.
func (op *MishFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol: float32 transcendentals.
func (op *MishFwd) Tolerance() Tol { return unaryTol }

// Reference computes out = elu(x) in float64.
func (op *EluFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is eluTol.
func (op *EluFwd) Tolerance() Tol { return eluTol }

// Reference computes out = hardswish(x) in float64.
func (op *HardswishFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol.
func (op *HardswishFwd) Tolerance() Tol { return unaryTol }

// Reference computes o = attention(q, k, v) in float64.
func (op *AttentionFwd) Reference(o, q, k, v *Tensor) error { op.reference(o, q, k, v); return nil }

// Tolerance grows with the head dim and the context (attentionTol).
func (op *AttentionFwd) Tolerance() Tol { return attentionTol(op.HeadDim, op.SeqKv) }

// Reference computes the paged attention in float64.
func (op *PagedAttentionFwd) Reference(out, q, kCache, vCache, blockTables *Tensor) error {
	return op.reference(out, q, kCache, vCache, blockTables)
}

// Tolerance: float32 dot products of head_dim terms and a float32 weighted sum over the
// context, a few ulps of the largest partial sums.
func (op *PagedAttentionFwd) Tolerance() Tol { return Tol{Abs: 2e-6, Rel: 1e-5} }

// Reference computes out = clamp(x, lo, hi) in float64.
func (op *ClampFwd) Reference(out, x, lo, hi *Tensor) error { op.reference(out, x, lo, hi); return nil }

// Tolerance is exact: a selection.
func (op *ClampFwd) Tolerance() Tol { return Tol{} }

// Reference computes the convolution in float64.
func (op *Conv2dFwd) Reference(y, x, weight, bias *Tensor) error {
	op.reference(y, x, weight, bias)
	return nil
}

// Tolerance is a contraction's over C_in/groups·KH·KW terms and the bias.
func (op *Conv2dFwd) Tolerance() Tol { return gemmTol(op.CIn/op.Groups*op.KH*op.KW + 1) }

// Reference computes out = relu(x).
func (op *ReluFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is exact.
func (op *ReluFwd) Tolerance() Tol { return Tol{} }

// Reference computes out = leaky_relu(x).
func (op *LeakyReluFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is exact: one correctly rounded product.
func (op *LeakyReluFwd) Tolerance() Tol { return Tol{} }

// Reference computes out = exp(x) in float64.
func (op *ExpFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol.
func (op *ExpFwd) Tolerance() Tol { return unaryTol }

// Reference computes out = tanh(x) in float64.
func (op *TanhFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol.
func (op *TanhFwd) Tolerance() Tol { return unaryTol }

// Reference computes out = sigmoid(x) in float64.
func (op *SigmoidFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol.
func (op *SigmoidFwd) Tolerance() Tol { return unaryTol }

// Reference computes out = silu(x) in float64.
func (op *SiluFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol.
func (op *SiluFwd) Tolerance() Tol { return unaryTol }

// Reference computes out = gelu_tanh(x) in float64.
func (op *GeluFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is unaryTol.
func (op *GeluFwd) Tolerance() Tol { return unaryTol }

// The binary ops' kernels compute one correctly rounded float32 operation per element, as
// does the float64 operation rounded to float32, so kernel and reference agree exactly.

// Reference computes out = a + b, broadcast, in float64.
func (op *AddFwd) Reference(out, a, b *Tensor) error {
	broadcastReference(out, a, b, func(x, y float64) float64 { return x + y })
	return nil
}

// Tolerance is exact.
func (op *AddFwd) Tolerance() Tol { return Tol{} }

// Reference computes out = a - b, broadcast, in float64.
func (op *SubFwd) Reference(out, a, b *Tensor) error {
	broadcastReference(out, a, b, func(x, y float64) float64 { return x - y })
	return nil
}

// Tolerance is exact.
func (op *SubFwd) Tolerance() Tol { return Tol{} }

// Reference computes out = a * b, broadcast, in float64.
func (op *MulFwd) Reference(out, a, b *Tensor) error {
	broadcastReference(out, a, b, func(x, y float64) float64 { return x * y })
	return nil
}

// Tolerance is exact.
func (op *MulFwd) Tolerance() Tol { return Tol{} }

// Reference computes out = a / b, broadcast, in float64.
func (op *DivFwd) Reference(out, a, b *Tensor) error {
	broadcastReference(out, a, b, func(x, y float64) float64 { return x / y })
	return nil
}

// Tolerance is exact.
func (op *DivFwd) Tolerance() Tol { return Tol{} }

// Reference gathers the rows of weight that indices name.
func (op *EmbeddingFwd) Reference(out, indices, weight *Tensor) error {
	op.reference(out, indices, weight)
	return nil
}

// Tolerance is exact: a copy.
func (op *EmbeddingFwd) Tolerance() Tol { return Tol{} }

// Reference computes c = a·b in float64.
func (op *GemmFwd) Reference(c, a, b *Tensor) error { op.reference(c, a, b); return nil }

// Tolerance is a contraction's over K terms.
func (op *GemmFwd) Tolerance() Tol { return gemmTol(op.K) }

// Reference computes every batch's c = a·b in float64.
func (op *BatchedGemmFwd) Reference(c, a, b *Tensor) error { op.reference(c, a, b); return nil }

// Tolerance is a contraction's over K terms.
func (op *BatchedGemmFwd) Tolerance() Tol { return gemmTol(op.K) }

// Reference computes the block-scaled product in float64.
func (op *Fp8BlockScaledGemmFwd) Reference(c, a, b, aScale, bScale *Tensor) error {
	op.reference(c, a, b, aScale, bScale)
	return nil
}

// Tolerance is a contraction's over K terms: the scales are below 1 in magnitude.
func (op *Fp8BlockScaledGemmFwd) Tolerance() Tol { return gemmTol(op.K) }

// Reference computes every group's product in float64.
func (op *GroupedGemmFwd) Reference(c, a, b *Tensor) error { op.reference(c, a, b); return nil }

// Tolerance is a contraction's over K terms.
func (op *GroupedGemmFwd) Tolerance() Tol { return gemmTol(op.K) }

// Reference copies x.
func (op *CopyFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is exact: layout ops move values without arithmetic.
func (op *CopyFwd) Tolerance() Tol { return Tol{} }

// Reference transposes x.
func (op *TransposeFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is exact.
func (op *TransposeFwd) Tolerance() Tol { return Tol{} }

// Reference concatenates a and b.
func (op *ConcatFwd) Reference(out, a, b *Tensor) error { op.reference(out, a, b); return nil }

// Tolerance is exact.
func (op *ConcatFwd) Tolerance() Tol { return Tol{} }

// Reference pads x.
func (op *PadFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is exact.
func (op *PadFwd) Tolerance() Tol { return Tol{} }

// Reference computes y = x·weightᵀ + bias in float64.
func (op *LinearFwd) Reference(y, x, weight, bias *Tensor) error {
	op.reference(y, x, weight, bias)
	return nil
}

// Tolerance is a contraction's over K terms and the bias.
func (op *LinearFwd) Tolerance() Tol { return gemmTol(op.K + 1) }

// Reference computes the gating in float64.
func (op *MoeTopKGatingFwd) Reference(weights, ids, logits *Tensor) error {
	op.reference(weights, ids, logits)
	return nil
}

// Tolerance: expf's few ulps and a float32 sum of top_k terms; ids are exact (random
// logits have no ties).
func (op *MoeTopKGatingFwd) Tolerance() Tol { return Tol{Abs: 1e-7, Rel: 2e-6} }

// Reference computes the RMS norm in float64.
func (op *RMSNormFwd) Reference(out, x, weight *Tensor) error {
	op.reference(out, x, weight)
	return nil
}

// Tolerance is normTol.
func (op *RMSNormFwd) Tolerance() Tol { return normTol }

// Reference computes the layer norm in float64.
func (op *LayerNormFwd) Reference(out, x, weight, bias *Tensor) error {
	op.reference(out, x, weight, bias)
	return nil
}

// Tolerance is normTol.
func (op *LayerNormFwd) Tolerance() Tol { return normTol }

// Reference computes the fused residual add and RMS norm in float64.
func (op *FusedAddRMSNormFwd) Reference(y, residualOut, x, residual, weight *Tensor) error {
	op.reference(y, residualOut, x, residual, weight)
	return nil
}

// Tolerance is normTol.
func (op *FusedAddRMSNormFwd) Tolerance() Tol { return normTol }

// Reference computes the average pool in float64.
func (op *AvgPool2dFwd) Reference(y, x *Tensor) error { op.reference(y, x); return nil }

// Tolerance is exact: kernel and reference combine the same values in the same order.
func (op *AvgPool2dFwd) Tolerance() Tol { return Tol{} }

// Reference computes the max pool.
func (op *MaxPool2dFwd) Reference(y, x *Tensor) error { op.reference(y, x); return nil }

// Tolerance is exact.
func (op *MaxPool2dFwd) Tolerance() Tol { return Tol{} }

// Reference computes the adaptive average pool in float64.
func (op *AdaptiveAvgPool2dFwd) Reference(y, x *Tensor) error { op.reference(y, x); return nil }

// Tolerance is exact.
func (op *AdaptiveAvgPool2dFwd) Tolerance() Tol { return Tol{} }

// Reference computes the adaptive max pool.
func (op *AdaptiveMaxPool2dFwd) Reference(y, x *Tensor) error { op.reference(y, x); return nil }

// Tolerance is exact.
func (op *AdaptiveMaxPool2dFwd) Tolerance() Tol { return Tol{} }

// reduceRef is the float64 reference of a reduction over dim: fold from identity, divided
// by the count when mean.
func reduceRef(out, x *Tensor, dim []int, fold func(acc, v float64) float64, identity float64, mean bool) error {
	axes, err := reduceAxes("reference", dim, len(x.Shape))
	if err != nil {
		return err
	}
	reduceReference(out, x, axes, fold, identity, mean)
	return nil
}

func addFold(acc, v float64) float64 { return acc + v }

// Reference computes the sum in float64.
func (op *SumFwd) Reference(out, x *Tensor) error {
	return reduceRef(out, x, op.Dim, addFold, 0, false)
}

// Tolerance is sumTol.
func (op *SumFwd) Tolerance() Tol { return sumTol }

// Reference computes the mean in float64.
func (op *MeanFwd) Reference(out, x *Tensor) error {
	return reduceRef(out, x, op.Dim, addFold, 0, true)
}

// Tolerance is sumTol.
func (op *MeanFwd) Tolerance() Tol { return sumTol }

// Reference computes the maximum.
func (op *AmaxFwd) Reference(out, x *Tensor) error {
	return reduceRef(out, x, op.Dim, func(acc, v float64) float64 { return max(acc, v) }, math.Inf(-1), false)
}

// Tolerance is exact: a selection.
func (op *AmaxFwd) Tolerance() Tol { return Tol{} }

// Reference computes the softmax in float64.
func (op *SoftmaxFwd) Reference(out, x *Tensor) error { return op.reference(out, x) }

// Tolerance: a few ulp from expf and the reciprocal.
func (op *SoftmaxFwd) Tolerance() Tol { return Tol{Abs: 1e-8, Rel: 1e-6} }

// Reference computes the log-softmax in float64.
func (op *LogSoftmaxFwd) Reference(out, x *Tensor) error { return op.reference(out, x) }

// Tolerance: log_softmax subtracts log(sum), of order log(n), from x, so its absolute error
// scales with that term's ulp.
func (op *LogSoftmaxFwd) Tolerance() Tol { return Tol{Abs: 4e-6, Rel: 1e-6} }

// Reference computes the cumulative sum in float64.
func (op *CumsumFwd) Reference(out, x *Tensor) error { return op.reference(out, x) }

// Tolerance is exact.
func (op *CumsumFwd) Tolerance() Tol { return Tol{} }

// Reference computes the rotary embedding in float64.
func (op *RopeFwd) Reference(out, x, cos, sin *Tensor) error {
	op.reference(out, x, cos, sin)
	return nil
}

// Tolerance: two float32 products and a sum of values in [-1, 1), a few ulp of 1 where the
// float64 reference rounds once.
func (op *RopeFwd) Tolerance() Tol { return Tol{Abs: 3e-7, Rel: 1e-6} }

// Reference computes logsumexp in float64.
func (op *LogsumexpFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is lseTol.
func (op *LogsumexpFwd) Tolerance() Tol { return lseTol }

// Reference computes the variance in float64.
func (op *VarFwd) Reference(out, x *Tensor) error { op.reference(out, x); return nil }

// Tolerance is varTol.
func (op *VarFwd) Tolerance() Tol { return varTol }

// Reference selects the top k in float64.
func (op *TopKFwd) Reference(values, indices, x *Tensor) error {
	return op.reference(values, indices, x)
}

// Tolerance is exact: a selection, the same elements bit for bit.
func (op *TopKFwd) Tolerance() Tol { return Tol{} }
