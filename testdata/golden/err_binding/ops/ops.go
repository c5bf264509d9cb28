// Package ops is a golden case: op types that break the binding rules, one way each.
package ops

// DType is an element type.
type DType int

// Size returns the element size in bytes.
func (d DType) Size() int { return int(d) }

// NotStruct is not a struct.
type NotStruct int

// MissingField lacks Dim and XShape.
type MissingField struct{ M int }

// WrongField has an M of the wrong type.
type WrongField struct {
	M int64
	K int
}

// HandEval writes its own EvalRoofline.
type HandEval struct{ M, K int }

// EvalRoofline is hand-written, which the generator refuses.
func (op *HandEval) EvalRoofline() (int64, int64, error) { return 0, 0, nil }

// BadRoof declares ComputeRoof with the wrong result.
type BadRoof struct{ M, K int }

// ComputeRoof returns the wrong type.
func (op *BadRoof) ComputeRoof() int { return 0 }

// NoDType cannot give elem_bytes.
type NoDType struct{ M, K int }

// FuncBadResult names a function with the wrong results.
type FuncBadResult struct{}

// FuncBadParam does not implement the formula's parameter interface.
type FuncBadParam struct{}

// SizeOnly is a dtype that says its size and not its name.
type SizeOnly int

// Size returns the element size in bytes.
func (d SizeOnly) Size() int { return int(d) }

// HalfNoString takes float16 and bfloat16, which have one size and two roofs.
type HalfNoString struct {
	M, K  int
	DType SizeOnly
}

// MixedNoDType takes float32 and float64 and has no DType to say which.
type MixedNoDType struct{ M, K int }
