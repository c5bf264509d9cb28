package ops

import (
	"fmt"

	"github.com/ropgen/ropgen/perf/formulas"
)

// EmbeddingFwd is torch.nn.functional.embedding(indices, weight): out[i] = weight[indices[i]]
// with indices [N] (int32 or int64 ids) and weight [V, D]. A gather: its traffic depends on
// which rows the ids name, so its roofline (func mode, formulas.Embedding: ids and table take
// independent dtypes) counts each looked-up row once, and the structural oracle exempts it.
type EmbeddingFwd struct {
	N, V, D    int
	DType      DType // the table's dtype, which the output shares
	IndexDType DType
}

// NewEmbeddingFwd returns a lookup of n ids of dtype idx into a table [v, d] of dtype dt.
func NewEmbeddingFwd(n, v, d int, idx, dt DType) (*EmbeddingFwd, error) {
	if err := checkDType("EmbeddingFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	if err := checkDType("EmbeddingFwd indices", idx, Int32, Int64); err != nil {
		return nil, err
	}
	if err := checkDims("EmbeddingFwd", dimArg{"N", n}, dimArg{"V", v}, dimArg{"D", d}); err != nil {
		return nil, err
	}
	if idx == Int32 && v > 1<<31 {
		return nil, fmt.Errorf("EmbeddingFwd: %d rows cannot all be named by int32 ids", v)
	}
	return &EmbeddingFwd{N: n, V: v, D: d, DType: dt, IndexDType: idx}, nil
}

// EmbeddingShape is what formulas.Embedding reads.
func (op *EmbeddingFwd) EmbeddingShape() formulas.EmbeddingShape {
	return formulas.EmbeddingShape{N: op.N, Rows: op.V, Width: op.D, IndexBytes: op.IndexDType.Size(), ElemBytes: op.DType.Size()}
}

// Bind checks indices and weight against the op's dims and returns the output shape.
func (op *EmbeddingFwd) Bind(indices, weight *Tensor) ([]int, error) {
	if err := checkFixed("EmbeddingFwd", "indices", indices, op.IndexDType, op.N); err != nil {
		return nil, err
	}
	if err := checkFixed("EmbeddingFwd", "weight", weight, op.DType, op.V, op.D); err != nil {
		return nil, err
	}
	return []int{op.N, op.D}, nil
}

// Forward computes out[i] = weight[indices[i]]. An id outside [0, V) is an error, as in
// torch, and nothing is written.
func (op *EmbeddingFwd) Forward(out, indices, weight *Tensor) error {
	shape, err := op.Bind(indices, weight)
	if err != nil {
		return err
	}
	if err := checkData("EmbeddingFwd", []string{"indices", "weight"}, indices, weight); err != nil {
		return err
	}
	if err := checkOutput("EmbeddingFwd", out, op.DType, shape); err != nil {
		return err
	}
	if err := op.checkIDs(indices.Data); err != nil {
		return err
	}
	d := op.D
	// A large output is written with streaming stores (ntCopy), as CopyFwd's is: the rows
	// gathered are read once and written once, and an ordinary store would read each output
	// line first.
	rowCopy := func(y, x []float32) { copy(y, x) }
	if streams(len(out.Data)) {
		rowCopy = func(y, x []float32) {
			s, e := ntCopy(y, x)
			copy(y[:s], x[:s])
			copy(y[e:], x[e:])
		}
	}
	parallelFor(op.N, max(1, grainElems/d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			id := int(indices.Data[i])
			rowCopy(out.Data[i*d:(i+1)*d], weight.Data[id*d:(id+1)*d])
		}
	})
	return nil
}

// checkIDs reports the first id that is not an integer in [0, V).
func (op *EmbeddingFwd) checkIDs(ids []float32) error {
	for i, v := range ids {
		if v < 0 || v >= float32(op.V) || v != float32(int(v)) {
			return fmt.Errorf("EmbeddingFwd: indices[%d] = %v is not a row of the [%d, %d] table", i, v, op.V, op.D)
		}
	}
	return nil
}

func (op *EmbeddingFwd) reference(out, indices, weight *Tensor) {
	for i := range op.N {
		for j := range op.D {
			out.Data[i*op.D+j] = weight.Data[int(indices.Data[i])*op.D+j]
		}
	}
}
