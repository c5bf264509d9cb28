package ops

import (
	"fmt"
	"math"
)

// pool2d is the geometry AvgPool2dFwd and MaxPool2dFwd share: a window of
// kernel_size = [KH, KW] sliding by stride = [SH, SW] over NCHW planes padded by
// padding = [PH, PW] on each side, x [N, C, H, W] to y [N, C, H_out, W_out] with
// H_out = (H + 2·PH - KH) / SH + 1, rounded down, or with ceil_mode up, less one when the
// last window would start past the input and its left padding (torch's rule), W_out
// likewise. Its fields are the ops' roofline fields (promoted).
type pool2d struct {
	N, C, H, W, HOut, WOut      int
	KernelSize, Stride, Padding []int // [h, w] each
	CeilMode                    bool
	DType                       DType
}

// newPool2d validates the geometry as torch does: padding at most half the window along
// each axis, so every window holds at least one element of x (in ceil mode too).
func newPool2d(op string, x [4]int, kernelSize, stride, padding [2]int, ceilMode bool, dt DType) (pool2d, error) {
	p := pool2d{N: x[0], C: x[1], H: x[2], W: x[3], KernelSize: kernelSize[:], Stride: stride[:], Padding: padding[:],
		CeilMode: ceilMode, DType: dt}
	if err := checkDType(op, dt, floatDTypes...); err != nil {
		return p, err
	}
	err := checkDims(op, dimArg{"N", p.N}, dimArg{"C", p.C}, dimArg{"H", p.H}, dimArg{"W", p.W},
		dimArg{"kernel_size[0]", kernelSize[0]}, dimArg{"kernel_size[1]", kernelSize[1]},
		dimArg{"stride[0]", stride[0]}, dimArg{"stride[1]", stride[1]})
	if err != nil {
		return p, err
	}
	for i, pad := range padding {
		if pad < 0 || 2*pad > kernelSize[i] {
			return p, fmt.Errorf("%s: padding %v must be between 0 and half the kernel size %v", op, padding, kernelSize)
		}
	}
	if p.HOut, err = poolOut(op, "H", p.H, kernelSize[0], stride[0], padding[0], ceilMode); err != nil {
		return p, err
	}
	p.WOut, err = poolOut(op, "W", p.W, kernelSize[1], stride[1], padding[1], ceilMode)
	return p, err
}

// poolOut is the output size of a pooling window: convOut's floor, or with ceil the
// rounded-up count, less the last window when it would start at or past in + padding (it
// would cover only right padding). The shape rule of manifest/conv.yaml says the same.
func poolOut(op, dim string, in, k, stride, padding int, ceil bool) (int, error) {
	out, err := convOut(op, dim, in, k, stride, padding)
	if err != nil || !ceil {
		return out, err
	}
	out = (in+2*padding-k+stride-1)/stride + 1
	if (out-1)*stride >= in+padding {
		out--
	}
	return out, nil
}

// bind checks x and returns y's shape.
func (p *pool2d) bind(op string, x *Tensor) ([]int, error) {
	if err := checkFixed(op, "x", x, p.DType, p.N, p.C, p.H, p.W); err != nil {
		return nil, err
	}
	return []int{p.N, p.C, p.HOut, p.WOut}, nil
}

// avgDivisor says what an average pool divides each window's sum by: the fixed override
// when set, else the window's extent clipped to the padded input (count_include_pad, the
// padding counts) or to the input itself (padding does not count), as torch.
type avgDivisor struct {
	override   *int
	includePad bool
}

// extent returns the divisor's factor along one axis for the window starting at start (in
// unpadded coordinates) of size k over an input of size in padded by pad.
func (d avgDivisor) extent(start, k, in, pad int) int {
	end := min(start+k, in+pad)
	if d.includePad {
		return end - start
	}
	return min(end, in) - max(start, 0)
}

