package formulas

import "fmt"

// AdaptivePoolShape is what an adaptive pool exposes to its formula: x [N, C, H, W] pooled
// to y [N, C, HOut, WOut], and the storage size of the dtype they share.
type AdaptivePoolShape struct {
	N, C, H, W, HOut, WOut int
	ElemBytes              int
}

// AdaptivePoolOp is an adaptive pool as the formula sees it.
type AdaptivePoolOp interface {
	AdaptivePoolShape() AdaptivePoolShape
}

// AdaptiveAvgPool2d returns the FLOPs and minimum bytes of torch's adaptive_avg_pool2d:
// output (i, j) averages the bin rows [floor(i·H/HOut), ceil((i+1)·H/HOut)) by the columns
// likewise, bins of non-uniform sizes that may overlap. A bin of s elements costs s - 1
// adds and one divide, s FLOPs, so a plane costs (Σ bin heights)·(Σ bin widths). Bytes: x
// read once, y written once. Func mode: the bin sizes are a sum over the output rows.
func AdaptiveAvgPool2d(op AdaptivePoolOp) (flops, bytes int64, err error) {
	return adaptivePool(op, false)
}

// AdaptiveMaxPool2d is AdaptiveAvgPool2d for the max: s - 1 compare-selects per bin.
func AdaptiveMaxPool2d(op AdaptivePoolOp) (flops, bytes int64, err error) {
	return adaptivePool(op, true)
}

func adaptivePool(op AdaptivePoolOp, isMax bool) (int64, int64, error) {
	s := op.AdaptivePoolShape()
	for _, d := range []struct {
		name string
		v    int
	}{{"N", s.N}, {"C", s.C}, {"H", s.H}, {"W", s.W}, {"H_out", s.HOut}, {"W_out", s.WOut}} {
		if d.v < 1 {
			return 0, 0, fmt.Errorf("adaptive pool: %s is %d; it must be at least 1", d.name, d.v)
		}
	}
	var c checked
	planes := c.mul(int64(s.N), int64(s.C))
	taps := c.mul(c.binSum(s.H, s.HOut), c.binSum(s.W, s.WOut)) // per plane
	if isMax {
		taps -= c.mul(int64(s.HOut), int64(s.WOut)) // every bin holds at least one element
	}
	flops := c.mul(planes, taps)
	bytes := c.mul(c.add(c.mul(planes, int64(s.H), int64(s.W)), c.mul(planes, int64(s.HOut), int64(s.WOut))), int64(s.ElemBytes))
	return c.result(flops, bytes)
}

// binSum returns Σ over i < out of the bin size ceil((i+1)·in/out) - floor(i·in/out): the
// positions all bins cover, counting overlaps. Each bin's bounds are exact integer
// divisions of non-negative numbers.
func (c *checked) binSum(in, out int) int64 {
	var sum int64
	for i := range int64(out) {
		hi := c.mul(i+1, int64(in))
		end := (hi + int64(out) - 1) / int64(out)
		start := c.mul(i, int64(in)) / int64(out)
		sum = c.add(sum, end-start)
	}
	return sum
}
