package ops

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/ropgen/ropgen/internal/stream/streamtest"
)

// The streaming kernels' test inputs (streamtest).
var (
	streamData = streamtest.Data
	aligned64  = streamtest.Aligned64
)

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// streamSlopes are leaky relu slopes: the usual, negative, both zeros, one and above one.
var streamSlopes = []float32{0.1, 0.01, -0.5, 0, float32(math.Copysign(0, -1)), 1, 2}

// streamBounds are clamp bounds: two-sided, ReLU6, signed zeros both ways round, one-sided
// (an absent bound is an infinity), lo > hi (every element is hi), subnormal.
var streamBounds = [][2]float32{
	{-0.5, 0.5}, {0, 6}, {float32(math.Copysign(0, -1)), 0}, {0, float32(math.Copysign(0, -1))},
	{float32(math.Inf(-1)), 0.5}, {-0.5, float32(math.Inf(1))}, {1, -1},
	{math.Float32frombits(0x80000001), math.Float32frombits(1)},
}

// TestStreamKernels checks the streaming kernels against the Go loops they replace, bit
// for bit, over every length 0..100 and some longer ones, every start of y within a cache
// line, and inputs offset from y: the span they take must be aligned whole lines with at
// most 15 elements either side, and they must write nothing outside it. The binary ops are
// checked with both operands as long as y and with either one a broadcast element (a
// random value, one in four special). Where both operands of add, sub, mul or div are NaN,
// which NaN comes out depends on the operand order the compiler picked, so only NaN-ness is
// required there.
func TestStreamKernels(t *testing.T) {
	// Whether this build streams at all: amd64 without the purego tag (stream.Span).
	_, hasSpan := ntSpan(aligned64(32, 0))
	streaming := hasSpan > 0
	r := rand.New(rand.NewPCG(1, 2))
	const sentinel = 12345.678
	lengths := []int{1000, 4097, 8192 + 16*5 + 3, 1<<16 + 13}
	for n := range 101 {
		lengths = append(lengths, n)
	}
	arith := []struct {
		name string
		op   int
		f    func(a, b float32) float32
	}{
		{"add", opAdd, func(a, b float32) float32 { return a + b }},
		{"sub", opSub, func(a, b float32) float32 { return a - b }},
		{"mul", opMul, func(a, b float32) float32 { return a * b }},
		{"div", opDiv, func(a, b float32) float32 { return a / b }},
	}
	for _, n := range lengths {
		for mis := range 16 {
			x := streamData(r, n+mis%4)[mis%4:] // inputs misaligned differently from y
			b := streamData(r, n)
			y := aligned64(n, mis)
			check := func(name string, s, e int, want func(i int) float32, bothNaN func(i int) bool) {
				t.Helper()
				switch {
				case e > s && (uintptr(unsafe.Pointer(&y[s]))%64 != 0 || (e-s)%16 != 0):
					t.Fatalf("%s n=%d mis=%d: span [%d, %d) is not aligned whole lines", name, n, mis, s, e)
				case e > s && (s > 15 || n-e > 15):
					t.Fatalf("%s n=%d mis=%d: span [%d, %d) leaves more than a line's head or tail", name, n, mis, s, e)
				case e == s && n >= 31 && streaming:
					t.Fatalf("%s n=%d mis=%d: nothing streamed", name, n, mis)
				}
				for i := range y {
					switch {
					case i < s || i >= e:
						if y[i] != sentinel {
							t.Fatalf("%s n=%d mis=%d: y[%d] = %v written outside the span [%d, %d)", name, n, mis, i, y[i], s, e)
						}
					case bothNaN != nil && bothNaN(i):
						if y[i] == y[i] {
							t.Fatalf("%s n=%d mis=%d: y[%d] = %v, want NaN", name, n, mis, i, y[i])
						}
					case !sameBits(y[i], want(i)):
						t.Fatalf("%s n=%d mis=%d: y[%d] = %#08x, want %#08x (x = %#08x)", name, n, mis, i,
							math.Float32bits(y[i]), math.Float32bits(want(i)), math.Float32bits(x[i]))
					}
				}
			}
			fill := func() {
				for i := range y {
					y[i] = sentinel
				}
			}
			fill()
			s, e := ntCopy(y, x)
			check("copy", s, e, func(i int) float32 { return x[i] }, nil)
			fill()
			s, e = ntRelu(y, x)
			check("relu", s, e, func(i int) float32 { return max(x[i], 0) }, nil)
			for _, sl := range streamSlopes {
				factor := [2]float32{1, sl} // the Go kernel's expression
				fill()
				s, e := ntLeakyRelu(y, x, sl)
				check("leaky_relu", s, e, func(i int) float32 { return x[i] * factor[math.Float32bits(x[i])>>31] }, nil)
			}
			for _, lh := range streamBounds {
				lo, hi := lh[0], lh[1]
				fill()
				s, e := ntClamp(y, x, lo, hi)
				check("clamp", s, e, func(i int) float32 { return min(max(x[i], lo), hi) }, nil)
			}
			for _, o := range arith {
				fill()
				s, e := ntArith(o.op, y, x, b)
				check(o.name, s, e, func(i int) float32 { return o.f(x[i], b[i]) },
					func(i int) bool { return x[i] != x[i] && b[i] != b[i] })
				c := streamData(r, 1)
				fill()
				s, e = ntArith(o.op, y, x, c)
				check(o.name+" row-scalar", s, e, func(i int) float32 { return o.f(x[i], c[0]) },
					func(i int) bool { return x[i] != x[i] && c[0] != c[0] })
				fill()
				s, e = ntArith(o.op, y, c, x)
				check(o.name+" scalar-row", s, e, func(i int) float32 { return o.f(c[0], x[i]) },
					func(i int) bool { return x[i] != x[i] && c[0] != c[0] })
			}
		}
	}
}