// uniform returns the divisor every window of p shares, if they all do: the override, or
// the whole window when the padding counts and no window overhangs it (floor mode).
func (d avgDivisor) uniform(p *pool2d) (float32, bool) {
	switch {
	case d.override != nil:
		return float32(*d.override), true
	case d.includePad && !p.CeilMode:
		return float32(p.KernelSize[0] * p.KernelSize[1]), true
	}
	return 0, false
}

// of returns the divisor of output (oh, ow) of p.
func (d avgDivisor) of(p *pool2d, oh, ow int) float32 {
	if d.override != nil {
		return float32(*d.override)
	}
	return float32(d.rowExtent(p, oh) * d.colExtent(p, ow))
}

func (d avgDivisor) rowExtent(p *pool2d, oh int) int {
	return d.extent(oh*p.Stride[0]-p.Padding[0], p.KernelSize[0], p.H, p.Padding[0])
}

func (d avgDivisor) colExtent(p *pool2d, ow int) int {
	return d.extent(ow*p.Stride[1]-p.Padding[1], p.KernelSize[1], p.W, p.Padding[1])
}

// forward binds x, checks the tensors and runs the pool, planes split between the cores;
// div is nil for the max pool.
func (p *pool2d) forward(op string, y, x *Tensor, div *avgDivisor) error {
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
	var cols []int // the column extents of a divisor that varies by window
	if div != nil {
		if _, ok := div.uniform(p); !ok {
			cols = make([]int, p.WOut)
			for ow := range cols {
				cols[ow] = div.colExtent(p, ow)
			}
		}
	}
	in, out := p.H*p.W, p.HOut*p.WOut
	parallelFor(p.N*p.C, max(1, grainElems/in), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			p.plane(y.Data[c*out:(c+1)*out], x.Data[c*in:(c+1)*in], div, cols)
		}
	})
	return nil
}

// plane pools one plane row by row (an average when div is set, else the max). For each
// window row kh and column kw it sweeps every output of the row whose tap falls inside x, so
// the inner loop is one load and one add (or compare) per output, with no per-window
// bookkeeping. Every output still combines its taps in (kh, kw) order, skipping padding and
// (ceil mode) the overhang past it, as the reference does, so the two agree exactly. cols
// holds the column extents of a divisor that varies by window (nil otherwise).
func (p *pool2d) plane(y, x []float32, div *avgDivisor, cols []int) {
	kh, kw, sh, sw, ph, pw := p.KernelSize[0], p.KernelSize[1], p.Stride[0], p.Stride[1], p.Padding[0], p.Padding[1]
	for oh := range p.HOut {
		row := y[oh*p.WOut : (oh+1)*p.WOut]
		fill := float32(0)
		if div == nil {
			fill = float32(math.Inf(-1))
		}
		for i := range row {
			row[i] = fill
		}
		for i := range kh {
			ih := oh*sh - ph + i
			if ih < 0 || ih >= p.H {
				continue
			}
			src := x[ih*p.W : (ih+1)*p.W]
			for j := range kw {
				// Output ow reads column ow·sw + off, inside x for lo <= ow < hi.
				off := j - pw
				lo, hi := 0, 0
				if off < 0 {
					lo = (-off + sw - 1) / sw
				}
				if last := p.W - 1 - off; last >= 0 {
					hi = min(p.WOut, last/sw+1)
				}
				if div == nil {
					// The builtin max is branch-free on amd64 (a mispredicted branch per
					// new maximum costs more than the compare) and propagates NaN, as torch.
					for ow := lo; ow < hi; ow++ {
						row[ow] = max(row[ow], src[ow*sw+off])
					}
				} else {
					for ow := lo; ow < hi; ow++ {
						row[ow] += src[ow*sw+off]
					}
				}
			}
		}
		if div == nil {
			continue
		}
		if d, ok := div.uniform(p); ok {
			for ow := range row {
				row[ow] /= d
			}
			continue
		}
		dh := div.rowExtent(p, oh)
		for ow, dw := range cols[:len(row)] {
			row[ow] /= float32(dh * dw)
		}
	}
}

