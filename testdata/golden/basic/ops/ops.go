// Package ops is a golden case: hand-written op types for the generator to bind to.
package ops

// DType is an element type; Size is its storage size in bytes.
type DType int

// Size returns the element size in bytes.
func (d DType) Size() int { return int(d) }

// GemmFwd is a fixed-rank matmul.
type GemmFwd struct {
	M, N, K int
	DType   DType
}

// ComputeRoof is declared by hand: matmuls run on the matrix unit.
func (op *GemmFwd) ComputeRoof() string { return "cube.fp16" }

// SoftmaxFwd is an arbitrary-rank softmax.
type SoftmaxFwd struct {
	roofline rooflineCache
	Dim      int
	XShape   []int
	DType    DType
}

// ScaleFwd is an arbitrary-rank scale by an optional weight.
type ScaleFwd struct {
	roofline    rooflineCache
	XShape      []int
	WeightShape []int
	DType       DType
}

// LinearFwd is a fixed-rank linear layer with an optional bias.
type LinearFwd struct {
	M, N, K   int
	BiasShape []int
	DType     DType
}

// AttentionFwd is priced by a func-mode formula.
type AttentionFwd struct{ B, S, D int }

// AttentionDims returns the batch, sequence and head dims.
func (op *AttentionFwd) AttentionDims() (b, s, d int) { return op.B, op.S, op.D }

// DaxpyFwd is z = a*x + y in float64 only: its default ComputeRoof is vector.fp64.
type DaxpyFwd struct {
	N     int
	DType DType
}

// AxpyFwd takes three dtypes of three sizes, so DType's Size tells their roofs apart.
type AxpyFwd struct {
	N     int
	DType DType
}
