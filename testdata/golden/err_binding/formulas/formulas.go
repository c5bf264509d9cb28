// Package formulas is a golden case's func-mode formulas, with wrong signatures.
package formulas

// BadResult returns ints instead of (int64, int64, error).
func BadResult(op any) (int, int) { return 0, 0 }

// NeedsDims needs a method the op does not have.
func NeedsDims(op interface{ Dims() []int }) (int64, int64, error) { return 0, 0, nil }
