package ops

import "fmt"

// LinearFwd is torch.nn.functional.linear: y = x·weightᵀ + bias with x [M, K], weight
// [N, K] (torch's layout: one row per output feature), the optional bias [N], y [M, N].
type LinearFwd struct {
	M, N, K int
	DType   DType
	// BiasShape is [N] when the op has a bias and nil when it has none: what the roofline's
	// `bias != nil` reads. The constructor sets it; a fixed-rank op knows it up front.
	BiasShape []int
}

// NewLinearFwd returns a linear layer from k to n features over m rows, with a bias when
// withBias, over dtype dt.
func NewLinearFwd(m, n, k int, withBias bool, dt DType) (*LinearFwd, error) {
	if err := checkDims("LinearFwd", dimArg{"M", m}, dimArg{"N", n}, dimArg{"K", k}); err != nil {
		return nil, err
	}
	if err := checkCube("LinearFwd", dt); err != nil {
		return nil, err
	}
	op := &LinearFwd{M: m, N: n, K: k, DType: dt}
	if withBias {
		op.BiasShape = []int{n}
	}
	return op, nil
}

// ComputeRoof is the matrix unit at the op's dtype (docs/model.md §3.2); the bias add is
// noise on it.
func (op *LinearFwd) ComputeRoof() string { return cubeRoof(op.DType) }

// Bind checks the inputs against the op's dims, dtype and bias, and returns y's shape. bias
// must be nil exactly when the op was built without one.
func (op *LinearFwd) Bind(x, weight, bias *Tensor) ([]int, error) {
	if err := checkFixed("LinearFwd", "x", x, op.DType, op.M, op.K); err != nil {
		return nil, err
	}
	if err := checkFixed("LinearFwd", "weight", weight, op.DType, op.N, op.K); err != nil {
		return nil, err
	}
	switch {
	case op.BiasShape == nil && bias != nil:
		return nil, fmt.Errorf("LinearFwd: got a bias %v, the op was built without one", bias)
	case op.BiasShape != nil:
		if err := checkFixed("LinearFwd", "bias", bias, op.DType, op.N); err != nil {
			return nil, err
		}
	}
	return []int{op.M, op.N}, nil
}

// Forward computes y = x·weightᵀ + bias; the product reads weight through a transposed view.
func (op *LinearFwd) Forward(y, x, weight, bias *Tensor) error {
	shape, err := op.Bind(x, weight, bias)
	if err != nil {
		return err
	}
	if err := checkData("LinearFwd", []string{"x", "weight"}, x, weight); err != nil {
		return err
	}
	if bias != nil {
		if err := bias.checkData("LinearFwd", "bias"); err != nil {
			return err
		}
	}
	if err := checkOutput("LinearFwd", y, op.DType, shape); err != nil {
		return err
	}
	gemm(op.M, op.N, op.K, rowMajor(x.Data, op.K), rowMajor(weight.Data, op.K).t(), y.Data)
	addRowBias(y.Data, bias, op.N)
	return nil
}

func (op *LinearFwd) reference(y, x, weight, bias *Tensor) {
	gemmRef(op.M, op.N, op.K, rowMajor(x.Data, op.K), rowMajor(weight.Data, op.K).t(), y.Data)
	if bias != nil {
		for i := range op.M {
			for j := range op.N {
				y.Data[i*op.N+j] += bias.Data[j]
			}
		}
	}
}

// addRowBias adds bias[j] to element j of every row of y (rows of n); nothing when bias is
// nil. The adds come after the full sum, as in the reference.
func addRowBias(y []float32, bias *Tensor, n int) {
	if bias == nil {
		return
	}
	parallelFor(len(y)/n, max(1, grainElems/n), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := y[r*n : (r+1)*n]
			for j, v := range bias.Data[:n] {
				row[j] += v
			}
		}
	})
}
