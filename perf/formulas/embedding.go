package formulas

import "fmt"

// EmbeddingShape is what an embedding lookup exposes to its formula: N ids into a table of
// Rows rows of Width elements, and the storage sizes of the ids' dtype (int32 or int64) and
// of the table's (which the output shares).
type EmbeddingShape struct {
	N, Rows, Width        int
	IndexBytes, ElemBytes int
}

// EmbeddingOp is an embedding lookup as the formula sees it.
type EmbeddingOp interface {
	EmbeddingShape() EmbeddingShape
}

// Embedding returns the FLOPs and minimum bytes of out[i] = weight[ids[i]]: a gather, no
// arithmetic (0 FLOPs). Bytes: the ids read once, the output written once, and the looked-up
// rows read once each. How many distinct rows a call touches depends on the ids' values;
// the formula counts min(N, Rows) rows, the most any N ids can name, so it is exact when
// the ids are distinct and an overcount when they repeat. That dependence on contents is why
// the structural oracle exempts this op (docs/model.md §10) and the hardware bytes audit covers it.
// Func mode because ids and table take independent dtypes (docs/model.md §7.1).
func Embedding(op EmbeddingOp) (flops, bytes int64, err error) {
	s := op.EmbeddingShape()
	for _, v := range []int{s.N, s.Rows, s.Width, s.IndexBytes, s.ElemBytes} {
		if v < 0 {
			return 0, 0, fmt.Errorf("embedding: negative size in %+v", s)
		}
	}
	var c checked
	n, w := int64(s.N), int64(s.Width)
	rows := min(n, int64(s.Rows))
	bytes = c.add(
		c.mul(n, int64(s.IndexBytes)),
		c.mul(rows, w, int64(s.ElemBytes)),
		c.mul(n, w, int64(s.ElemBytes)),
	)
	return c.result(0, bytes)
}
