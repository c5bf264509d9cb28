package ops

import (
	"slices"
	"testing"
)

// EvalRoofline cost, fixed rank (dims set by the constructor) and arbitrary rank (shapes
// bound by Forward). The Python anchor's synthesized eval_roofline took 481 ns (RMSNorm) and
// 574 ns (Softmax) per call on this machine.

func benchmarkEvalRoofline(b *testing.B, op Op) {
	if _, _, err := op.EvalRoofline(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := op.EvalRoofline(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalRooflineGemmFwd(b *testing.B) {
	op, err := NewGemmFwd(128, 4096, 4096, BFloat16)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkEvalRoofline(b, op)
}

func BenchmarkEvalRooflineRMSNormFwd(b *testing.B) {
	op, err := NewRMSNormFwd([]int{4096}, nil, BFloat16)
	if err != nil {
		b.Fatal(err)
	}
	x, _ := NewTensor(BFloat16, 4, 4096)
	w, _ := NewTensor(BFloat16, 4096)
	y, _ := NewTensor(BFloat16, 4, 4096)
	if err := op.Forward(y, x, w); err != nil {
		b.Fatal(err)
	}
	benchmarkEvalRoofline(b, op)
}

// boundSoftmax is a SoftmaxFwd whose shape Forward has bound.
func boundSoftmax(b *testing.B) *SoftmaxFwd {
	op, err := NewSoftmaxFwd(-1, Float32)
	if err != nil {
		b.Fatal(err)
	}
	x, _ := NewTensor(Float32, 4, 32, 128)
	y, _ := NewTensor(Float32, 4, 32, 128)
	if err := op.Forward(y, x); err != nil {
		b.Fatal(err)
	}
	return op
}

func BenchmarkEvalRooflineSoftmaxFwd(b *testing.B) { benchmarkEvalRoofline(b, boundSoftmax(b)) }

// softmaxRooflineCache is a hand-written cache for one op, comparing its fields directly:
// the floor the generated cache (which compares a key spelled out per op) is measured
// against in BenchmarkEvalRooflineSoftmaxFwdCached.
type softmaxRooflineCache struct {
	op           *SoftmaxFwd
	shape        []int
	dim          int
	flops, bytes int64
	err          error
	valid        bool
}

func (c *softmaxRooflineCache) EvalRoofline() (int64, int64, error) {
	if !c.valid || c.dim != c.op.Dim || !slices.Equal(c.shape, c.op.XShape) {
		c.flops, c.bytes, c.err = c.op.EvalRoofline()
		c.shape, c.dim, c.valid = append(c.shape[:0], c.op.XShape...), c.op.Dim, true
	}
	return c.flops, c.bytes, c.err
}

func (c *softmaxRooflineCache) ComputeRoof() string { return c.op.ComputeRoof() }

func BenchmarkEvalRooflineSoftmaxFwdCached(b *testing.B) {
	benchmarkEvalRoofline(b, &softmaxRooflineCache{op: boundSoftmax(b)})
}
