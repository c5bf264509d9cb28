//go:build amd64 && !purego

package stream

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/ropgen/ropgen/internal/simd"
)

// TestStreamLineCounts runs every streaming kernel of every instruction set the CPU has
// (SSE always, AVX2 where present) directly over every count of lines from 0 to 1100: every
// tail after none, one and two blocks of 8 pages (512 lines) and after none to four blocks
// of 4 (256), so each page group of each step and the jump to the next block is checked,
// with the input 4 bytes off the output's alignment. Each output element must equal its Go
// loop's (stream.go) bit for bit, and the line after the last must stay untouched. The
// inputs hold the special values of streamData, except that b is not NaN where a is (which
// NaN comes out of two depends on operand order: TestStreamKernels). It runs once per make
// test, at the CPU's best level.
func TestStreamLineCounts(t *testing.T) {
	if simd.Level() != simd.Best() {
		t.Skipf("it runs every level's kernels, whatever the level in use: the run at the CPU's best level (%s) covers it", simd.Name(simd.Best()))
	}
	type set struct {
		name  string
		level int
	}
	sets := []set{{"sse", simd.Go}}
	if simd.Best() >= simd.AVX2 {
		sets = append(sets, set{"avx2", simd.AVX2})
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
	type kernel struct {
		name string
		run  func(y []float32)
		ref  func(y []float32) // the Go loop it equals (stream.go)
	}
	kernels := []kernel{
		{"copy", func(y []float32) { CopyNT(y, x) }, func(y []float32) { copyGo(y, x) }},
		{"relu", func(y []float32) { ReluNT(y, x) }, func(y []float32) { reluGo(y, x) }},
		{"leaky_relu", func(y []float32) { LeakyReluNT(y, x, slope) }, func(y []float32) { leakyReluGo(y, x, slope) }},
		{"clamp", func(y []float32) { ClampNT(y, x, lo, hi) }, func(y []float32) { clampGo(y, x, lo, hi) }},
		{"triad", func(y []float32) { TriadNTAVX2(y, tb, tc, s) }, func(y []float32) { TriadGo(y, tb, tc, s) }},
		{"fill", func(y []float32) { FillNTAVX2(y, s) }, func(y []float32) { FillGo(y, s) }},
	}
	type arith struct {
		name           string
		same, sameGo   func(y, a, b []float32)
		right, rightGo func(y, a []float32, s float32)
		left, leftGo   func(y, a []float32, s float32) // y = s OP a
	}
	for _, op := range []arith{
		{"add", AddNT, addGo, AddSNT, addSGo, AddSNT, addSGo},
		{"sub", SubNT, subGo, SubSNT, subSGo, RsubSNT, rsubSGo},
		{"mul", MulNT, mulGo, MulSNT, mulSGo, MulSNT, mulSGo},
		{"div", DivNT, divGo, DivSNT, divSGo, RdivSNT, rdivSGo},
	} {
		kernels = append(kernels,
			kernel{"same " + op.name, func(y []float32) { op.same(y, x, b) }, func(y []float32) { op.sameGo(y, x, b) }},
			kernel{"right " + op.name, func(y []float32) { op.right(y, x, s) }, func(y []float32) { op.rightGo(y, x, s) }},
			kernel{"left " + op.name, func(y []float32) { op.left(y, x, s) }, func(y []float32) { op.leftGo(y, x, s) }})
	}
	bits := func(v []float32) []uint32 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
	}
	want := make([]float32, n)
	const sentinel = 12345.678
	for _, kern := range kernels {
		kern.ref(want)
		for _, set := range sets {
			for lines := range maxLines + 1 {
				m := lines * 16
				for i := range y[:m+16] {
					y[i] = sentinel
				}
				restore := simd.SetLevel(set.level)
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
