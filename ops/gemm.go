package ops

import (
	"fmt"
	"runtime"
	"slices"
)

// Matrix ops: GemmFwd and BatchedGemmFwd here, LinearFwd in linear.go. They are fixed-rank:
// the constructor takes the dims, which is all their roofline reads, so EvalRoofline works
// right after it. Forward runs the blocked kernel of gemm_kernel.go; the reference is
// gemmRef's plain triple loop.

// dimArg is a named dim for checkDims.
type dimArg struct {
	name string
	v    int
}

// checkDims reports an error naming the first dim that is not positive.
func checkDims(op string, dims ...dimArg) error {
	for _, d := range dims {
		if d.v < 1 {
			return fmt.Errorf("%s: %s is %d; dims must be positive", op, d.name, d.v)
		}
	}
	return nil
}

// checkFixed reports an error unless the input t is present with dtype dt and exactly the
// shape the op was built for.
func checkFixed(op, name string, t *Tensor, dt DType, shape ...int) error {
	if err := checkInput(op, name, t, dt); err != nil {
		return err
	}
	if !slices.Equal(t.Shape, shape) {
		return fmt.Errorf("%s: input %s is %v, the op was built for shape %v", op, name, t, shape)
	}
	return nil
}

// checkData reports the first of ts (named by names) that holds no data: Forward refuses
// meta tensors.
func checkData(op string, names []string, ts ...*Tensor) error {
	for i, t := range ts {
		if err := t.checkData(op, names[i]); err != nil {
			return err
		}
	}
	return nil
}

// gemmTol is the kernel-vs-reference tolerance of a contraction over k terms. The vector
// kernels fuse each step's multiply and add (gemm_kernel.go) and the few-row dot products
// keep sixteen partial sums, so each of the k steps may round differently from gemmRef's
// by half an ulp of the running sum, which stays below k for inputs in [-1, 1). k·2^-20
// allows for that drift and still catches a wrong index, whose error is the size of the
// values. The kernels' bound against the exact sum is gemmErrorBound (gemm_kernels_test.go).
func gemmTol(k int) Tol { return Tol{Abs: float64(k) * 0x1p-20} }

// GemmFwd is torch.matmul on two matrices: c = a·b with a [M, K], b [K, N], c [M, N].
type GemmFwd struct {
	M, N, K int
	DType   DType
}

// NewGemmFwd returns an m×k by k×n matrix product over dtype dt.
func NewGemmFwd(m, n, k int, dt DType) (*GemmFwd, error) {
	if err := checkDims("GemmFwd", dimArg{"M", m}, dimArg{"N", n}, dimArg{"K", k}); err != nil {
		return nil, err
	}
	if err := checkCube("GemmFwd", dt); err != nil {
		return nil, err
	}
	return &GemmFwd{M: m, N: n, K: k, DType: dt}, nil
}

// ComputeRoof is the matrix unit at the op's dtype (docs/model.md §3.2).
func (op *GemmFwd) ComputeRoof() string { return cubeRoof(op.DType) }

// Bind checks a and b against the op's dims and dtype and returns c's shape.
func (op *GemmFwd) Bind(a, b *Tensor) ([]int, error) {
	if err := checkFixed("GemmFwd", "a", a, op.DType, op.M, op.K); err != nil {
		return nil, err
	}
	if err := checkFixed("GemmFwd", "b", b, op.DType, op.K, op.N); err != nil {
		return nil, err
	}
	return []int{op.M, op.N}, nil
}

// Forward computes c = a·b.
func (op *GemmFwd) Forward(c, a, b *Tensor) error {
	shape, err := op.Bind(a, b)
	if err != nil {
		return err
	}
	if err := checkData("GemmFwd", []string{"a", "b"}, a, b); err != nil {
		return err
	}
	if err := checkOutput("GemmFwd", c, op.DType, shape); err != nil {
		return err
	}
	gemm(op.M, op.N, op.K, rowMajor(a.Data, op.K), rowMajor(b.Data, op.N), c.Data)
	return nil
}

func (op *GemmFwd) reference(c, a, b *Tensor) {
	gemmRef(op.M, op.N, op.K, rowMajor(a.Data, op.K), rowMajor(b.Data, op.N), c.Data)
}

// BatchedGemmFwd is torch.bmm: c[i] = a[i]·b[i] with a [batch, M, K], b [batch, K, N],
// c [batch, M, N].
type BatchedGemmFwd struct {
	Batch, M, N, K int
	DType          DType
}

// NewBatchedGemmFwd returns batch independent m×k by k×n matrix products over dtype dt.
func NewBatchedGemmFwd(batch, m, n, k int, dt DType) (*BatchedGemmFwd, error) {
	if err := checkDims("BatchedGemmFwd", dimArg{"batch", batch}, dimArg{"M", m}, dimArg{"N", n}, dimArg{"K", k}); err != nil {
		return nil, err
	}
	if err := checkCube("BatchedGemmFwd", dt); err != nil {
		return nil, err
	}
	return &BatchedGemmFwd{Batch: batch, M: m, N: n, K: k, DType: dt}, nil
}

// ComputeRoof is the matrix unit at the op's dtype (docs/model.md §3.2).
func (op *BatchedGemmFwd) ComputeRoof() string { return cubeRoof(op.DType) }

// Bind checks a and b against the op's dims and dtype and returns c's shape.
func (op *BatchedGemmFwd) Bind(a, b *Tensor) ([]int, error) {
	if err := checkFixed("BatchedGemmFwd", "a", a, op.DType, op.Batch, op.M, op.K); err != nil {
		return nil, err
	}
	if err := checkFixed("BatchedGemmFwd", "b", b, op.DType, op.Batch, op.K, op.N); err != nil {
		return nil, err
	}
	return []int{op.Batch, op.M, op.N}, nil
}

// Forward computes c = a·b batch by batch: whole products per core when there are at least
// as many as cores, else each product on both cores.
func (op *BatchedGemmFwd) Forward(c, a, b *Tensor) error {
	shape, err := op.Bind(a, b)
	if err != nil {
		return err
	}
	if err := checkData("BatchedGemmFwd", []string{"a", "b"}, a, b); err != nil {
		return err
	}
	if err := checkOutput("BatchedGemmFwd", c, op.DType, shape); err != nil {
		return err
	}
	if op.Batch < runtime.GOMAXPROCS(0) {
		op.each(c, a, b, gemm) // each product on both cores
		return nil
	}
	// As many products as cores or more: each core runs whole products, serially.
	sa, sb, sc := op.M*op.K, op.K*op.N, op.M*op.N
	parallelFor(op.Batch, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			gemmSerial(op.M, op.N, op.K, rowMajor(a.Data[i*sa:(i+1)*sa], op.K), rowMajor(b.Data[i*sb:(i+1)*sb], op.N), c.Data[i*sc:(i+1)*sc], op.N)
		}
	})
	return nil
}

func (op *BatchedGemmFwd) reference(c, a, b *Tensor) { op.each(c, a, b, gemmRef) }

// each runs f on the matrices of every batch.
func (op *BatchedGemmFwd) each(c, a, b *Tensor, f func(m, n, k int, a, b mat, c []float32)) {
	sa, sb, sc := op.M*op.K, op.K*op.N, op.M*op.N
	for i := range op.Batch {
		f(op.M, op.N, op.K, rowMajor(a.Data[i*sa:(i+1)*sa], op.K), rowMajor(b.Data[i*sb:(i+1)*sb], op.N), c.Data[i*sc:(i+1)*sc])
	}
}
