package opsbench

import (
	"fmt"

	"github.com/ropgen/ropgen/ops"
)

// builders are the ops Build builds, by manifest name (the op's Go type name): each reads
// its case's params, dims and dtypes by their manifest names, calls the op's constructor
// and makes the tensors its signature names. How far the kernel may be from the reference
// is the op's own word (its Tolerance).
var builders = map[string]builder{
	// Elementwise and activations: x in, y out.
	"ReluFwd": xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewReluFwd(dt) }),
	"LeakyReluFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewLeakyReluFwd(b.float("negative_slope"), dt)
	}),
	"ExpFwd":       xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewExpFwd(dt) }),
	"TanhFwd":      xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewTanhFwd(dt) }),
	"SigmoidFwd":   xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewSigmoidFwd(dt) }),
	"SiluFwd":      xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewSiluFwd(dt) }),
	"GeluFwd":      xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewGeluFwd(dt) }),
	"GeluErfFwd":   xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewGeluErfFwd(dt) }),
	"SoftplusFwd":  xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewSoftplusFwd(dt) }),
	"MishFwd":      xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewMishFwd(dt) }),
	"EluFwd":       xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewEluFwd(b.float("alpha"), dt) }),
	"HardswishFwd": xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewHardswishFwd(dt) }),
	"ClampFwd":     buildClamp,

	// Binary elementwise, broadcast: a and b in, y out.
	"AddFwd": ab("a", func(_ *caseBuilder, dt ops.DType) (abOp, error) { return ops.NewAddFwd(dt) }, "y"),
	"SubFwd": ab("a", func(_ *caseBuilder, dt ops.DType) (abOp, error) { return ops.NewSubFwd(dt) }, "y"),
	"MulFwd": ab("a", func(_ *caseBuilder, dt ops.DType) (abOp, error) { return ops.NewMulFwd(dt) }, "y"),
	"DivFwd": ab("a", func(_ *caseBuilder, dt ops.DType) (abOp, error) { return ops.NewDivFwd(dt) }, "y"),

	// Layout.
	"CopyFwd": xy(func(_ *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewCopyFwd(dt) }),
	"TransposeFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewTransposeFwd(b.int("dim0"), b.int("dim1"), dt)
	}),
	"ConcatFwd": ab("a", func(b *caseBuilder, dt ops.DType) (abOp, error) { return ops.NewConcatFwd(b.int("dim"), dt) }, "y"),
	"PadFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewPadFwd(b.int("pad_left"), b.int("pad_right"), b.float("value"), dt)
	}),
	"EmbeddingFwd": buildEmbedding,
	"RopeFwd":      buildRope,

	// Reductions and statistics.
	"SumFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewSumFwd(b.ints("dim"), b.bool("keepdim"), dt)
	}),
	"MeanFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewMeanFwd(b.ints("dim"), b.bool("keepdim"), dt)
	}),
	"AmaxFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewAmaxFwd(b.ints("dim"), b.bool("keepdim"), dt)
	}),
	"SoftmaxFwd":    xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewSoftmaxFwd(b.int("dim"), dt) }),
	"LogSoftmaxFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewLogSoftmaxFwd(b.int("dim"), dt) }),
	"CumsumFwd":     xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) { return ops.NewCumsumFwd(b.int("dim"), dt) }),
	"LogsumexpFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewLogsumexpFwd(b.ints("dim"), b.bool("keepdim"), dt)
	}),
	"VarFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		return ops.NewVarFwd(b.ints("dim"), b.int("correction"), b.bool("keepdim"), dt)
	}),
	"TopKFwd":          buildTopK,
	"MoeTopKGatingFwd": buildMoeGating,

	// Norms.
	"RMSNormFwd": buildRMSNorm,
	"LayerNormFwd": weighted(func(b *caseBuilder) (weightedOp, error) {
		ns, eps, dt := b.ints("normalized_shape"), b.float("eps"), b.dtype("x")
		if b.err != nil {
			return nil, b.err
		}
		return ops.NewLayerNormFwd(ns, eps, dt)
	}),
	"FusedAddRMSNormFwd": buildFusedAddRMSNorm,

	// Matrix ops.
	"GemmFwd": ab("a", func(b *caseBuilder, dt ops.DType) (abOp, error) {
		return ops.NewGemmFwd(b.dim("M"), b.dim("N"), b.dim("K"), dt)
	}, "c"),
	"BatchedGemmFwd": ab("a", func(b *caseBuilder, dt ops.DType) (abOp, error) {
		return ops.NewBatchedGemmFwd(b.dim("batch"), b.dim("M"), b.dim("N"), b.dim("K"), dt)
	}, "c"),
	"GroupedGemmFwd": ab("a", func(b *caseBuilder, dt ops.DType) (abOp, error) {
		return ops.NewGroupedGemmFwd(b.dim("M"), b.dim("K"), b.dim("N"), b.dim("G"), b.ints("group_sizes"), dt)
	}, "c"),
	"Fp8BlockScaledGemmFwd": buildFp8Gemm,
	"LinearFwd": weighted(func(b *caseBuilder) (weightedOp, error) {
		m, n, k, dt := b.dim("M"), b.dim("N"), b.dim("K"), b.dtype("x")
		if b.err != nil {
			return nil, b.err
		}
		return ops.NewLinearFwd(m, n, k, b.has("bias"), dt)
	}),
	"Conv2dFwd": weighted(func(b *caseBuilder) (weightedOp, error) {
		x := [4]int{b.dim("N"), b.dim("C_in"), b.dim("H"), b.dim("W")}
		stride, padding, dilation, groups, dt := b.int("stride"), b.int("padding"), b.int("dilation"), b.int("groups"), b.dtype("x")
		if b.err != nil {
			return nil, b.err
		}
		if groups < 1 || x[1]%groups != 0 {
			return nil, fmt.Errorf("Conv2dFwd: groups %d must divide C_in %d", groups, x[1])
		}
		w := [4]int{b.dim("C_out"), x[1] / groups, b.dim("KH"), b.dim("KW")}
		return ops.NewConv2dFwd(x, w, stride, padding, dilation, groups, b.has("bias"), dt)
	}),

	// Pools: x of [N, C, H, W] in, y out.
	"AvgPool2dFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		x, w := poolShape(b), b.window()
		include, div := b.bool("count_include_pad"), b.optInt("divisor_override")
		if b.err != nil {
			return nil, b.err
		}
		return ops.NewAvgPool2dFwd(x, w.kernelSize, w.stride, w.padding, w.ceilMode, include, div, dt)
	}),
	"MaxPool2dFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		x, w := poolShape(b), b.window()
		if b.err != nil {
			return nil, b.err
		}
		return ops.NewMaxPool2dFwd(x, w.kernelSize, w.stride, w.padding, w.ceilMode, dt)
	}),
	"AdaptiveAvgPool2dFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		x, out := poolShape(b), [2]int{b.dim("H_out"), b.dim("W_out")}
		if b.err != nil {
			return nil, b.err
		}
		return ops.NewAdaptiveAvgPool2dFwd(x, out, dt)
	}),
	"AdaptiveMaxPool2dFwd": xy(func(b *caseBuilder, dt ops.DType) (xyOp, error) {
		x, out := poolShape(b), [2]int{b.dim("H_out"), b.dim("W_out")}
		if b.err != nil {
			return nil, b.err
		}
		return ops.NewAdaptiveMaxPool2dFwd(x, out, dt)
	}),

	// Attention.
	"AttentionFwd":      buildAttention,
	"PagedAttentionFwd": buildPagedAttention,
}

