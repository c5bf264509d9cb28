// Package formulas is a golden case's func-mode formulas.
package formulas

// Attention prices an attention call from its dims.
func Attention(op interface{ AttentionDims() (b, s, d int) }) (flops, bytes int64, err error) {
	b, s, d := op.AttentionDims()
	return int64(4 * b * s * s * d), int64(4 * b * s * d * 2), nil
}
