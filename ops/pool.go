package ops

import (
	"fmt"
	"math"
)

// pool2d is the geometry AvgPool2dFwd and MaxPool2dFwd share: a square window of
// kernel_size sliding by stride over NCHW planes padded by padding on each side, x
// [N, C, H, W] to y [N, C, H_out, W_out] with H_out = (H + 2·padding - kernel_size) /
// stride + 1 (floor), W_out likewise. Its fields are the ops' roofline fields (promoted).
type pool2d struct {
	N, C, H, W, HOut, WOut      int
	KernelSize, Stride, Padding int
	DType                       DType
}

// newPool2d validates the geometry as torch does: padding at most half the window, so every
// window holds at least one element of x.
func newPool2d(op string, x [4]int, kernelSize, stride, padding int, dt DType) (pool2d, error) {
	p := pool2d{N: x[0], C: x[1], H: x[2], W: x[3], KernelSize: kernelSize, Stride: stride, Padding: padding, DType: dt}
	if err := checkDType(op, dt, floatDTypes...); err != nil {
		return p, err
	}
	err := checkDims(op, dimArg{"N", p.N}, dimArg{"C", p.C}, dimArg{"H", p.H}, dimArg{"W", p.W},
		dimArg{"kernel_size", kernelSize}, dimArg{"stride", stride})
	if err != nil {
		return p, err
	}
	if padding < 0 || 2*padding > kernelSize {
		return p, fmt.Errorf("%s: padding %d must be between 0 and half the kernel size %d", op, padding, kernelSize)
	}
	if p.HOut, err = convOut(op, "H", p.H, kernelSize, stride, padding); err != nil {
		return p, err
	}
	p.WOut, err = convOut(op, "W", p.W, kernelSize, stride, padding)
	return p, err
}

// bind checks x and returns y's shape.
func (p *pool2d) bind(op string, x *Tensor) ([]int, error) {
	if err := checkFixed(op, "x", x, p.DType, p.N, p.C, p.H, p.W); err != nil {
		return nil, err
	}
	return []int{p.N, p.C, p.HOut, p.WOut}, nil
}

// forward binds x, checks the tensors and runs the pool, planes split between the cores.
func (p *pool2d) forward(op string, y, x *Tensor, isMax bool) error {
	shape, err := p.bind(op, x)
	if err != nil {
		return err
	}
	if err := x.checkData(op, "x"); err != nil {
		return err
	}
	if err := checkOutput(op, y, p.DType, shape); err != nil {
		return err
	}
	in, out := p.H*p.W, p.HOut*p.WOut
	parallelFor(p.N*p.C, max(1, grainElems/in), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			p.plane(y.Data[c*out:(c+1)*out], x.Data[c*in:(c+1)*in], isMax)
		}
	})
	return nil
}

// plane pools one plane row by row. For each window row kh and column kw it sweeps every
// output of the row whose tap falls inside x, so the inner loop is one load and one add
// (or compare) per output, with no per-window bookkeeping. Every output still combines its
// taps in (kh, kw) order, skipping padding, as the reference does, so the two agree exactly.
func (p *pool2d) plane(y, x []float32, isMax bool) {
	k, s, pad := p.KernelSize, p.Stride, p.Padding
	area := float32(k * k)
	for oh := range p.HOut {
		row := y[oh*p.WOut : (oh+1)*p.WOut]
		fill := float32(0)
		if isMax {
			fill = float32(math.Inf(-1))
		}
		for i := range row {
			row[i] = fill
		}
		for kh := range k {
			ih := oh*s - pad + kh
			if ih < 0 || ih >= p.H {
				continue
			}
			src := x[ih*p.W : (ih+1)*p.W]
			for kw := range k {
				// Output ow reads column ow·s + off, inside x for lo <= ow < hi.
				off := kw - pad
				lo, hi := 0, 0
				if off < 0 {
					lo = (-off + s - 1) / s
				}
				if last := p.W - 1 - off; last >= 0 {
					hi = min(p.WOut, last/s+1)
				}
				if isMax {
					// The builtin max is branch-free on amd64 (a mispredicted branch per
					// new maximum costs more than the compare) and propagates NaN, as torch.
					for ow := lo; ow < hi; ow++ {
						row[ow] = max(row[ow], src[ow*s+off])
					}
				} else {
					for ow := lo; ow < hi; ow++ {
						row[ow] += src[ow*s+off]
					}
				}
			}
		}
		if !isMax {
			for i := range row {
				row[i] /= area
			}
		}
	}
}