// xyOp is an op with one input x and one output y: most of the catalog.
type xyOp interface {
	Bind(x *ops.Tensor) ([]int, error)
	Forward(out, x *ops.Tensor) error
	Reference(out, x *ops.Tensor) error
	Tolerance() ops.Tol
}

// xy returns the builder of a one-input op that mk makes from the case and x's dtype.
func xy(mk func(b *caseBuilder, dt ops.DType) (xyOp, error)) builder {
	return func(b *caseBuilder) (*ops.Instance, error) {
		dt := b.dtype("x")
		if b.err != nil {
			return nil, b.err
		}
		op, err := mk(b, dt)
		if b.err != nil {
			return nil, b.err
		}
		if err != nil {
			return nil, err
		}
		x := b.input("x")
		if b.err != nil {
			return nil, b.err
		}
		shape, err := op.Bind(x)
		if err != nil {
			return nil, err
		}
		y := b.output("y", shape)
		return &ops.Instance{
			Op:        op,
			Inputs:    []ops.Arg{{Name: "x", T: x}},
			Outputs:   []ops.Arg{{Name: "y", T: y}},
			Run:       func() error { return op.Forward(y, x) },
			Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], x) },
			Tol:       op.Tolerance(),
		}, nil
	}
}

// abOp is an op with inputs a and b and one output: the broadcast binary ops, the matrix
// products, concat.
type abOp interface {
	Bind(a, b *ops.Tensor) ([]int, error)
	Forward(out, a, b *ops.Tensor) error
	Reference(out, a, b *ops.Tensor) error
	Tolerance() ops.Tol
}

