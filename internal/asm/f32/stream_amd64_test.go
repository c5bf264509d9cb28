//go:build amd64 && !purego

package f32

import (
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
	if Level() != Best() {
		t.Skipf("it runs every level's kernels, whatever the level in use: the run at the CPU's best level (%s) covers it", Name(Best()))
	}
	type set struct {
		name  string
		level int
	}
	sets := []set{{"sse", Go}}
	if Best() >= AVX2 {
		sets = append(sets, set{"avx2", AVX2})
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
	// The triad's inputs are small integers, whose fused and unfused results are exact.
	tb, tc := make([]float32, n), make([]float32, n+1)[1:]
	for i := range tb {
		tb[i], tc[i] = float32(i%1000), float32(i%77-38)
	}
	y := aligned64(n+16, 0)
	const slope, lo, hi, s = 0.1, -0.5, 0.5, -1.25
	factor := [2]float32{1, slope}
	type kernel struct {
		name string
		run  func(y []float32)
		f    func(i int) float32
	}
	kernels := []kernel{
		{"copy", func(y []float32) { CopyNT(y, x) }, func(i int) float32 { return x[i] }},
		{"relu", func(y []float32) { ReluNT(y, x) }, func(i int) float32 { return max(x[i], 0) }},
		{"leaky_relu", func(y []float32) { LeakyReluNT(y, x, slope) },
			func(i int) float32 { return x[i] * factor[math.Float32bits(x[i])>>31] }},
		{"clamp", func(y []float32) { ClampNT(y, x, lo, hi) }, func(i int) float32 { return min(max(x[i], lo), hi) }},
		{"triad", func(y []float32) { TriadNTAVX2(y, tb, tc, s) }, func(i int) float32 { return tb[i] + s*tc[i] }},
		{"fill", func(y []float32) { FillNTAVX2(y, s) }, func(i int) float32 { return s }},
	}
	type arith struct {
		name  string
		same  func(y, a, b []float32)
		right func(y, a []float32, s float32)
		left  func(y, a []float32, s float32) // y = s OP a
		f     func(a, b float32) float32
	}
	for _, op := range []arith{
		{"add", AddNT, AddSNT, AddSNT, func(a, b float32) float32 { return a + b }},
		{"sub", SubNT, SubSNT, RsubSNT, func(a, b float32) float32 { return a - b }},
		{"mul", MulNT, MulSNT, MulSNT, func(a, b float32) float32 { return a * b }},
		{"div", DivNT, DivSNT, RdivSNT, func(a, b float32) float32 { return a / b }},
	} {
		f := op.f
		kernels = append(kernels,
			kernel{"same " + op.name, func(y []float32) { op.same(y, x, b) }, func(i int) float32 { return f(x[i], b[i]) }},
			kernel{"right " + op.name, func(y []float32) { op.right(y, x, s) }, func(i int) float32 { return f(x[i], s) }},
			kernel{"left " + op.name, func(y []float32) { op.left(y, x, s) }, func(i int) float32 { return f(s, x[i]) }})
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
				restore := SetLevel(set.level)
				kern.run(y[:m])
				restore()
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