// TestStreamForward runs the ops on an output just above streamMinBytes, so that Forward
// takes the streaming path on both cores with an unaligned split, and checks every element
// against the serial Go operation, bit for bit (NaN-ness only where both operands are NaN).
// The binary ops run on same-shape operands and on rows of a length that is not a whole
// number of lines against one scalar per row, on either side ([R, N] ∘ [R, 1] and
// [R, 1] ∘ [R, N]), so that every row has its own unaligned head and tail.
func TestStreamForward(t *testing.T) {
	n := streamMinBytes/4 + 37
	if !streams(n) || streams(n-38) {
		t.Fatalf("streams(%d) = %v, streams(%d) = %v", n, streams(n), n-38, streams(n-38))
	}
	const rows, cols = 2048, 4099 // 4 bytes * rows * cols > streamMinBytes
	r := rand.New(rand.NewPCG(3, 4))
	x, b, y := mustTensor(t, Float32, n), mustTensor(t, Float32, n), mustTensor(t, Float32, n)
	x.Data, b.Data = streamData(r, n), streamData(r, n)
	xr, c, yr := mustTensor(t, Float32, rows, cols), mustTensor(t, Float32, rows, 1), mustTensor(t, Float32, rows, cols)
	xr.Data, c.Data = streamData(r, rows*cols), streamData(r, rows)
	cp, _ := NewCopyFwd(Float32)
	relu, _ := NewReluFwd(Float32)
	leaky, _ := NewLeakyReluFwd(0.1, Float32)
	lo, hi := -0.5, 0.5
	clamp, _ := NewClampFwd(&lo, &hi, Float32)
	add, _ := NewAddFwd(Float32)
	sub, _ := NewSubFwd(Float32)
	mul, _ := NewMulFwd(Float32)
	div, _ := NewDivFwd(Float32)
	factor := [2]float32{1, float32(leaky.NegativeSlope)}
	lo32, hi32 := clamp.bounds()
	unary := []struct {
		name string
		run  func() error
		f    func(v float32) float32
	}{
		{"copy", func() error { return cp.Forward(y, x) }, func(v float32) float32 { return v }},
		{"relu", func() error { return relu.Forward(y, x) }, func(v float32) float32 { return max(v, 0) }},
		{"leaky_relu", func() error { return leaky.Forward(y, x) },
			func(v float32) float32 { return v * factor[math.Float32bits(v)>>31] }},
		{"clamp", func() error { return clamp.Forward(y, x, nil, nil) }, func(v float32) float32 { return min(max(v, lo32), hi32) }},
	}
	for _, u := range unary {
		clear(y.Data)
		if err := u.run(); err != nil {
			t.Fatal(err)
		}
		for i, v := range y.Data {
			if want := u.f(x.Data[i]); !sameBits(v, want) {
				t.Fatalf("%s: y[%d] = %#08x, want %#08x", u.name, i, math.Float32bits(v), math.Float32bits(want))
			}
		}
	}
	// A per-row tensor lower bound (NaN and signed zeros among them) with a scalar upper one:
	// each row takes the scalar kernel, streamed, or the Go loop for a NaN bound.
	rowClamp, _ := NewClampFwd(nil, &hi, Float32)
	clear(yr.Data)
	if err := rowClamp.Forward(yr, xr, c, nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range yr.Data {
		if want := min(max(xr.Data[i], c.Data[i/cols]), hi32); !sameBits(v, want) {
			t.Fatalf("clamp row bound: y[%d] = %#08x, want %#08x", i, math.Float32bits(v), math.Float32bits(want))
		}
	}
	binary := []struct {
		name string
		op   broadcastOp
		f    func(a, b float32) float32
	}{
		{"add", add, func(a, b float32) float32 { return a + b }},
		{"sub", sub, func(a, b float32) float32 { return a - b }},
		{"mul", mul, func(a, b float32) float32 { return a * b }},
		{"div", div, func(a, b float32) float32 { return a / b }},
	}
	for _, o := range binary {
		forms := []struct {
			form    string
			y, a, b *Tensor
			ai, bi  func(i int) int // the input element of output element i
		}{
			{"same shape", y, x, b, func(i int) int { return i }, func(i int) int { return i }},
			{"row-scalar", yr, xr, c, func(i int) int { return i }, func(i int) int { return i / cols }},
			{"scalar-row", yr, c, xr, func(i int) int { return i / cols }, func(i int) int { return i }},
		}
		for _, fm := range forms {
			clear(fm.y.Data)
			if err := o.op.Forward(fm.y, fm.a, fm.b); err != nil {
				t.Fatal(err)
			}
			for i, v := range fm.y.Data {
				u, w := fm.a.Data[fm.ai(i)], fm.b.Data[fm.bi(i)]
				want := o.f(u, w)
				nan2 := u != u && w != w
				if nan2 && v == v || !nan2 && !sameBits(v, want) {
					t.Fatalf("%s %s: y[%d] = %#08x, want %#08x", o.name, fm.form, i, math.Float32bits(v), math.Float32bits(want))
				}
			}
		}
	}
}