// ab returns the builder of a two-input op that mk makes from the case and the dtype of
// the input named dtypeOf; its output is named out.
func ab(dtypeOf string, mk func(b *caseBuilder, dt ops.DType) (abOp, error), out string) builder {
	return func(b *caseBuilder) (*ops.Instance, error) {
		dt := b.dtype(dtypeOf)
		if b.err != nil {
			return nil, b.err
		}
		op, err := mk(b, dt)
		if b.err != nil {
			return nil, b.err
		}
		if err != nil {
			return nil, err
		}
		x, y := b.input("a"), b.input("b")
		if b.err != nil {
			return nil, b.err
		}
		shape, err := op.Bind(x, y)
		if err != nil {
			return nil, err
		}
		o := b.output(out, shape)
		if b.err != nil {
			return nil, b.err
		}
		return &ops.Instance{
			Op:        op,
			Inputs:    []ops.Arg{{Name: "a", T: x}, {Name: "b", T: y}},
			Outputs:   []ops.Arg{{Name: out, T: o}},
			Run:       func() error { return op.Forward(o, x, y) },
			Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], x, y) },
			Tol:       op.Tolerance(),
		}, nil
	}
}

// weightedOp is an op with inputs x, weight and an optional bias and output y: linear,
// conv2d, layer norm.
type weightedOp interface {
	Bind(x, weight, bias *ops.Tensor) ([]int, error)
	Forward(y, x, weight, bias *ops.Tensor) error
	Reference(y, x, weight, bias *ops.Tensor) error
	Tolerance() ops.Tol
}

// weighted returns the builder of a weighted op that mk makes from the case.
func weighted(mk func(b *caseBuilder) (weightedOp, error)) builder {
	return func(b *caseBuilder) (*ops.Instance, error) {
		op, err := mk(b)
		if err != nil {
			return nil, err
		}
		x, w, bias := b.input("x"), b.input("weight"), b.input("bias")
		if b.err != nil {
			return nil, b.err
		}
		shape, err := op.Bind(x, w, bias)
		if err != nil {
			return nil, err
		}
		y := b.output("y", shape)
		if b.err != nil {
			return nil, b.err
		}
		return &ops.Instance{
			Op:        op,
			Inputs:    present(ops.Arg{Name: "x", T: x}, ops.Arg{Name: "weight", T: w}, ops.Arg{Name: "bias", T: bias}),
			Outputs:   []ops.Arg{{Name: "y", T: y}},
			Run:       func() error { return op.Forward(y, x, w, bias) },
			Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], x, w, bias) },
			Tol:       op.Tolerance(),
		}, nil
	}
}

// poolShape is a pool's input shape [N, C, H, W] from the case's dims.
func poolShape(b *caseBuilder) [4]int {
	return [4]int{b.dim("N"), b.dim("C"), b.dim("H"), b.dim("W")}
}

// poolWindow is a pool row's window: kernel_size, stride and padding as [h, w] pairs, and
// ceil_mode.
type poolWindow struct {
	kernelSize, stride, padding [2]int
	ceilMode                    bool
}

func (b *caseBuilder) window() poolWindow {
	return poolWindow{b.pair("kernel_size"), b.pair("stride"), b.pair("padding"), b.bool("ceil_mode")}
}

