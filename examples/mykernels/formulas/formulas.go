// Package formulas holds the func-mode roofline functions of example.com/mykernels: a
// formula too irregular for the manifest's expression language is Go, called by the
// generated EvalRoofline. It must not import the op package (that package imports it).
package formulas

import "fmt"

// RowSum prices a row sum of an R × C matrix: C - 1 additions per row, the matrix read once
// and R sums written.
func RowSum(op interface{ RowSumDims() (r, c, elem int) }) (flops, bytes int64, err error) {
	r, c, elem := op.RowSumDims()
	if r < 1 || c < 1 {
		return 0, 0, fmt.Errorf("RowSumFwd: empty matrix %d x %d", r, c)
	}
	return int64(r) * int64(c-1), (int64(r)*int64(c) + int64(r)) * int64(elem), nil
}
