// Package ops is a golden case: op types with nullable params (*int, *float64 fields).
package ops

// DType is an element type; its value is its size.
type DType int

// Size returns the element size in bytes.
func (d DType) Size() int { return int(d) }

// WindowAttnFwd is a fixed-rank attention with an optional window.
type WindowAttnFwd struct {
	B, S, D int
	Window  *int
	DType   DType
}

// ArgmaxFwd is an arbitrary-rank argmax over dim, or over everything when Dim is nil.
type ArgmaxFwd struct {
	roofline rooflineCache
	XShape   []int
	Dim      *int
	DType    DType
}

// BlockFwd is a fixed-rank blocked op.
type BlockFwd struct {
	M, K  int
	Block *int
	DType DType
}

// ClampFwd is an arbitrary-rank clamp with optional bounds.
type ClampFwd struct {
	XShape         []int
	MinVal, MaxVal *float64
	DType          DType
}