func buildClamp(b *caseBuilder) (*ops.Instance, error) {
	dt := b.dtype("x")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewClampFwd(b.optFloat("min_val"), b.optFloat("max_val"), dt)
	if err != nil {
		return nil, err
	}
	x, lo, hi := b.input("x"), b.input("lo"), b.input("hi")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(x, lo, hi)
	if err != nil {
		return nil, err
	}
	y := b.output("y", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    present(ops.Arg{Name: "x", T: x}, ops.Arg{Name: "lo", T: lo}, ops.Arg{Name: "hi", T: hi}),
		Outputs:   []ops.Arg{{Name: "y", T: y}},
		Run:       func() error { return op.Forward(y, x, lo, hi) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], x, lo, hi) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildEmbedding(b *caseBuilder) (*ops.Instance, error) {
	n, v, d := b.dim("N"), b.dim("V"), b.dim("D")
	idt, dt := b.dtype("indices"), b.dtype("weight")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewEmbeddingFwd(n, v, d, idt, dt)
	if err != nil {
		return nil, err
	}
	ids, w := b.indices("indices", v), b.input("weight")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(ids, w)
	if err != nil {
		return nil, err
	}
	y := b.output("y", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "indices", T: ids}, {Name: "weight", T: w}},
		Outputs:   []ops.Arg{{Name: "y", T: y}},
		Run:       func() error { return op.Forward(y, ids, w) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], ids, w) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildRope(b *caseBuilder) (*ops.Instance, error) {
	bb, s, h, d, dt := b.dim("B"), b.dim("S"), b.dim("H"), b.dim("D"), b.dtype("x")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewRopeFwd(bb, s, h, d, dt)
	if err != nil {
		return nil, err
	}
	x, cos, sin := b.input("x"), b.input("cos"), b.input("sin")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(x, cos, sin)
	if err != nil {
		return nil, err
	}
	y := b.output("y", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "x", T: x}, {Name: "cos", T: cos}, {Name: "sin", T: sin}},
		Outputs:   []ops.Arg{{Name: "y", T: y}},
		Run:       func() error { return op.Forward(y, x, cos, sin) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], x, cos, sin) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildTopK(b *caseBuilder) (*ops.Instance, error) {
	k, dim, dt := b.int("k"), b.int("dim"), b.dtype("x")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewTopKFwd(k, dim, dt)
	if err != nil {
		return nil, err
	}
	x := b.input("x")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(x)
	if err != nil {
		return nil, err
	}
	vals, idx := b.output("values", shape), b.output("indices", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "x", T: x}},
		Outputs:   []ops.Arg{{Name: "values", T: vals}, {Name: "indices", T: idx}},
		Run:       func() error { return op.Forward(vals, idx, x) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], outs[1], x) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildMoeGating(b *caseBuilder) (*ops.Instance, error) {
	t, e, k, dt := b.dim("T"), b.dim("E"), b.int("top_k"), b.dtype("logits")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewMoeTopKGatingFwd(t, e, k, dt)
	if err != nil {
		return nil, err
	}
	logits := b.input("logits")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(logits)
	if err != nil {
		return nil, err
	}
	w, ids := b.output("weights", shape), b.output("ids", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "logits", T: logits}},
		Outputs:   []ops.Arg{{Name: "weights", T: w}, {Name: "ids", T: ids}},
		Run:       func() error { return op.Forward(w, ids, logits) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], outs[1], logits) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildRMSNorm(b *caseBuilder) (*ops.Instance, error) {
	ns, eps, dt := b.ints("normalized_shape"), b.optFloat("eps"), b.dtype("x")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewRMSNormFwd(ns, eps, dt)
	if err != nil {
		return nil, err
	}
	x, w := b.input("x"), b.input("weight")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(x, w)
	if err != nil {
		return nil, err
	}
	y := b.output("y", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    present(ops.Arg{Name: "x", T: x}, ops.Arg{Name: "weight", T: w}),
		Outputs:   []ops.Arg{{Name: "y", T: y}},
		Run:       func() error { return op.Forward(y, x, w) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], x, w) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildFusedAddRMSNorm(b *caseBuilder) (*ops.Instance, error) {
	t, n, eps, dt := b.dim("T"), b.dim("N"), b.float("eps"), b.dtype("x")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewFusedAddRMSNormFwd(t, n, eps, dt)
	if err != nil {
		return nil, err
	}
	x, res, w := b.input("x"), b.input("residual"), b.input("weight")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(x, res, w)
	if err != nil {
		return nil, err
	}
	y, ro := b.output("y", shape), b.output("residual_out", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "x", T: x}, {Name: "residual", T: res}, {Name: "weight", T: w}},
		Outputs:   []ops.Arg{{Name: "y", T: y}, {Name: "residual_out", T: ro}},
		Run:       func() error { return op.Forward(y, ro, x, res, w) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], outs[1], x, res, w) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildFp8Gemm(b *caseBuilder) (*ops.Instance, error) {
	m, n, k, kb, nb, dt := b.dim("M"), b.dim("N"), b.dim("K"), b.dim("K_blocks"), b.dim("N_blocks"), b.dtype("a")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewFp8BlockScaledGemmFwd(m, n, k, kb, nb, dt)
	if err != nil {
		return nil, err
	}
	x, w, xs, ws := b.input("a"), b.input("b"), b.input("a_scale"), b.input("b_scale")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(x, w, xs, ws)
	if err != nil {
		return nil, err
	}
	c := b.output("c", shape)
	if b.err != nil {
		return nil, b.err
	}
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "a", T: x}, {Name: "b", T: w}, {Name: "a_scale", T: xs}, {Name: "b_scale", T: ws}},
		Outputs:   []ops.Arg{{Name: "c", T: c}},
		Run:       func() error { return op.Forward(c, x, w, xs, ws) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], x, w, xs, ws) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildAttention(b *caseBuilder) (*ops.Instance, error) {
	qs := [4]int{b.dim("batch"), b.dim("heads"), b.dim("seq_q"), b.dim("head_dim")}
	kvs := [4]int{b.dim("batch"), b.dim("kv_heads"), b.dim("seq_kv"), b.dim("head_dim")}
	causal, qdt, kvdt := b.bool("causal"), b.dtype("q"), b.dtype("k")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewAttentionFwd(qs, kvs, causal, qdt, kvdt)
	if err != nil {
		return nil, err
	}
	q, k, v := b.input("q"), b.input("k"), b.input("v")
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(q, k, v)
	if err != nil {
		return nil, err
	}
	o := b.output("o", shape)
	if b.err != nil {
		return nil, b.err
	}
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "q", T: q}, {Name: "k", T: k}, {Name: "v", T: v}},
		Outputs:   []ops.Arg{{Name: "o", T: o}},
		Run:       func() error { return op.Forward(o, q, k, v) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], q, k, v) },
		Tol:       op.Tolerance(),
	}, nil
}