// reference is the pool's definition, window by window: combine the taps of x in (kh, kw)
// order, skipping padding and the overhang past it; the average divides by div's divisor.
func (p *pool2d) reference(y, x *Tensor, div *avgDivisor) {
	i := 0
	for c := range p.N * p.C {
		plane := x.Data[c*p.H*p.W : (c+1)*p.H*p.W]
		for oh := range p.HOut {
			for ow := range p.WOut {
				acc := float32(0)
				if div == nil {
					acc = float32(math.Inf(-1))
				}
				for kh := range p.KernelSize[0] {
					for kw := range p.KernelSize[1] {
						ih, iw := oh*p.Stride[0]-p.Padding[0]+kh, ow*p.Stride[1]-p.Padding[1]+kw
						if ih < 0 || ih >= p.H || iw < 0 || iw >= p.W {
							continue
						}
						if v := plane[ih*p.W+iw]; div == nil {
							acc = max(acc, v)
						} else {
							acc += v
						}
					}
				}
				if div != nil {
					acc /= div.of(p, oh, ow)
				}
				y.Data[i] = acc
				i++
			}
		}
	}
}

// AvgPool2dFwd is torch.nn.functional.avg_pool2d: each output is the sum of its window's
// elements of x divided by divisor_override when set, else by the window's size, the
// padding counted (count_include_pad) or not; a ceil-mode window's overhang past the
// padding never counts.
type AvgPool2dFwd struct {
	pool2d
	CountIncludePad bool
	DivisorOverride *int
}

// NewAvgPool2dFwd returns an average pool over an input of shape x over dtype dt.
func NewAvgPool2dFwd(x [4]int, kernelSize, stride, padding [2]int, ceilMode, countIncludePad bool, divisorOverride *int, dt DType) (*AvgPool2dFwd, error) {
	p, err := newPool2d("AvgPool2dFwd", x, kernelSize, stride, padding, ceilMode, dt)
	if err != nil {
		return nil, err
	}
	if divisorOverride != nil && *divisorOverride == 0 {
		return nil, fmt.Errorf("AvgPool2dFwd: divisor_override must not be 0")
	}
	return &AvgPool2dFwd{p, countIncludePad, divisorOverride}, nil
}

func (op *AvgPool2dFwd) divisor() *avgDivisor {
	return &avgDivisor{override: op.DivisorOverride, includePad: op.CountIncludePad}
}

// Bind checks x and returns y's shape.
func (op *AvgPool2dFwd) Bind(x *Tensor) ([]int, error) { return op.bind("AvgPool2dFwd", x) }

// Forward computes y = avg_pool2d(x).
func (op *AvgPool2dFwd) Forward(y, x *Tensor) error {
	return op.forward("AvgPool2dFwd", y, x, op.divisor())
}

func (op *AvgPool2dFwd) reference(y, x *Tensor) { op.pool2d.reference(y, x, op.divisor()) }

// MaxPool2dFwd is torch.nn.functional.max_pool2d: each output is the largest element of x
// in its window (padding never wins), NaN if the window holds one.
type MaxPool2dFwd struct{ pool2d }

// NewMaxPool2dFwd returns a max pool over an input of shape x over dtype dt.
func NewMaxPool2dFwd(x [4]int, kernelSize, stride, padding [2]int, ceilMode bool, dt DType) (*MaxPool2dFwd, error) {
	p, err := newPool2d("MaxPool2dFwd", x, kernelSize, stride, padding, ceilMode, dt)
	if err != nil {
		return nil, err
	}
	return &MaxPool2dFwd{p}, nil
}

// Bind checks x and returns y's shape.
func (op *MaxPool2dFwd) Bind(x *Tensor) ([]int, error) { return op.bind("MaxPool2dFwd", x) }

// Forward computes y = max_pool2d(x).
func (op *MaxPool2dFwd) Forward(y, x *Tensor) error {
	return op.forward("MaxPool2dFwd", y, x, nil)
}

func (op *MaxPool2dFwd) reference(y, x *Tensor) { op.pool2d.reference(y, x, nil) }
