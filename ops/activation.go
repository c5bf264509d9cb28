package ops

import (
	"fmt"
	"math"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// Activations of the activation family: exact gelu, softplus, mish, elu and hardswish. They
// are unary ops like the elementwise family's and share its machinery (bindUnary,
// unaryForward, unaryReference, buildUnary in elementwise.go); the kernels take no
// data-dependent branch in the common range, so random-signed activations do not
// mispredict.

// GeluErfFwd is torch.nn.functional.gelu with approximate="none":
// y = 0.5 * x * (1 + erf(x / sqrt(2))).
type GeluErfFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewGeluErfFwd returns an exact (erf) gelu over dtype dt.
func NewGeluErfFwd(dt DType) (*GeluErfFwd, error) {
	if err := checkDType("GeluErfFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &GeluErfFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *GeluErfFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("GeluErfFwd", op.DType, &op.XShape, x)
}

// Forward computes out = gelu(x). |x| < sqrt(2), where most activations lie, takes erf's
// polynomial; beyond it erfc (see erf1p), a branch taken rarely enough to predict.
func (op *GeluErfFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "GeluErfFwd", out, x, unaryStreamed(uGeluErf, x))
}

func (op *GeluErfFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 { return 0.5 * v * math.Erfc(-v/math.Sqrt2) })
}

// SoftplusFwd is torch.nn.functional.softplus with its defaults beta = 1, threshold = 20:
// y = x if x > 20 else log(1 + exp(x)).
type SoftplusFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewSoftplusFwd returns a softplus over dtype dt.
func NewSoftplusFwd(dt DType) (*SoftplusFwd, error) {
	if err := checkDType("SoftplusFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &SoftplusFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *SoftplusFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("SoftplusFwd", op.DType, &op.XShape, x)
}

// Forward computes out = softplus(x).
func (op *SoftplusFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "SoftplusFwd", out, x, unaryStreamed(uSoftplus, x))
}

func (op *SoftplusFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 {
		if v > softplusThreshold {
			return v
		}
		return math.Log1p(math.Exp(v))
	})
}

// MishFwd is torch.nn.functional.mish: y = x * tanh(softplus(x)).
type MishFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewMishFwd returns a mish over dtype dt.
func NewMishFwd(dt DType) (*MishFwd, error) {
	if err := checkDType("MishFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &MishFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *MishFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("MishFwd", op.DType, &op.XShape, x)
}

// Forward computes out = mish(x) with one exp instead of exp, log1p and tanh (see mish).
// The manifest counts the definition's 4 FLOPs all the same (docs/model.md §2.1).
func (op *MishFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "MishFwd", out, x, unaryStreamed(uMish, x))
}

func (op *MishFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 { return v * math.Tanh(math.Log1p(math.Exp(v))) })
}

// EluFwd is torch.nn.functional.elu: y = x if x > 0 else alpha * (exp(x) - 1).
type EluFwd struct {
	DType  DType
	Alpha  float64
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewEluFwd returns an elu with the given alpha over dtype dt.
func NewEluFwd(alpha float64, dt DType) (*EluFwd, error) {
	if err := checkDType("EluFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("EluFwd: alpha %v is not finite", alpha)
	}
	return &EluFwd{DType: dt, Alpha: alpha}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *EluFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("EluFwd", op.DType, &op.XShape, x)
}

// Forward computes out = elu(x), without a branch (see elu). A large output is streamed
// (f32.EluNT).
func (op *EluFwd) Forward(out, x *Tensor) error {
	alpha := float32(op.Alpha)
	loop := func(y, x []float32) {
		i := f32.Elu(y, x, alpha, elu)
		y, x = y[i:len(x)], x[i:]
		for i, v := range x {
			y[i] = elu(v, alpha)
		}
	}
	nt := func(y, x []float32) (int, int) { return f32.EluNT(y, x, alpha, elu) }
	return unaryForward(op, "EluFwd", out, x, streamed(x, nt, loop))
}

func (op *EluFwd) reference(out, x *Tensor) {
	alpha := float64(float32(op.Alpha)) // the kernel's alpha, rounded as it is
	unaryReference(out, x, func(v float64) float64 {
		if v > 0 {
			return v
		}
		return alpha * (math.Exp(v) - 1)
	})
}

// HardswishFwd is torch.nn.functional.hardswish: y = x * clamp(x + 3, 0, 6) / 6.
type HardswishFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewHardswishFwd returns a hardswish over dtype dt.
func NewHardswishFwd(dt DType) (*HardswishFwd, error) {
	if err := checkDType("HardswishFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &HardswishFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *HardswishFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("HardswishFwd", op.DType, &op.XShape, x)
}

// Forward computes out = hardswish(x).
func (op *HardswishFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "HardswishFwd", out, x, unaryStreamed(uHardswish, x))
}

func (op *HardswishFwd) reference(out, x *Tensor) {
	unaryReference(out, x, func(v float64) float64 { return v * math.Min(math.Max(v+3, 0), 6) / 6 })
}

// eluTol: exp(x) - 1 near x = 0 keeps expf's error in units of 1 (about 1.2e-7 per ulp), not
// of the small result, so the absolute part is two ulps of 1, times alpha (1 in the
// catalog).
var eluTol = Tol{Abs: 2.5e-7, Rel: 1e-6}
