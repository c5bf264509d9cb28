// Package formulas stands in for perf/formulas in the validate tests: func-mode entries of
// the test manifests name these functions. Only the names matter to the validator.
package formulas

// Attention is a func-mode formula.
func Attention(op any) (flops, bytes int64, err error) { return 0, 0, nil }

// Scan is a func-mode formula.
func Scan(op any) (flops, bytes int64, err error) { return 0, 0, nil }

// helper is unexported: a manifest cannot name it.
func helper() {}

// Method is not a top-level function.
type T struct{}

// Method is a method, not a formula.
func (T) Method() {}
