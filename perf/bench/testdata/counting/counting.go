// Package counting is a fixture for TestNoLocalCounting: every line marked "want" computes a
// FLOP or byte count locally, which a benchmark file must never do (docs/model.md §8); the other
// lines take their counts from an op's EvalRoofline and must pass.
package counting

type op interface {
	EvalRoofline() (flops, bytes int64, err error)
}

type record struct {
	Flops, Bytes int64
	Seconds      float64
}

type tensor struct{ n int }

func (t tensor) Bytes() int64 { return int64(t.n) * 4 } // want

func matmulFlops(m, n, k int64) int64 { return 2 * m * n * k } // want

func allowed(o op, secs float64) (record, float64, error) {
	flops, bytes, err := o.EvalRoofline()
	if err != nil {
		return record{}, 0, err
	}
	var total int64
	total = flops
	rate := float64(bytes) / secs // a rate from the op's count is not a count
	r := record{Flops: flops, Bytes: bytes, Seconds: secs}
	r.Flops = flops
	_ = total
	return r, rate, nil
}

func planted(m, n, k int64, o op, ts []tensor) record {
	flops := 2 * m * n * k         // want
	bytes := (m*k + k*n + m*n) * 2 // want
	var r record
	r.Flops = flops
	r.Bytes = int64(bytes)
	r.Bytes += 64 // want
	r.Flops++     // want
	var totalBytes int64
	for _, t := range ts {
		totalBytes = t.Bytes() // want
	}
	const gemmFlops = 137438953472 // want
	_ = gemmFlops
	_ = totalBytes
	return record{Flops: int64(2 * m * n * k), Bytes: bytes} // want
}

func helper(m, n, k int64) record {
	return record{Flops: matmulFlops(m, n, k)} // want
}

func named(m int64) (flops, bytes int64) {
	return m * m, 0 // want
}
