// Package ops is a golden case: op fields of named types over the manifest's types.
package ops

// DType is an element type.
type DType int

// Size returns the element size in bytes.
func (d DType) Size() int { return int(d) }

// Axis is a dimension index.
type Axis int

// Dims is a list of axes.
type Dims []int

// Count is a size.
type Count int

// Size and Shape are aliases, identical to int and []int: fields of them are fine.
type (
	Size  = int
	Shape = []int
)

// NamedParam reads its params through named types.
type NamedParam struct {
	Dim      Axis
	Keep     Dims
	XShape   Shape
	DType    DType
	roofline rooflineCache
}

// NamedDim reads a dim through a named type.
type NamedDim struct {
	M     Count
	K     Size
	DType DType
}
