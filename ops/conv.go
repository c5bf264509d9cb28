package ops

import "fmt"

// Conv2dFwd is torch.nn.functional.conv2d over NCHW tensors with square stride, padding and
// dilation, and groups: y = x ⋆ weight + bias with x [N, C_in, H, W], weight
// [C_out, C_in/groups, KH, KW], the optional bias [C_out] and y [N, C_out, H_out, W_out],
// where H_out = (H + 2·padding - dilation·(KH-1) - 1) / stride + 1 (floor), and W_out
// likewise. Group g convolves input channels [g·C_in/groups, (g+1)·C_in/groups) into output
// channels [g·C_out/groups, (g+1)·C_out/groups).
//
// Forward lowers each image to matrix products (im2col): the KH·KW taps (dilation apart) of
// every input channel become the rows of a [C_in·KH·KW, H_out·W_out] matrix; the rows of
// group g are one contiguous block, and the group's weights viewed as
// [C_out/groups, C_in/groups·KH·KW] multiply it with the gemm kernel, one product per group.
// A 1x1 convolution with stride 1 and no padding is already that matrix and skips the
// lowering.
type Conv2dFwd struct {
	N, CIn, H, W, COut, KH, KW, HOut, WOut int
	Stride, Padding, Dilation, Groups      int
	DType                                  DType
	// BiasShape is [C_out] when the op has a bias and nil otherwise (the roofline's
	// `bias != nil`); the constructor sets it.
	BiasShape []int
}

// NewConv2dFwd returns a convolution of an input of shape x by a weight of shape weight
// ([C_out, C_in/groups, KH, KW]), with a bias when withBias, over dtype dt. It computes
// H_out and W_out.
func NewConv2dFwd(x, weight [4]int, stride, padding, dilation, groups int, withBias bool, dt DType) (*Conv2dFwd, error) {
	op := &Conv2dFwd{N: x[0], CIn: x[1], H: x[2], W: x[3], COut: weight[0], KH: weight[2], KW: weight[3],
		Stride: stride, Padding: padding, Dilation: dilation, Groups: groups, DType: dt}
	err := checkDims("Conv2dFwd", dimArg{"N", op.N}, dimArg{"C_in", op.CIn}, dimArg{"H", op.H}, dimArg{"W", op.W},
		dimArg{"C_out", op.COut}, dimArg{"weight C_in", weight[1]}, dimArg{"KH", op.KH}, dimArg{"KW", op.KW})
	if err != nil {
		return nil, err
	}
	switch {
	case groups < 1:
		return nil, fmt.Errorf("Conv2dFwd: groups is %d; it must be at least 1", groups)
	case op.CIn%groups != 0 || op.COut%groups != 0:
		return nil, fmt.Errorf("Conv2dFwd: groups %d must divide C_in %d and C_out %d", groups, op.CIn, op.COut)
	case weight[1] != op.CIn/groups:
		return nil, fmt.Errorf("Conv2dFwd: weight %v has %d input channels per group, x %v with %d groups has %d",
			weight, weight[1], x, groups, op.CIn/groups)
	case stride < 1:
		return nil, fmt.Errorf("Conv2dFwd: stride is %d; it must be at least 1", stride)
	case padding < 0:
		return nil, fmt.Errorf("Conv2dFwd: padding is %d; it must not be negative", padding)
	case dilation < 1:
		return nil, fmt.Errorf("Conv2dFwd: dilation is %d; it must be at least 1", dilation)
	}
	// The dilated window spans dilation·(k-1) + 1 input positions.
	if op.HOut, err = convOut("Conv2dFwd", "H", op.H, dilation*(op.KH-1)+1, stride, padding); err != nil {
		return nil, err
	}
	if op.WOut, err = convOut("Conv2dFwd", "W", op.W, dilation*(op.KW-1)+1, stride, padding); err != nil {
		return nil, err
	}
	if err := checkCube("Conv2dFwd", dt); err != nil {
		return nil, err
	}
	if withBias {
		op.BiasShape = []int{op.COut}
	}
	return op, nil
}

// convOut is the output size of a window of size k sliding by stride over size in padded by
// padding on both sides: the shape rule of manifest/conv.yaml, out = (in + 2·padding - k) /
// stride + 1.
func convOut(op, dim string, in, k, stride, padding int) (int, error) {
	span := in + 2*padding - k
	if span < 0 {
		return 0, fmt.Errorf("%s: the window (%d) is larger than %s padded (%d + 2·%d)", op, k, dim, in, padding)
	}
	return span/stride + 1, nil
}

// ComputeRoof is the matrix unit at the op's dtype (docs/model.md §3.2).
func (op *Conv2dFwd) ComputeRoof() string { return cubeRoof(op.DType) }

// Bind checks the inputs against the op's shapes, dtype and bias and returns y's shape.
func (op *Conv2dFwd) Bind(x, weight, bias *Tensor) ([]int, error) {
	if err := checkFixed("Conv2dFwd", "x", x, op.DType, op.N, op.CIn, op.H, op.W); err != nil {
		return nil, err
	}
	if err := checkFixed("Conv2dFwd", "weight", weight, op.DType, op.COut, op.CIn/op.Groups, op.KH, op.KW); err != nil {
		return nil, err
	}
	switch {
	case op.BiasShape == nil && bias != nil:
		return nil, fmt.Errorf("Conv2dFwd: got a bias %v, the op was built without one", bias)
	case op.BiasShape != nil:
		if err := checkFixed("Conv2dFwd", "bias", bias, op.DType, op.COut); err != nil {
			return nil, err
		}
	}
	return []int{op.N, op.COut, op.HOut, op.WOut}, nil
}

