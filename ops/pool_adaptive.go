package ops

import (
	"math"

	"github.com/ropgen/ropgen/perf/formulas"
)

// adaptivePool2d is the geometry of torch's adaptive pools: x [N, C, H, W] to y
// [N, C, H_out, W_out], output (i, j) pooling the bin of rows [floor(i·H/H_out),
// ceil((i+1)·H/H_out)) and columns likewise. Bins differ in size by one when H_out does not
// divide H, and neighbours overlap; H_out may exceed H (bins then repeat rows). Its fields
// are the ops' roofline fields (promoted).
type adaptivePool2d struct {
	N, C, H, W, HOut, WOut int
	DType                  DType
}

func newAdaptivePool2d(op string, x [4]int, out [2]int, dt DType) (adaptivePool2d, error) {
	p := adaptivePool2d{N: x[0], C: x[1], H: x[2], W: x[3], HOut: out[0], WOut: out[1], DType: dt}
	if err := checkDType(op, dt, floatDTypes...); err != nil {
		return p, err
	}
	return p, checkDims(op, dimArg{"N", p.N}, dimArg{"C", p.C}, dimArg{"H", p.H}, dimArg{"W", p.W},
		dimArg{"H_out", p.HOut}, dimArg{"W_out", p.WOut})
}

// AdaptivePoolShape is what formulas.AdaptiveAvgPool2d and AdaptiveMaxPool2d read.
func (p *adaptivePool2d) AdaptivePoolShape() formulas.AdaptivePoolShape {
	return formulas.AdaptivePoolShape{N: p.N, C: p.C, H: p.H, W: p.W, HOut: p.HOut, WOut: p.WOut, ElemBytes: p.DType.Size()}
}

// adaptiveBin returns bin i of in positions split into out: [floor(i·in/out),
// ceil((i+1)·in/out)).
func adaptiveBin(i, in, out int) (start, end int) {
	return i * in / out, ((i+1)*in + out - 1) / out
}

func (p *adaptivePool2d) bind(op string, x *Tensor) ([]int, error) {
	if err := checkFixed(op, "x", x, p.DType, p.N, p.C, p.H, p.W); err != nil {
		return nil, err
	}
	return []int{p.N, p.C, p.HOut, p.WOut}, nil
}

// forward binds x, checks the tensors and pools the planes on both cores.
func (p *adaptivePool2d) forward(op string, y, x *Tensor, isMax bool) error {
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
	// The column bins, once per call: [cols[2j], cols[2j+1]).
	cols := make([]int, 2*p.WOut)
	for j := range p.WOut {
		cols[2*j], cols[2*j+1] = adaptiveBin(j, p.W, p.WOut)
	}
	in, out := p.H*p.W, p.HOut*p.WOut
	parallelFor(p.N*p.C, max(1, grainElems/in), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			p.plane(y.Data[c*out:(c+1)*out], x.Data[c*in:(c+1)*in], cols, isMax)
		}
	})
	return nil
}

// plane pools one plane: for each output row, each input row of its bin is swept once
// across every output of the row, so each output combines its bin in (row, column) order,
// as the reference does: the two agree exactly.
func (p *adaptivePool2d) plane(y, x []float32, cols []int, isMax bool) {
	for oh := range p.HOut {
		row := y[oh*p.WOut : (oh+1)*p.WOut]
		fill := float32(0)
		if isMax {
			fill = float32(math.Inf(-1))
		}
		for i := range row {
			row[i] = fill
		}
		hs, he := adaptiveBin(oh, p.H, p.HOut)
		for ih := hs; ih < he; ih++ {
			src := x[ih*p.W : (ih+1)*p.W]
			for ow := range row {
				acc := row[ow]
				for _, v := range src[cols[2*ow]:cols[2*ow+1]] {
					if isMax {
						acc = max(acc, v)
					} else {
						acc += v
					}
				}
				row[ow] = acc
			}
		}
		if !isMax {
			for ow := range row {
				row[ow] /= float32((he - hs) * (cols[2*ow+1] - cols[2*ow]))
			}
		}
	}
}

