package ops

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
)

// streamSpecials are the values whose handling differs between max or IEEE arithmetic
// implementations: NaNs of both signs (quiet and signaling, with payloads), signed zeros,
// infinities, subnormals, and the largest finite magnitudes.
var streamSpecials = []float32{
	math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123),
	math.Float32frombits(0x7f800001), math.Float32frombits(0xff800005),
	float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)),
	math.Float32frombits(1), math.Float32frombits(0x80000001),
	math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff),
	math.MaxFloat32, -math.MaxFloat32, 1, -1,
}

// streamData returns n values: uniform in [-2, 2) with one in four a special value.
func streamData(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		if r.IntN(4) == 0 {
			x[i] = streamSpecials[r.IntN(len(streamSpecials))]
		} else {
			x[i] = r.Float32()*4 - 2
		}
	}
	return x
}

// aligned64 returns a slice of n elements of a fresh buffer starting mis elements past a
// 64-byte boundary.
func aligned64(n, mis int) []float32 {
	buf := make([]float32, n+mis+16)
	off := int(-uintptr(unsafe.Pointer(&buf[0]))%64) / 4
	return buf[off+mis : off+mis+n]
}

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// TestStreamKernels checks the streaming kernels against the Go loops they replace, bit
// for bit, over every length 0..100 and some longer ones, every start of y within a cache
// line, and inputs offset from y: the span they take must be aligned whole lines with at
// most 15 elements either side, and they must write nothing outside it. Where both operands
// of add, sub or mul are NaN, which NaN comes out depends on the operand order the compiler
// picked, so only NaN-ness is required there.
func TestStreamKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const sentinel = 12345.678
	lengths := []int{1000, 4097, 1<<16 + 13}
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
				case e == s && n >= 31 && runtime.GOARCH == "amd64":
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
			s, e := ntRelu(y, x)
			check("relu", s, e, func(i int) float32 { return max(x[i], 0) }, nil)
			for _, o := range arith {
				fill()
				s, e := ntArith(o.op, y, x, b)
				check(o.name, s, e, func(i int) float32 { return o.f(x[i], b[i]) },
					func(i int) bool { return x[i] != x[i] && b[i] != b[i] })
			}
		}
	}
}

// TestStreamForward runs the ops on an output just above streamMinBytes, so that Forward
// takes the streaming path on both cores with an unaligned split, and checks every element
// against the serial Go operation, bit for bit (NaN-ness only where both operands are NaN).
func TestStreamForward(t *testing.T) {
	n := streamMinBytes/4 + 37
	if !streams(n) || streams(n-38) {
		t.Fatalf("streams(%d) = %v, streams(%d) = %v", n, streams(n), n-38, streams(n-38))
	}
	r := rand.New(rand.NewPCG(3, 4))
	x, b, y := mustTensor(t, Float32, n), mustTensor(t, Float32, n), mustTensor(t, Float32, n)
	x.Data, b.Data = streamData(r, n), streamData(r, n)
	relu, _ := NewReluFwd(Float32)
	add, _ := NewAddFwd(Float32)
	sub, _ := NewSubFwd(Float32)
	mul, _ := NewMulFwd(Float32)
	cases := []struct {
		name string
		run  func() error
		f    func(a, b float32) float32
	}{
		{"relu", func() error { return relu.Forward(y, x) }, func(a, _ float32) float32 { return max(a, 0) }},
		{"add", func() error { return add.Forward(y, x, b) }, func(a, b float32) float32 { return a + b }},
		{"sub", func() error { return sub.Forward(y, x, b) }, func(a, b float32) float32 { return a - b }},
		{"mul", func() error { return mul.Forward(y, x, b) }, func(a, b float32) float32 { return a * b }},
	}
	for _, c := range cases {
		clear(y.Data)
		if err := c.run(); err != nil {
			t.Fatal(err)
		}
		for i, v := range y.Data {
			want := c.f(x.Data[i], b.Data[i])
			nan2 := c.name != "relu" && x.Data[i] != x.Data[i] && b.Data[i] != b.Data[i]
			if nan2 && v == v || !nan2 && !sameBits(v, want) {
				t.Fatalf("%s: y[%d] = %#08x, want %#08x", c.name, i, math.Float32bits(v), math.Float32bits(want))
			}
		}
	}
}
