package ops

import (
	"fmt"
	"math"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// Unary elementwise ops: y = f(x) over a tensor of any rank. Each op is its own type (the
// manifest names Go types) with the fields its roofline binds: DType, and XShape, which
// Bind (called by Forward) records. The kernels share bindUnary and unaryForward; each
// passes the loop over one contiguous range, so the element function inlines.

// unaryOp is what the unary ops have in common, for unaryForward.
type unaryOp interface {
	Bind(x *Tensor) ([]int, error)
}

// bindUnary checks x against the op's dtype, records its shape and returns the output shape.
func bindUnary(op string, dt DType, xshape *[]int, x *Tensor) ([]int, error) {
	if err := checkInput(op, "x", x, dt); err != nil {
		return nil, err
	}
	bindShape(xshape, x.Shape)
	return x.Shape, nil
}

// unaryForward binds x, checks the tensors and runs loop over contiguous ranges of x and
// out, on both cores for large inputs.
func unaryForward(op unaryOp, name string, out, x *Tensor, loop func(y, x []float32)) error {
	shape, err := op.Bind(x)
	if err != nil {
		return err
	}
	if err := x.checkData(name, "x"); err != nil {
		return err
	}
	if err := checkOutput(name, out, x.DType, shape); err != nil {
		return err
	}
	parallelFor(len(x.Data), grainElems, func(lo, hi int) { loop(out.Data[lo:hi], x.Data[lo:hi]) })
	return nil
}

// unaryReference is the plain reference: f in float64 over every element, serially.
func unaryReference(out, x *Tensor, f func(float64) float64) {
	for i, v := range x.Data {
		out.Data[i] = float32(f(float64(v)))
	}
}

// ReluFwd is torch.relu: y = max(x, 0).
type ReluFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewReluFwd returns a relu over dtype dt.
func NewReluFwd(dt DType) (*ReluFwd, error) {
	if err := checkDType("ReluFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &ReluFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *ReluFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("ReluFwd", op.DType, &op.XShape, x)
}

// streamMinBytes is the output size from which the kernels that have a streaming form
// (ntRelu, ntLeakyRelu, ntClamp, ntArith) write with non-temporal stores: about a server
// CPU's last-level cache. A smaller output may still be in cache when the next op reads it, and non-temporal stores would evict it to DRAM. A variable only so that tests
// can compare the streamed and the cached paths of one op.
var streamMinBytes = 32 << 20

// streams reports whether an output of n float32 elements takes the streaming path.
func streams(n int) bool { return n*4 >= streamMinBytes }

// streamed returns the loop of a unary kernel over x (nil: Forward reports it): loop
// itself, or for a large output one that streams each range's aligned lines with nt and
// computes only their unaligned head and tail (at most 15 elements each) with loop.
func streamed(x *Tensor, nt func(y, x []float32) (s, e int), loop func(y, x []float32)) func(y, x []float32) {
	if x == nil || !streams(len(x.Data)) {
		return loop
	}
	return func(y, x []float32) {
		s, e := nt(y, x)
		loop(y[:s], x[:s])
		loop(y[e:], x[e:])
	}
}

// Forward computes out = relu(x). A large output is streamed (ntRelu).
func (op *ReluFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "ReluFwd", out, x, streamed(x, ntRelu, relu))
}

// relu is the in-cache kernel: y = max(x, 0), which keeps NaN (clearing its sign bit) and
// maps -0 to +0.
func relu(y, x []float32) {
	i := f32.Relu(y, x)
	y, x = y[i:len(x)], x[i:]
	for i, v := range x {
		y[i] = max(v, 0)
	}
}

func (op *ReluFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 {
		if v > 0 {
			return v
		}
		return 0
	})
}