// reference is the adaptive pool's definition, output by output: the bin's bounds from the
// floor and ceil divisions (in float64, independent of adaptiveBin's integers), its elements
// combined in (row, column) order, the average divided by the bin's size.
func (p *adaptivePool2d) reference(y, x *Tensor, isMax bool) {
	bin := func(i, in, out int) (int, int) {
		return int(math.Floor(float64(i*in) / float64(out))), int(math.Ceil(float64((i+1)*in) / float64(out)))
	}
	k := 0
	for c := range p.N * p.C {
		plane := x.Data[c*p.H*p.W : (c+1)*p.H*p.W]
		for oh := range p.HOut {
			hs, he := bin(oh, p.H, p.HOut)
			for ow := range p.WOut {
				ws, we := bin(ow, p.W, p.WOut)
				acc := float32(0)
				if isMax {
					acc = float32(math.Inf(-1))
				}
				for ih := hs; ih < he; ih++ {
					for iw := ws; iw < we; iw++ {
						if v := plane[ih*p.W+iw]; isMax {
							acc = max(acc, v)
						} else {
							acc += v
						}
					}
				}
				if !isMax {
					acc /= float32((he - hs) * (we - ws))
				}
				y.Data[k] = acc
				k++
			}
		}
	}
}

// AdaptiveAvgPool2dFwd is torch.nn.functional.adaptive_avg_pool2d: each output is the mean
// of its bin of x.
type AdaptiveAvgPool2dFwd struct{ adaptivePool2d }

// NewAdaptiveAvgPool2dFwd returns an adaptive average pool of an input of shape x to the
// output size out ([H_out, W_out]) over dtype dt.
func NewAdaptiveAvgPool2dFwd(x [4]int, out [2]int, dt DType) (*AdaptiveAvgPool2dFwd, error) {
	p, err := newAdaptivePool2d("AdaptiveAvgPool2dFwd", x, out, dt)
	if err != nil {
		return nil, err
	}
	return &AdaptiveAvgPool2dFwd{p}, nil
}

// Bind checks x and returns y's shape.
func (op *AdaptiveAvgPool2dFwd) Bind(x *Tensor) ([]int, error) {
	return op.bind("AdaptiveAvgPool2dFwd", x)
}

// Forward computes y = adaptive_avg_pool2d(x).
func (op *AdaptiveAvgPool2dFwd) Forward(y, x *Tensor) error {
	return op.forward("AdaptiveAvgPool2dFwd", y, x, false)
}

func (op *AdaptiveAvgPool2dFwd) reference(y, x *Tensor) { op.adaptivePool2d.reference(y, x, false) }

// AdaptiveMaxPool2dFwd is torch.nn.functional.adaptive_max_pool2d (values only): each
// output is the largest element of its bin, NaN if the bin holds one.
type AdaptiveMaxPool2dFwd struct{ adaptivePool2d }

// NewAdaptiveMaxPool2dFwd returns an adaptive max pool of an input of shape x to the output
// size out ([H_out, W_out]) over dtype dt.
func NewAdaptiveMaxPool2dFwd(x [4]int, out [2]int, dt DType) (*AdaptiveMaxPool2dFwd, error) {
	p, err := newAdaptivePool2d("AdaptiveMaxPool2dFwd", x, out, dt)
	if err != nil {
		return nil, err
	}
	return &AdaptiveMaxPool2dFwd{p}, nil
}

// Bind checks x and returns y's shape.
func (op *AdaptiveMaxPool2dFwd) Bind(x *Tensor) ([]int, error) {
	return op.bind("AdaptiveMaxPool2dFwd", x)
}

// Forward computes y = adaptive_max_pool2d(x).
func (op *AdaptiveMaxPool2dFwd) Forward(y, x *Tensor) error {
	return op.forward("AdaptiveMaxPool2dFwd", y, x, true)
}

func (op *AdaptiveMaxPool2dFwd) reference(y, x *Tensor) { op.adaptivePool2d.reference(y, x, true) }