// reference is the pool's definition, window by window: combine the taps of x in (kh, kw)
// order, skipping padding; the average divides by the whole window (torch's
// count_include_pad=True).
func (p *pool2d) reference(y, x *Tensor, isMax bool) {
	area := float32(p.KernelSize * p.KernelSize)
	i := 0
	for c := range p.N * p.C {
		plane := x.Data[c*p.H*p.W : (c+1)*p.H*p.W]
		for oh := range p.HOut {
			for ow := range p.WOut {
				acc := float32(0)
				if isMax {
					acc = float32(math.Inf(-1))
				}
				for kh := range p.KernelSize {
					for kw := range p.KernelSize {
						ih, iw := oh*p.Stride-p.Padding+kh, ow*p.Stride-p.Padding+kw
						if ih < 0 || ih >= p.H || iw < 0 || iw >= p.W {
							continue
						}
						if v := plane[ih*p.W+iw]; isMax {
							acc = max(acc, v)
						} else {
							acc += v
						}
					}
				}
				if !isMax {
					acc /= area
				}
				y.Data[i] = acc
				i++
			}
		}
	}
}

// AvgPool2dFwd is torch.nn.functional.avg_pool2d with a square window and
// count_include_pad=True: each output is the sum of its window's elements of x divided by
// kernel_size².
type AvgPool2dFwd struct{ pool2d }

// NewAvgPool2dFwd returns an average pool over an input of shape x over dtype dt.
func NewAvgPool2dFwd(x [4]int, kernelSize, stride, padding int, dt DType) (*AvgPool2dFwd, error) {
	p, err := newPool2d("AvgPool2dFwd", x, kernelSize, stride, padding, dt)
	if err != nil {
		return nil, err
	}
	return &AvgPool2dFwd{p}, nil
}

// Bind checks x and returns y's shape.
func (op *AvgPool2dFwd) Bind(x *Tensor) ([]int, error) { return op.bind("AvgPool2dFwd", x) }

// Forward computes y = avg_pool2d(x).
func (op *AvgPool2dFwd) Forward(y, x *Tensor) error {
	return op.forward("AvgPool2dFwd", y, x, false)
}

func (op *AvgPool2dFwd) reference(y, x *Tensor) { op.pool2d.reference(y, x, false) }

// MaxPool2dFwd is torch.nn.functional.max_pool2d with a square window: each output is the
// largest element of x in its window (padding never wins), NaN if the window holds one.
type MaxPool2dFwd struct{ pool2d }

// NewMaxPool2dFwd returns a max pool over an input of shape x over dtype dt.
func NewMaxPool2dFwd(x [4]int, kernelSize, stride, padding int, dt DType) (*MaxPool2dFwd, error) {
	p, err := newPool2d("MaxPool2dFwd", x, kernelSize, stride, padding, dt)
	if err != nil {
		return nil, err
	}
	return &MaxPool2dFwd{p}, nil
}

// Bind checks x and returns y's shape.
func (op *MaxPool2dFwd) Bind(x *Tensor) ([]int, error) { return op.bind("MaxPool2dFwd", x) }

// Forward computes y = max_pool2d(x).
func (op *MaxPool2dFwd) Forward(y, x *Tensor) error {
	return op.forward("MaxPool2dFwd", y, x, true)
}

func (op *MaxPool2dFwd) reference(y, x *Tensor) { op.pool2d.reference(y, x, true) }

// poolOp is what the two pools have in common, for the shared builder.
type poolOp interface {
	xyOp
	reference(y, x *Tensor)
}

// buildPool returns the builder of a pool made by mk. Kernel and reference combine the same
// values in the same order, so they must agree exactly.
func buildPool(mk func(x [4]int, kernelSize, stride, padding int, dt DType) (poolOp, error)) builder {
	return func(b *caseBuilder) (*Instance, error) {
		shape := [4]int{b.dim("N"), b.dim("C"), b.dim("H"), b.dim("W")}
		k, s, pad, dt := b.int("kernel_size"), b.int("stride"), b.int("padding"), b.dtype("x")
		if b.err != nil {
			return nil, b.err
		}
		op, err := mk(shape, k, s, pad, dt)
		if err != nil {
			return nil, err
		}
		return b.xyInstance(op, func(y, x *Tensor) error { op.reference(y, x); return nil }, Tol{})
	}
}

func init() {
	register("AvgPool2dFwd", buildPool(func(x [4]int, k, s, p int, dt DType) (poolOp, error) {
		return NewAvgPool2dFwd(x, k, s, p, dt)
	}))
	register("MaxPool2dFwd", buildPool(func(x [4]int, k, s, p int, dt DType) (poolOp, error) {
		return NewMaxPool2dFwd(x, k, s, p, dt)
	}))
}