// LeakyReluFwd is torch.nn.functional.leaky_relu: y = x if x > 0 else negative_slope * x.
type LeakyReluFwd struct {
	DType         DType
	NegativeSlope float64
	XShape        []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewLeakyReluFwd returns a leaky relu with the given slope for x < 0 over dtype dt.
func NewLeakyReluFwd(negativeSlope float64, dt DType) (*LeakyReluFwd, error) {
	if err := checkDType("LeakyReluFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	if math.IsNaN(negativeSlope) || math.IsInf(negativeSlope, 0) {
		return nil, fmt.Errorf("LeakyReluFwd: negative_slope %v is not finite", negativeSlope)
	}
	return &LeakyReluFwd{DType: dt, NegativeSlope: negativeSlope}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *LeakyReluFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("LeakyReluFwd", op.DType, &op.XShape, x)
}

// Forward computes out = leaky_relu(x). The factor is picked by the sign bit, not by a
// branch: on activations, whose signs are random, a branch mispredicts every other element
// and costs several times the element's memory time. A large output is streamed
// (ntLeakyRelu, which picks the factor by the sign bit too).
func (op *LeakyReluFwd) Forward(out, x *Tensor) error {
	factor := [2]float32{1, float32(op.NegativeSlope)}
	nt := func(y, x []float32) (int, int) { return ntLeakyRelu(y, x, factor[1]) }
	return unaryForward(op, "LeakyReluFwd", out, x, streamed(x, nt, func(y, x []float32) {
		i := f32.LeakyRelu(y, x, factor[1])
		y, x = y[i:len(x)], x[i:]
		for i, v := range x {
			y[i] = v * factor[math.Float32bits(v)>>31]
		}
	}))
}

func (op *LeakyReluFwd) reference(out, x *Tensor) {
	s := float64(float32(op.NegativeSlope)) // the kernel's slope, rounded as it is
	unaryReference(out, x, func(v float64) float64 {
		if v > 0 {
			return v
		}
		return s * v
	})
}

// ExpFwd is torch.exp.
type ExpFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewExpFwd returns an exp over dtype dt.
func NewExpFwd(dt DType) (*ExpFwd, error) {
	if err := checkDType("ExpFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &ExpFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *ExpFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("ExpFwd", op.DType, &op.XShape, x)
}

// Forward computes out = exp(x).
func (op *ExpFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "ExpFwd", out, x, unaryStreamed(uExp, x))
}

func (op *ExpFwd) reference(out, x *Tensor) { unaryReference(out, x, math.Exp) }

// TanhFwd is torch.tanh.
type TanhFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewTanhFwd returns a tanh over dtype dt.
func NewTanhFwd(dt DType) (*TanhFwd, error) {
	if err := checkDType("TanhFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &TanhFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *TanhFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("TanhFwd", op.DType, &op.XShape, x)
}

// Forward computes out = tanh(x).
func (op *TanhFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "TanhFwd", out, x, unaryStreamed(uTanh, x))
}

func (op *TanhFwd) reference(out, x *Tensor) { unaryReference(out, x, math.Tanh) }

// SigmoidFwd is torch.sigmoid: y = 1 / (1 + exp(-x)).
type SigmoidFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewSigmoidFwd returns a sigmoid over dtype dt.
func NewSigmoidFwd(dt DType) (*SigmoidFwd, error) {
	if err := checkDType("SigmoidFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &SigmoidFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *SigmoidFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("SigmoidFwd", op.DType, &op.XShape, x)
}

// Forward computes out = sigmoid(x).
func (op *SigmoidFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "SigmoidFwd", out, x, unaryStreamed(uSigmoid, x))
}

func (op *SigmoidFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) })
}

// SiluFwd is torch.nn.functional.silu: y = x * sigmoid(x).
type SiluFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewSiluFwd returns a silu over dtype dt.
func NewSiluFwd(dt DType) (*SiluFwd, error) {
	if err := checkDType("SiluFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &SiluFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *SiluFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("SiluFwd", op.DType, &op.XShape, x)
}

// Forward computes out = silu(x).
func (op *SiluFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "SiluFwd", out, x, unaryStreamed(uSilu, x))
}

func (op *SiluFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 { return v / (1 + math.Exp(-v)) })
}

// GeluFwd is torch.nn.functional.gelu with approximate="tanh":
// y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3))).
// Its 8 FLOPs per element (docs/model.md §2.1) are the formula's count (5 mul, 2 add, tanh); the
// kernel computes the equal x / (1 + e**-2z) (geluf).
type GeluFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewGeluFwd returns a tanh-approximated gelu over dtype dt.
func NewGeluFwd(dt DType) (*GeluFwd, error) {
	if err := checkDType("GeluFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &GeluFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *GeluFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("GeluFwd", op.DType, &op.XShape, x)
}

// Forward computes out = gelu_tanh(x).
func (op *GeluFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "GeluFwd", out, x, unaryStreamed(uGelu, x))
}

func (op *GeluFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
	})
}

// unaryTol is the kernel-vs-reference tolerance of the unary ops: the float32
// transcendentals are within a few ulp of float64 math (rel), and results near zero may be
// off by a few ulp of the intermediate terms (abs).
var unaryTol = Tol{Abs: 1e-7, Rel: 1e-6}
