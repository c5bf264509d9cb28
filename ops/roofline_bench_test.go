package ops

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"
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

// The generated EvalRoofline against hand-written unchecked methods that return the same
// numbers through the same interface (issue 26's target: at most 1.3x, 0 allocs). The hand
// types share the op's layout, so both read the same fields; rounds interleave the two in
// one process: go test -run '^$' -bench EvalRooflineVsHand -count 5 ./ops

type handGemmFwd GemmFwd

func (op *handGemmFwd) EvalRoofline() (flops, bytes int64, err error) {
	M, N, K, e := op.M, op.N, op.K, op.DType.Size()
	return int64(2 * M * N * K), int64((M*K + K*N + M*N) * e), nil
}

func (op *handGemmFwd) ComputeRoof() string { return "cube.bf16" }

type handRMSNormFwd RMSNormFwd

// EvalRoofline computes from the bound shapes on every call, as an author writes it.
func (op *handRMSNormFwd) EvalRoofline() (flops, bytes int64, err error) {
	if op.XShape == nil {
		return 0, 0, errors.New("RMSNormFwd: unbound")
	}
	N, T := 1, 1
	for _, d := range op.NormalizedShape {
		N *= d
	}
	for _, d := range op.XShape {
		T *= d
	}
	R, w := T/N, 0
	if op.WeightShape != nil {
		w = 1
	}
	return int64(3*T + 2*R + w*T), int64((2*T + w*N) * op.DType.Size()), nil
}

func (op *handRMSNormFwd) ComputeRoof() string { return "vector.fp32" }

type handSoftmaxFwd SoftmaxFwd

func (op *handSoftmaxFwd) EvalRoofline() (flops, bytes int64, err error) {
	n, d := len(op.XShape), op.Dim
	if op.XShape == nil || d < -n || d >= n {
		return 0, 0, errors.New("SoftmaxFwd: unbound or dim out of range")
	}
	if d < 0 {
		d += n
	}
	T := 1
	for _, s := range op.XShape {
		T *= s
	}
	R := T / op.XShape[d]
	return int64(5*T - 2*R), int64(2 * T * op.DType.Size()), nil
}

func (op *handSoftmaxFwd) ComputeRoof() string { return "vector.fp32" }

// rooflinePairs are the generated methods and their hand-written twins, bound and checked
// to return the same numbers.
func rooflinePairs(b *testing.B) []rooflinePair {
	gemm, err := NewGemmFwd(128, 4096, 4096, BFloat16)
	if err != nil {
		b.Fatal(err)
	}
	norm, err := NewRMSNormFwd([]int{4096}, nil, BFloat16)
	if err != nil {
		b.Fatal(err)
	}
	x, _ := NewTensor(BFloat16, 4, 4096)
	w, _ := NewTensor(BFloat16, 4096)
	y, _ := NewTensor(BFloat16, 4, 4096)
	if err := norm.Forward(y, x, w); err != nil {
		b.Fatal(err)
	}
	softmax := boundSoftmax(b)
	pairs := []rooflinePair{
		{"GemmFwd", gemm, (*handGemmFwd)(gemm)},
		{"RMSNormFwd", norm, (*handRMSNormFwd)(norm)},
		{"SoftmaxFwd", softmax, (*handSoftmaxFwd)(softmax)},
	}
	for _, p := range pairs {
		f1, b1, err1 := p.gen.EvalRoofline()
		f2, b2, err2 := p.hand.EvalRoofline()
		if err1 != nil || err2 != nil || f1 != f2 || b1 != b2 {
			b.Fatalf("%s: generated %d, %d, %v; hand-written %d, %d, %v", p.name, f1, b1, err1, f2, b2, err2)
		}
	}
	return pairs
}

type rooflinePair struct {
	name      string
	gen, hand rooflineOp
}

func BenchmarkEvalRooflineVsHand(b *testing.B) {
	pairs := rooflinePairs(b)
	run := func(op rooflineOp) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := op.EvalRoofline(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for range 3 {
		for _, p := range pairs {
			b.Run(p.name+"/generated", run(p.gen))
			b.Run(p.name+"/hand", run(p.hand))
		}
	}
}

// BenchmarkEvalRooflineRatio interleaves the two finely: each iteration times a batch of
// generated calls, then a batch of hand-written ones, so that both see the same load on a
// shared machine; it reports each one's ns a call and gen/hand, their ratio. On a loaded
// machine a preempted batch swings the totals' ratio; min-gen/hand, the ratio of each one's
// fastest batch, is what a batch costs when nothing interrupts it.
func BenchmarkEvalRooflineRatio(b *testing.B) {
	const batch = 512
	for _, p := range rooflinePairs(b) {
		b.Run(p.name, func(b *testing.B) {
			var gen, hand time.Duration
			genMin, handMin := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				for range batch {
					p.gen.EvalRoofline()
				}
				t1 := time.Now()
				for range batch {
					p.hand.EvalRoofline()
				}
				g, h := t1.Sub(t0), time.Since(t1)
				gen, hand = gen+g, hand+h
				genMin, handMin = min(genMin, g), min(handMin, h)
			}
			calls := float64(b.N) * batch
			b.ReportMetric(float64(gen.Nanoseconds())/calls, "gen-ns/call")
			b.ReportMetric(float64(hand.Nanoseconds())/calls, "hand-ns/call")
			b.ReportMetric(float64(gen)/float64(hand), "gen/hand")
			b.ReportMetric(float64(genMin)/float64(handMin), "min-gen/hand")
		})
	}
}