func buildPagedAttention(b *caseBuilder) (*ops.Instance, error) {
	ns, h, kvh, d := b.dim("num_seqs"), b.dim("heads"), b.dim("kv_heads"), b.dim("head_dim")
	nb, bs, mb, cl, dt := b.dim("num_blocks"), b.dim("block_size"), b.dim("max_blocks"), b.ints("context_lens"), b.dtype("q")
	if b.err != nil {
		return nil, b.err
	}
	op, err := ops.NewPagedAttentionFwd(ns, h, kvh, d, nb, bs, mb, cl, dt)
	if err != nil {
		return nil, err
	}
	q, kc, vc, bt := b.input("q"), b.input("k_cache"), b.input("v_cache"), b.indices("block_tables", nb)
	if b.err != nil {
		return nil, b.err
	}
	shape, err := op.Bind(q, kc, vc, bt)
	if err != nil {
		return nil, err
	}
	o := b.output("out", shape)
	return &ops.Instance{
		Op:        op,
		Inputs:    []ops.Arg{{Name: "q", T: q}, {Name: "k_cache", T: kc}, {Name: "v_cache", T: vc}, {Name: "block_tables", T: bt}},
		Outputs:   []ops.Arg{{Name: "out", T: o}},
		Run:       func() error { return op.Forward(o, q, kc, vc, bt) },
		Reference: func(outs []*ops.Tensor) error { return op.Reference(outs[0], q, kc, vc, bt) },
		Tol:       op.Tolerance(),
	}, nil
}
