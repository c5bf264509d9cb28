// Package ops is a golden case: one op whose formulas call every helper.
package ops

// DType is an element type; its value is its size.
type DType int

// Size returns the element size in bytes.
func (d DType) Size() int { return int(d) }

// HelpersFwd binds an arbitrary-rank input and six params.
type HelpersFwd struct {
	roofline rooflineCache
	XShape   []int
	Dim      int
	Dims     []int
	Block    int
	Causal   bool
	Win      *int
	Tile     *int
	DType    DType
}
