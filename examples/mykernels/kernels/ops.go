package kernels

import "fmt"

// ScaleFwd is y = Alpha * x over any rank. Its formulas read x's shape, so Forward (and
// Bind) record it in XShape, and the generated roofline caches its result by that shape.
type ScaleFwd struct {
	roofline rooflineCache
	Alpha    float64
	XShape   []int
	DType    DType
}

// NewScaleFwd is the op for dtype dt.
func NewScaleFwd(alpha float64, dt DType) *ScaleFwd { return &ScaleFwd{Alpha: alpha, DType: dt} }

// Bind records x's shape and returns y's.
func (op *ScaleFwd) Bind(x *Tensor) []int {
	op.XShape = x.Shape
	return x.Shape
}

// Forward computes y = Alpha * x.
func (op *ScaleFwd) Forward(y, x *Tensor) error {
	op.Bind(x)
	a := float32(op.Alpha)
	for i, v := range x.Data {
		y.Data[i] = a * v
	}
	return nil
}

// Reference computes y in float64.
func (op *ScaleFwd) Reference(y, x *Tensor) {
	for i, v := range x.Data {
		y.Data[i] = float32(op.Alpha * float64(v))
	}
}

// MatVecFwd is y = a @ x for an M × K matrix a. Its dims are known at construction, so its
// roofline needs no Forward.
type MatVecFwd struct {
	M, K  int
	DType DType
}

// NewMatVecFwd is the op for an m × k matrix of dtype dt.
func NewMatVecFwd(m, k int, dt DType) (*MatVecFwd, error) {
	if m < 1 || k < 1 {
		return nil, fmt.Errorf("MatVecFwd: dims %d x %d", m, k)
	}
	return &MatVecFwd{M: m, K: k, DType: dt}, nil
}

// Forward computes y = a @ x, accumulating in float32.
func (op *MatVecFwd) Forward(y, a, x *Tensor) error {
	for i := range op.M {
		var s float32
		row := a.Data[i*op.K : (i+1)*op.K]
		for j, v := range row {
			s += v * x.Data[j]
		}
		y.Data[i] = s
	}
	return nil
}

// Reference computes y = a @ x, accumulating in float64.
func (op *MatVecFwd) Reference(y, a, x *Tensor) {
	for i := range op.M {
		var s float64
		for j := range op.K {
			s += float64(a.Data[i*op.K+j]) * float64(x.Data[j])
		}
		y.Data[i] = float32(s)
	}
}

// RowSumFwd is y[r] = the sum of row r of an R × C matrix; formulas.RowSum prices it.
type RowSumFwd struct {
	R, C  int
	DType DType
}

// RowSumDims is what formulas.RowSum reads: the dims and the element size.
func (op *RowSumFwd) RowSumDims() (r, c, elem int) { return op.R, op.C, op.DType.Size() }

// Forward computes the row sums, accumulating in float32.
func (op *RowSumFwd) Forward(y, x *Tensor) error {
	for r := range op.R {
		var s float32
		for _, v := range x.Data[r*op.C : (r+1)*op.C] {
			s += v
		}
		y.Data[r] = s
	}
	return nil
}

// Reference computes the row sums in float64.
func (op *RowSumFwd) Reference(y, x *Tensor) {
	for r := range op.R {
		var s float64
		for _, v := range x.Data[r*op.C : (r+1)*op.C] {
			s += float64(v)
		}
		y.Data[r] = float32(s)
	}
}
