package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestStreamLineCounts runs every streaming kernel of every instruction set the CPU has
// (SSE always, AVX2 where present) directly over every count of lines from 0 to 1100: every
// tail after none, one and two blocks of 8 pages (512 lines) and after none to four blocks
// of 4 (256), so each page group of each step and the jump to the next block is checked,
// with the input 4 bytes off the output's alignment. Each output element must equal the Go
// operation on its own input element bit for bit, and the line after the last must stay
// untouched. The inputs hold the special values of streamData, except that b is not NaN
// where a is (which NaN comes out of two depends on operand order: TestStreamKernels). It runs
// once per make test, at the CPU's best level.
func TestStreamLineCounts(t *testing.T) {
	if now, best := SIMD(); now != best {
		t.Skipf("it calls the kernel sets directly, whatever the level in use: the run at the CPU's best level (%s) covers it", simdName(best))
	}
	type set struct {
		name string
		k    *ntKernels
	}
	sets := []set{{"sse", &ntSSE}}
	if cpuSIMD >= SIMDAVX2 {
		sets = append(sets, set{"avx2", &ntAVX2})
	}
	const maxLines = 1100
	const n = maxLines * 16
	r := rand.New(rand.NewPCG(5, 6))
	x := streamData(r, n+1)[1:]
	b := streamData(r, n)
	for i := range b {
		if x[i] != x[i] && b[i] != b[i] {
			b[i] = 1.5
		}
	}
	y := aligned64(n+16, 0)
	const slope, lo, hi, s = 0.1, -0.5, 0.5, -1.25
	factor := [2]float32{1, slope}
	ops := [...]func(a, b float32) float32{
		opAdd: func(a, b float32) float32 { return a + b }, opSub: func(a, b float32) float32 { return a - b },
		opMul: func(a, b float32) float32 { return a * b }, opDiv: func(a, b float32) float32 { return a / b },
	}
	type kernel struct {
		name string
		run  func(k *ntKernels, y []float32)
		f    func(i int) float32
	}
	kernels := []kernel{
		{"copy", func(k *ntKernels, y []float32) { k.copy(y, x) }, func(i int) float32 { return x[i] }},
		{"relu", func(k *ntKernels, y []float32) { k.relu(y, x) }, func(i int) float32 { return max(x[i], 0) }},
		{"leaky_relu", func(k *ntKernels, y []float32) { k.leakyRelu(y, x, slope) },
			func(i int) float32 { return x[i] * factor[math.Float32bits(x[i])>>31] }},
		{"clamp", func(k *ntKernels, y []float32) { k.clamp(y, x, lo, hi) }, func(i int) float32 { return min(max(x[i], lo), hi) }},
	}
	for op, f := range ops {
		kernels = append(kernels,
			kernel{fmt.Sprint("same ", op), func(k *ntKernels, y []float32) { k.same[op](y, x, b) }, func(i int) float32 { return f(x[i], b[i]) }},
			kernel{fmt.Sprint("right ", op), func(k *ntKernels, y []float32) { k.right[op](y, x, s) }, func(i int) float32 { return f(x[i], s) }},
			kernel{fmt.Sprint("left ", op), func(k *ntKernels, y []float32) { k.left[op](y, x, s) }, func(i int) float32 { return f(s, x[i]) }})
	}
	bits := func(v []float32) []uint32 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
	}
	want := make([]float32, n)
	const sentinel = 12345.678
	for _, kern := range kernels {
		for i := range want {
			want[i] = kern.f(i)
		}
		for _, set := range sets {
			for lines := range maxLines + 1 {
				m := lines * 16
				for i := range y[:m+16] {
					y[i] = sentinel
				}
				kern.run(set.k, y[:m])
				if !slices.Equal(bits(y[:m]), bits(want[:m])) {
					i := 0
					for ; math.Float32bits(y[i]) == math.Float32bits(want[i]); i++ {
					}
					t.Fatalf("%s %s over %d lines: y[%d] = %#08x, want %#08x (line %d)", set.name, kern.name, lines, i,
						math.Float32bits(y[i]), math.Float32bits(want[i]), i/16)
				}
				for i := m; i < m+16; i++ {
					if y[i] != sentinel {
						t.Fatalf("%s %s over %d lines: y[%d] = %v written past the end", set.name, kern.name, lines, i, y[i])
					}
				}
			}
		}
	}
}