// Forward computes y = conv2d(x, weight) + bias image by image.
func (op *Conv2dFwd) Forward(y, x, weight, bias *Tensor) error {
	shape, err := op.Bind(x, weight, bias)
	if err != nil {
		return err
	}
	if err := checkData("Conv2dFwd", []string{"x", "weight"}, x, weight); err != nil {
		return err
	}
	if bias != nil {
		if err := bias.checkData("Conv2dFwd", "bias"); err != nil {
			return err
		}
	}
	if err := checkOutput("Conv2dFwd", y, op.DType, shape); err != nil {
		return err
	}
	taps, hw := op.CIn*op.KH*op.KW, op.HOut*op.WOut
	gTaps, gOut := taps/op.Groups, op.COut/op.Groups // one group's rows of cols and of y
	direct := op.KH == 1 && op.KW == 1 && op.Stride == 1 && op.Padding == 0
	var cols []float32
	if !direct {
		// The column matrix comes from the GEMM's buffer pool: a convolution in a timing
		// loop does not allocate and zero it per call (im2col writes every element).
		buf := gemmBufs.Get().(*packBuf)
		defer gemmBufs.Put(buf)
		buf.cols = grow(buf.cols, taps*hw)
		cols = buf.cols
	}
	for n := range op.N {
		img := x.Data[n*op.CIn*op.H*op.W : (n+1)*op.CIn*op.H*op.W]
		if direct {
			cols = img // [C_in, H·W] is already the [taps, H_out·W_out] matrix
		} else {
			op.im2col(img, cols)
		}
		out := y.Data[n*op.COut*hw : (n+1)*op.COut*hw]
		for g := range op.Groups {
			w := rowMajor(weight.Data[g*gOut*gTaps:(g+1)*gOut*gTaps], gTaps)
			gemm(gOut, hw, gTaps, w, rowMajor(cols[g*gTaps*hw:(g+1)*gTaps*hw], hw), out[g*gOut*hw:(g+1)*gOut*hw])
		}
		addChannelBias(out, bias, hw)
	}
	return nil
}

// im2col writes the [C_in·KH·KW, H_out·W_out] matrix of one image: row (c, kh, kw), column
// (oh, ow) holds x[c, oh·stride - padding + kh·dilation, ow·stride - padding + kw·dilation],
// zero where that falls on padding. The rows are ordered as the reference sums its taps.
func (op *Conv2dFwd) im2col(img, cols []float32) {
	hw := op.HOut * op.WOut
	parallelFor(op.CIn*op.KH*op.KW, max(1, grainElems/hw), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			c, kh, kw := r/(op.KH*op.KW), r/op.KW%op.KH*op.Dilation, r%op.KW*op.Dilation
			plane := img[c*op.H*op.W : (c+1)*op.H*op.W]
			row := cols[r*hw : (r+1)*hw]
			for oh := range op.HOut {
				ih := oh*op.Stride - op.Padding + kh
				dst := row[oh*op.WOut : (oh+1)*op.WOut]
				if ih < 0 || ih >= op.H {
					clear(dst)
					continue
				}
				src := plane[ih*op.W : (ih+1)*op.W]
				if op.Stride == 1 {
					// ow reads iw = ow - padding + kw: one contiguous run between zeros.
					lo := min(max(op.Padding-kw, 0), len(dst))
					hi := max(min(op.W+op.Padding-kw, len(dst)), lo)
					clear(dst[:lo])
					copy(dst[lo:hi], src[lo-op.Padding+kw:])
					clear(dst[hi:])
					continue
				}
				for ow := range dst {
					iw := ow*op.Stride - op.Padding + kw
					if iw < 0 || iw >= op.W {
						dst[ow] = 0
					} else {
						dst[ow] = src[iw]
					}
				}
			}
		}
	})
}

// addChannelBias adds bias[c] to every element of channel c of one image (channels of hw
// elements); nothing when bias is nil.
func addChannelBias(out []float32, bias *Tensor, hw int) {
	if bias == nil {
		return
	}
	for c, v := range bias.Data {
		ch := out[c*hw : (c+1)*hw]
		for i := range ch {
			ch[i] += v
		}
	}
}

// reference is the convolution's definition: for every output, one running sum over the
// (c, kh, kw) of its group in order, skipping taps on padding, then the bias.
func (op *Conv2dFwd) reference(y, x, weight, bias *Tensor) {
	i := 0
	cg, og := op.CIn/op.Groups, op.COut/op.Groups // channels per group, in and out
	for n := range op.N {
		for co := range op.COut {
			c0 := co / og * cg // the group's first input channel
			for oh := range op.HOut {
				for ow := range op.WOut {
					var acc float32
					for c := range cg {
						for kh := range op.KH {
							ih := oh*op.Stride - op.Padding + kh*op.Dilation
							for kw := range op.KW {
								iw := ow*op.Stride - op.Padding + kw*op.Dilation
								if ih < 0 || ih >= op.H || iw < 0 || iw >= op.W {
									continue
								}
								acc += x.Data[((n*op.CIn+c0+c)*op.H+ih)*op.W+iw] * weight.Data[((co*cg+c)*op.KH+kh)*op.KW+kw]
							}
						}
					}
					if bias != nil {
						acc += bias.Data[co]
					}
					y.Data[i] = acc
					i++
				}
			}
		}
	}
}
