package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// TestVecKernels checks the 8-lane kernels against float64 math over sweeps, with the edge
// values (NaN, infinities, the subnormal range of exp) mixed into the blocks so that the
// scalar fallback of a block is exercised too.
func TestVecKernels(t *testing.T) {
	eachSIMD(t, func(t *testing.T) { testVecKernels(t) })
}

func testVecKernels(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name    string
		vec     func(y, x []float32) int
		ref     func(float64) float64
		lo, hi  float64
		maxUlps float64
		// absTol also passes an element: where the float32 formula cancels (gelu's 1 + tanh
		// near -1 for x < -3, as in torch's float32 gelu) only an absolute bound holds.
		absTol float64
	}{
		{"exp", vecUnary(uExp), math.Exp, -87, 88, 3, 0},
		{"tanh", vecUnary(uTanh), math.Tanh, -10, 10, 3, 0},
		{"sigmoid", vecUnary(uSigmoid), func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, -80, 80, 4, 0},
		{"silu", vecUnary(uSilu), func(x float64) float64 { return x / (1 + math.Exp(-x)) }, -80, 80, 4, 0},
		{"gelu", vecUnary(uGelu), func(x float64) float64 {
			return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		}, -5, 5, 4, 4e-7},
	}
	for _, c := range cases {
		var xs []float32
		sweep(c.lo, c.hi, 100000, func(x float32) { xs = append(xs, x) })
		xs = append(xs, 3, nan, 5, -inf, 7, inf, -100, 100, 1e-30, -1e-30)
		ys := make([]float32, len(xs))
		n := c.vec(ys, xs)
		if n != wantVectors(c.name, len(xs)) {
			t.Fatalf("%s: did %d of %d elements, want every full vector", c.name, n, len(xs))
		}
		for i, x := range xs[:n] {
			want := c.ref(float64(x))
			switch {
			case math.IsNaN(want):
				if ys[i] == ys[i] {
					t.Errorf("%s(%v) = %v, want NaN", c.name, x, ys[i])
				}
			case math.Abs(want) < 0x1p-126: // a subnormal result may flush to zero, as expf's
				if d := math.Abs(float64(ys[i]) - want); d > 0x1p-126 {
					t.Errorf("%s(%v) = %v, want %v", c.name, x, ys[i], want)
				}
			case ulpErr(ys[i], want) > c.maxUlps && math.Abs(float64(ys[i])-want) > c.absTol:
				t.Errorf("%s(%v) = %v, want %v (%.1f ulp)", c.name, x, ys[i], want, ulpErr(ys[i], want))
			}
		}
	}
}

func TestVecExpSum(t *testing.T) {
	eachSIMD(t, func(t *testing.T) { testVecExpSum(t) })
}

func testVecExpSum(t *testing.T) {
	xs := make([]float32, 1003)
	for i := range xs {
		xs[i] = float32(i%97)/10 - 9
	}
	xs[17] = -200 // exp underflows: the block takes the scalar path
	ys := make([]float32, len(xs))
	next := make([]float32, len(xs)) // only prefetched: the results do not depend on it
	n, s := f32.ExpSum(ys, xs, 0.5, next, expf)
	if n != wantVectors("exp_sum", len(xs)) {
		t.Fatalf("did %d elements, want every full vector", n)
	}
	want := 0.0
	for i, x := range xs[:n] {
		e := math.Exp(float64(x - 0.5)) // the kernel's argument: x - m rounded to float32
		want += e
		if ulpErr(ys[i], e) > 3 && e > 1e-30 {
			t.Errorf("exp(%v - 0.5) = %v, want %v", x, ys[i], e)
		}
	}
	if math.Abs(s-want) > 1e-6*want {
		t.Errorf("sum = %v, want %v", s, want)
	}
	if _, s2 := f32.ExpSum(nil, xs, 0.5, nil, expf); s2 != s {
		t.Errorf("sum without y = %v, with y %v", s2, s)
	}
}

// eachSIMD runs f under every SIMD level above SIMDGo that the CPU has, as a subtest.
func eachSIMD(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	_, best := SIMD()
	if best == SIMDGo {
		t.Skip("no SIMD level on this CPU: only the Go loops run")
	}
	for l := SIMDGo + 1; l <= best; l++ {
		t.Run(simdName(l), func(t *testing.T) {
			defer SetSIMD(l)()
			f(t)
		})
	}
}

// notOnNEON are the kernels with no NEON version (none now; a kernel left out of NEON goes
// here): at SIMDNEON they do nothing and the Go loop does every element.
var notOnNEON = map[string]bool{}

// wantVectors returns how many of n elements the vector kernel name does at the level in
// use: its full vectors, none where the level has no version of it.
func wantVectors(name string, n int) int {
	if runtime.GOARCH == "arm64" && notOnNEON[name] {
		return 0
	}
	return n &^ (f32.Lanes() - 1)
}

// simdData returns n values for the kernel comparisons: one in four a special value
// (streamtest.Specials), the others uniform in [-span, span), with span large enough to cross
// every kernel's fast range so that the Go fallback of a vector is exercised.
func simdData(r *rand.Rand, n int, span float32) []float32 {
	x := streamData(r, n)
	for i := range x {
		if math.Abs(float64(x[i])) < 2 && x[i] != 0 && r.IntN(3) != 0 {
			x[i] *= span / 2
		}
	}
	return x
}

// simdLengths are the row lengths tested: every tail length of both widths, and longer.
var simdLengths = func() []int {
	var ns []int
	for n := 0; n <= 40; n++ {
		ns = append(ns, n)
	}
	return append(ns, 63, 64, 65, 100, 257, 1000, 4099)
}()

// closeTo reports whether got is want within ulps float32 ulps (of want) or abs, NaN
// matching any NaN and infinities and zeros exactly (with their sign).
func closeTo(got, want float32, ulps, abs float64) bool {
	switch {
	case sameBits(got, want), got != got && want != want:
		return true
	case got != got || want != want, math.IsInf(float64(want), 0), want == 0 && ulps == 0:
		return false
	}
	return ulpErr(got, float64(want)) <= ulps || math.Abs(float64(got-want)) <= abs
}

// unaryBounds are the one-input kernels' bounds against the Go loops they replace, in
// float32 ulps and absolute: the largest differences TestSIMDUnarySweep finds on a dense
// sweep (every 37th float32 of ±[0, 110]), not a margin above them. exp differs by FMA's
// rounding in the range reduction and polynomial (1 ulp); sigmoid and silu by exp's error
// amplified where 1 + e**-x is large (x near -17: both about 2.4 ulp from math.Exp's value,
// in opposite directions); tanh (em/(em + 2) from expm1's steps, 2.4 ulp from math.Tanh
// near 0.008, the Go function 1.3) by 2; gelu's 1 + tanh cancels for x < -3, where only an
// absolute bound holds, as in torch's float32 gelu; softplus (max(x, 0) + log1p(e**-|x|),
// 1.8 ulp from math's value, the Go function's log1p(e**x) 2.7) by 3.
var unaryBounds = [nUnary][2]float64{
	uExp: {1, 0}, uSigmoid: {4, 0}, uSilu: {4, 0}, uTanh: {2, 0}, uGelu: {2, 2e-7},
	uGeluErf: {6, 2e-7}, uSoftplus: {3, 0}, uMish: {5, 0}, uHardswish: {0, 0}, uRelu: {0, 0},
}

var unaryNames = [nUnary]string{"exp", "sigmoid", "silu", "tanh", "gelu", "gelu_erf", "softplus", "mish", "hardswish", "relu"}

// TestSIMDUnarySweep compares each one-input kernel with its Go loop on a sweep of float32
// values through every kernel's ranges (and subnormals, where exp's and softplus's results
// underflow), within unaryBounds: the random rows of TestSIMDMatchesGo rarely reach a
// kernel's worst case.
func TestSIMDUnarySweep(t *testing.T) {
	var xs []float32
	for b := uint32(0); b < math.Float32bits(110); b += 4099 { // every 4099th float32
		v := math.Float32frombits(b)
		xs = append(xs, v, -v)
	}
	got, want := make([]float32, len(xs)), make([]float32, len(xs))
	eachSIMD(t, func(t *testing.T) {
		for k := range nUnary {
			unaryLoop(k)(got, xs)
			restore := SetSIMD(SIMDGo)
			unaryLoop(k)(want, xs)
			restore()
			for i, x := range xs {
				if !closeTo(got[i], want[i], unaryBounds[k][0], unaryBounds[k][1]) {
					t.Errorf("%s(%v) = %v, Go loop %v (%.1f ulp)", unaryNames[k], x, got[i], want[i], ulpErr(got[i], float64(want[i])))
					break
				}
			}
		}
	})
}

// TestSIMDMatchesGo checks every SIMD kernel, with its Go tail, against the Go loop it
// replaces (the same function at SIMDGo): bit for bit where the kernel computes the same
// IEEE operations, within the stated ulp bound where it uses FMA in the polynomials. Every
// row length 0..40 and longer, every start within a cache line for the streamed forms, and
// NaN (with payloads), infinities, signed zeros and subnormals mixed in.
func TestSIMDMatchesGo(t *testing.T) {
	nan := float32(math.NaN())
	type kernel struct {
		name      string
		ulps, abs float64
		run       func(y, x []float32)
	}
	var ks []kernel
	for k := range nUnary {
		b := unaryBounds[k]
		ks = append(ks, kernel{unaryNames[k], b[0], b[1], unaryLoop(k)})
		ks = append(ks, kernel{unaryNames[k] + "/streamed", b[0], b[1], func(y, x []float32) {
			s, e := f32.UnaryNT(k, y, x, unaryScalar[k])
			unaryLoop(k)(y[:s], x[:s])
			unaryLoop(k)(y[e:], x[e:])
		}})
	}
	tail := func(vec func(y, x []float32) int, f func(float32) float32) func(y, x []float32) {
		return func(y, x []float32) {
			for i := vec(y, x); i < len(x); i++ {
				y[i] = f(x[i])
			}
		}
	}
	for _, a := range []float32{1, 0.5, -1.5} {
		eluLoop := tail(func(y, x []float32) int { return f32.Elu(y, x, a, elu) }, func(v float32) float32 { return elu(v, a) })
		ks = append(ks, kernel{"elu", 2, 1e-7, eluLoop})
		ks = append(ks, kernel{"elu/streamed", 2, 1e-7, func(y, x []float32) {
			s, e := f32.EluNT(y, x, a, elu)
			eluLoop(y[:s], x[:s])
			eluLoop(y[e:], x[e:])
		}})
	}
	for _, s := range streamSlopes {
		ks = append(ks, kernel{"leaky_relu", 0, 0, tail(func(y, x []float32) int { return f32.LeakyRelu(y, x, s) }, func(v float32) float32 {
			if math.Signbit(float64(v)) {
				return v * s
			}
			return v
		})})
	}
	for _, b := range streamBounds {
		ks = append(ks, kernel{"clamp", 0, 0, tail(func(y, x []float32) int { return f32.Clamp(y, x, b[0], b[1]) }, func(v float32) float32 { return min(max(v, b[0]), b[1]) })})
	}
	// The exp pass against the Go loop: FMA's rounding on amd64 (1 ulp); bit for bit on
	// arm64, where Go fuses expf's multiply-adds as the NEON kernels do.
	expUlps := 1.0
	if runtime.GOARCH == "arm64" {
		expUlps = 0
	}
	for _, m := range []float32{0, 3, -50, 90} {
		ks = append(ks, kernel{"exp_sum", expUlps, 0, func(y, x []float32) {
			k, _ := f32.ExpSum(y, x, m, nil, expf)
			for i := k; i < len(x); i++ {
				y[i] = expf(x[i] - m)
			}
		}})
	}
	for op := opAdd; op <= opDiv; op++ {
		for form := range 3 {
			ks = append(ks, kernel{"arith", 0, 0, func(y, x []float32) {
				a, b := x, make([]float32, len(x))
				for i := range b {
					b[i] = x[len(x)-1-i]
				}
				switch {
				case form == 1 && len(x) > 0:
					a = []float32{1.5}
				case form == 2 && len(x) > 0:
					b = []float32{nan}
				}
				for i := f32.Arith(op, y, a, b); i < len(y); i++ {
					u, v := a[min(i, len(a)-1)], b[min(i, len(b)-1)]
					y[i] = [...]func(u, v float32) float32{opAdd: func(u, v float32) float32 { return u + v }, opSub: func(u, v float32) float32 { return u - v },
						opMul: func(u, v float32) float32 { return u * v }, opDiv: func(u, v float32) float32 { return u / v }}[op](u, v)
				}
			}})
		}
	}
	weights := func(n int) []float32 {
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(i%7) - 2.5
		}
		return w
	}
	for _, withW := range []bool{false, true} {
		ks = append(ks, kernel{"scale", 0, 0, func(y, x []float32) {
			var w, pf []float32 // pf: prefetched only, never read into y
			if withW {
				w, pf = weights(len(x)), weights(len(x) + 2)[2:]
			}
			for i := f32.Scale(y, x, w, pf, 0.3, false); i < len(x); i++ {
				y[i] = x[i] * 0.3
				if w != nil {
					y[i] *= w[i]
				}
			}
		}})
		for _, withB := range []bool{false, true} {
			ks = append(ks, kernel{"normalize", 0, 0, func(y, x []float32) {
				var w, b []float32
				if withW {
					w = weights(len(x))
				}
				if withB {
					b = weights(len(x) + 1)[1:]
				}
				// normalizeRow's own Go loop is the reference: Go fuses its adds of b with the
				// multiply before them on arm64, as a loop here with separate statements does not
				normalizeRow(y, x, w, b, weights(len(x) + 3)[3:], 0.25, 1.5, false)
			}})
		}
	}
	ks = append(ks, kernel{"max_into", 0, 0, func(y, x []float32) {
		for i := range y {
			y[i] = x[len(x)-1-i]
		}
		for i := f32.MaxInto(y, x); i < len(x); i++ {
			y[i] = max(y[i], x[i])
		}
	}})
	r := rand.New(rand.NewPCG(1, 2))
	eachSIMD(t, func(t *testing.T) {
		for _, k := range ks {
			for _, n := range simdLengths {
				for mis := range 16 {
					if mis > 0 && n > 100 {
						break
					}
					x := simdData(r, n, 200)
					got, want := aligned64(n, mis), aligned64(n, mis)
					k.run(got, x)
					restore := SetSIMD(SIMDGo)
					k.run(want, x)
					restore()
					for i := range got {
						if !closeTo(got[i], want[i], k.ulps, k.abs) {
							t.Fatalf("%s n=%d mis=%d: [%d] f(%v) = %v (%#x), Go loop %v (%#x)", k.name, n, mis, i, x[i], got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
						}
					}
				}
			}
		}
	})
}

// TestSIMDReductions checks the reduction kernels against the Go loops: sums to float64
// rounding (only the order of the float64 additions differs), max and the sum and max column
// folds bit for bit (signed zeros included; on arm64 every column fold), and a NaN anywhere
// kept.
func TestSIMDReductions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	near := func(a, b float64) bool {
		return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= 1e-12*(math.Abs(a)+math.Abs(b)+1)
	}
	// past 4*segMin elements the row kernels walk four segments at once (asmgen stream.go)
	lengths := append(slices.Clone(simdLengths), 2047, 2048, 2063, 8205, 40000)
	eachSIMD(t, func(t *testing.T) {
		for _, n := range lengths {
			for _, specials := range []bool{false, true} {
				x := simdData(r, n, 200)
				if !specials {
					for i := range x {
						if x[i] != x[i] || math.IsInf(float64(x[i]), 0) || abs32(x[i]) > 1e6 {
							x[i] = float32(i%5) - 2
						}
					}
				}
				k, s := f32.Sum(x)
				k2, ss := f32.SumSq(x)
				var ws, wss float64
				for _, v := range x[:k] {
					ws += float64(v)
				}
				for _, v := range x[:k2] {
					wss += float64(v) * float64(v)
				}
				if k != wantVectors("sum", n) || k2 != wantVectors("sum_sq", n) || !near(s, ws) || !near(ss, wss) {
					t.Fatalf("n=%d: sum %d %v (want %v), sumSq %d %v (want %v)", n, k, s, ws, k2, ss, wss)
				}
				k, a, b := f32.VarRow(x, 0.5)
				var wa, wb float64
				for _, v := range x[:k] {
					wa += float64(v) - 0.5
					wb += (float64(v) - 0.5) * (float64(v) - 0.5)
				}
				if !near(a, wa) || !near(b, wb) {
					t.Fatalf("n=%d: varRow %v %v, want %v %v", n, a, b, wa, wb)
				}
				km, m, ok := f32.Max(x)
				hasNaN := false
				wm := float32(math.Inf(-1))
				for _, v := range x[:km] {
					wm = max(wm, v)
					hasNaN = hasNaN || v != v
				}
				if ok && (hasNaN || !sameBits(m, wm) && km > 0) {
					t.Fatalf("n=%d: max %v (%d, ok %v), want %v", n, m, km, ok, wm)
				}
				for _, v := range x {
					hasNaN = hasNaN || v != v
				}
				if !ok && !hasNaN {
					t.Fatalf("n=%d: max reports a NaN where there is none", n)
				}
				// the column folds, on an accumulator holding NaNs and zeros of both signs
				acc := make([]float64, n)
				for i := range acc {
					acc[i] = []float64{math.NaN(), math.Copysign(0, -1), 0, 1.5, -3, math.Inf(-1)}[i%6]
				}
				x0 := make([]float64, n)
				for i := range x0 { // not a short binary fraction: d*d rounds, so fusing it shows
					x0[i] = float64(i%3) - 0.7
				}
				sh := make([]float32, n) // the shifts of expSumCols
				for i := range sh {
					sh[i] = float32(i%4) * 20
				}
				got := map[string][]float64{}
				for _, level := range []int{simdLevel(), SIMDGo} {
					restore := SetSIMD(level)
					sum, mx, es := slices.Clone(acc), slices.Clone(acc), slices.Clone(acc)
					s1, s2 := slices.Clone(acc), slices.Clone(acc)
					for i := f32.SumCols(sum, x); i < n; i++ {
						sum[i] += float64(x[i])
					}
					for i := f32.MaxCols(mx, x); i < n; i++ {
						mx[i] = max(mx[i], float64(x[i]))
					}
					for i := f32.ExpSumCols(es, sh, x, expf); i < n; i++ {
						es[i] += float64(expf(x[i] - sh[i]))
					}
					for i := f32.VarCols(s1, s2, x0, x); i < n; i++ {
						d := float64(x[i]) - x0[i]
						s1[i] += d
						s2[i] += d * d
					}
					restore()
					for name, v := range map[string][]float64{"sumCols": sum, "maxCols": mx, "expSumCols": es, "varCols1": s1, "varCols2": s2} {
						got[name+fmt.Sprint(level == SIMDGo)] = v
					}
				}
				for _, name := range []string{"sumCols", "maxCols", "expSumCols", "varCols1", "varCols2"} {
					g, w := got[name+"false"], got[name+"true"]
					for i := range g {
						// on arm64 every fold is bit for bit: Go fuses varCols' d*d + s2 and expf's
						// multiply-adds there as the NEON kernels do
						exact := name == "maxCols" || name == "sumCols" || runtime.GOARCH == "arm64"
						// exp's 1 ulp is of the term added, which the accumulator may cancel
						slack := 4e-7 * math.Abs(w[i])
						if name == "expSumCols" {
							slack += 0x1p-23 * float64(expf(x[i]-sh[i]))
						}
						if exact && math.Float64bits(g[i]) != math.Float64bits(w[i]) && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) ||
							!exact && !near(g[i], w[i]) && math.Abs(g[i]-w[i]) > slack {
							t.Fatalf("n=%d: %s[%d] = %v, Go loop %v (x %v, acc %v)", n, name, i, g[i], w[i], x[i], acc[i])
						}
					}
				}
			}
		}
	})
}

// TestSIMDMaxSignedZeros checks the row max where it is a zero: +0 wherever a +0 is in the
// row (Go's max takes +0 over -0), -0 where every zero is -0, on rows of every length with
// the +0 at every position, against the Go loop bit for bit.
func TestSIMDMaxSignedZeros(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	fill := []float32{negZero, -1, float32(math.Inf(-1)), -math.Float32frombits(1), negZero}
	eachSIMD(t, func(t *testing.T) {
		for n := 1; n <= 40; n++ {
			for p := -1; p < n; p++ { // p: where the +0 is (-1: none)
				x := make([]float32, n)
				for i := range x {
					x[i] = fill[(i+n)%len(fill)]
				}
				if p >= 0 {
					x[p] = 0
				}
				got := maxRow(x)
				restore := SetSIMD(SIMDGo)
				want := maxRow(x)
				restore()
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n=%d, +0 at %d: max %v (sign %v), Go loop %v (sign %v)", n, p, got, math.Signbit(got), want, math.Signbit(want))
				}
			}
		}
	})
}

// TestSIMDVectorCounts checks that the row kernels, the one-input kernels (elu, leaky relu and
// clamp included) and the column folds whose results TestSIMDMatchesGo and TestSIMDReductions
// compare with the Go loops' do every full vector at the level in use (none where the level
// has no version): a kernel that did nothing would match them too.
func TestSIMDVectorCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	eachSIMD(t, func(t *testing.T) {
		for _, n := range simdLengths {
			x := simdData(r, n, 200) // lanes outside exp's range: the Go function does those vectors
			y, w, b := make([]float32, n), make([]float32, n), make([]float32, n)
			k1, _ := f32.ExpSum(y, x, 3, nil, expf)
			x0 := slices.Clone(x)
			k2, _ := f32.ExpSum(nil, x, 3, nil, expf)
			if !slices.EqualFunc(x, x0, sameBits) {
				t.Fatalf("n=%d: vecExpSum without y wrote into x", n)
			}
			got := map[string]int{"exp_sum": min(k1, k2)}
			for mode := range 4 {
				var wm, bm []float32
				if mode&1 != 0 {
					wm = w
				}
				if mode&2 != 0 {
					bm = b
				}
				got["normalize"+fmt.Sprint(mode)] = f32.Normalize(y, x, wm, bm, nil, 0.25, 1.5, false)
			}
			got["var_row"], _, _ = f32.VarRow(x, 0.5)
			for k := range nUnary {
				got[unaryNames[k]] = f32.Unary(k, y, x, unaryScalar[k])
			}
			got["elu"] = f32.Elu(y, x, 1.5, elu)
			got["leaky_relu"] = f32.LeakyRelu(y, x, 0.1)
			got["clamp"] = f32.Clamp(y, x, -0.5, 0.5)
			got["max_into"] = f32.MaxInto(y, x)
			acc := make([]float64, n)
			got["sum_cols"] = f32.SumCols(acc, x)
			got["max_cols"] = f32.MaxCols(acc, x)
			got["var_cols"] = f32.VarCols(acc, make([]float64, n), make([]float64, n), x)
			got["exp_sum_cols"] = f32.ExpSumCols(acc, make([]float32, n), x, expf)
			if n >= 2*f32.Lanes() { // amd64's cumsum starts at two vectors
				got["cumsum"], _ = f32.Cumsum(y, x, nil, false)
			}
			for name, k := range got {
				if want := wantVectors(strings.TrimRight(name, "0123"), n); k != want || k1 != k2 {
					t.Errorf("n=%d: %s did %d elements, want %d", n, name, k, want)
				}
			}
		}
	})
}

// TestSIMDAbove checks top-k's scan: vecAbove returns the offset of the first full vector
// holding an element above t or a NaN (the one element placed at p), the full-vector length
// when none does; -0 and +0 are equal, as in Go's compare.
func TestSIMDAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	inf, negZero := float32(math.Inf(1)), float32(math.Copysign(0, -1))
	eachSIMD(t, func(t *testing.T) {
		l := f32.Lanes()
		for _, n := range simdLengths {
			for _, th := range []float32{1.5, 0, negZero, -3, inf, -inf} {
				for trial := range 8 {
					x := make([]float32, n)
					for i := range x { // at most th: th itself, the other zero, or below
						switch r.IntN(4) {
						case 0:
							x[i] = th
						case 1:
							if th == 0 {
								x[i] = negZero
								if math.Signbit(float64(th)) {
									x[i] = 0
								}
								break
							}
							fallthrough
						default:
							x[i] = th - r.Float32()*4
						}
					}
					p := r.IntN(n + 1) // n: no element above th
					if p < n {
						above := []float32{float32(math.NaN()), math.Nextafter32(th, inf), inf}[trial%3]
						if !(above > th) && above == above {
							above = float32(math.NaN()) // th is +Inf: only a NaN is above it
						}
						x[p] = above
					}
					want := min(p, n) &^ (l - 1)
					if got := f32.Above(x, th); got != want {
						t.Fatalf("n=%d t=%v above at %d: vecAbove = %d, want %d", n, th, p, got, want)
					}
				}
			}
		}
	})
}

// TestSIMDRope checks rope's vector rows against its Go loop (RopeFwd at SIMDGo) bit for bit
// on every half length 1..40 and longer, NaN, infinities and signed zeros mixed into x, cos
// and sin, and that vecRope does every full vector.
func TestSIMDRope(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	eachSIMD(t, func(t *testing.T) {
		for _, p := range simdLengths[1:] {
			const s, h = 2, 3
			op, err := NewRopeFwd(1, s, h, 2*p, Float32)
			if err != nil {
				t.Fatal(err)
			}
			x, cos, sin := mustTensor(t, Float32, 1, s, h, 2*p), mustTensor(t, Float32, s, 2*p), mustTensor(t, Float32, s, 2*p)
			copy(x.Data, simdData(r, len(x.Data), 4))
			copy(cos.Data, simdData(r, len(cos.Data), 1))
			copy(sin.Data, simdData(r, len(sin.Data), 1))
			got, want := mustTensor(t, Float32, 1, s, h, 2*p), mustTensor(t, Float32, 1, s, h, 2*p)
			if err := op.Forward(got, x, cos, sin); err != nil {
				t.Fatal(err)
			}
			restore := SetSIMD(SIMDGo)
			err = op.Forward(want, x, cos, sin)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			for i := range got.Data {
				if !closeTo(got.Data[i], want.Data[i], 0, 0) {
					t.Fatalf("p=%d: y[%d] = %v (%#x), Go loop %v (%#x)", p, i, got.Data[i], math.Float32bits(got.Data[i]), want.Data[i], math.Float32bits(want.Data[i]))
				}
			}
			y := make([]float32, p)
			if k := f32.Rope(y, y, x.Data[:p], x.Data[p:2*p], cos.Data[:p], cos.Data[p:2*p], sin.Data[:p], sin.Data[p:2*p]); k != wantVectors("rope", p) {
				t.Fatalf("p=%d: vecRope did %d elements, want %d", p, k, wantVectors("rope", p))
			}
		}
	})
}

func TestSIMDLevels(t *testing.T) {
	now, best := SIMD()
	if now > best || now < SIMDGo {
		t.Fatalf("SIMD() = %d, %d: the level in use must be within SIMDGo..best", now, best)
	}
	restore := SetSIMD(SIMDAVX512 + 5)
	if l, _ := SIMD(); l != best {
		t.Errorf("SetSIMD above the CPU's best: level %d, want the best %d", l, best)
	}
	SetSIMD(0)
	if l, _ := SIMD(); l != SIMDGo {
		t.Errorf("SetSIMD(0): level %d, want SIMDGo", l)
	}
	if k := f32.Unary(uExp, make([]float32, 64), make([]float32, 64), expf); k != 0 {
		t.Errorf("at SIMDGo f32.Unary(uExp) did %d elements, want 0 (the Go loop does all)", k)
	}
	restore()
	if l, _ := SIMD(); l != now {
		t.Errorf("restore: level %d, want %d", l, now)
	}
	want := map[string]int{"go": SIMDGo, "avx2": best, "avx512": best, "neon": best, "": best, "sse9": best}
	for name, l := range simdNames { // this architecture's names; the others' mean the best
		want[name] = min(l, best)
		if simdName(l) != name {
			t.Errorf("simdName(%d) = %q, want %q", l, simdName(l), name)
		}
	}
	for v, want := range want {
		if got := envSIMD(v); got != want {
			t.Errorf("ROPGEN_SIMD=%q: level %d, want %d", v, got, want)
		}
	}
}

// BenchmarkSIMDUnary times each one-input kernel on an L1-resident row at every level: the
// compute rate, which must stay well above a core's share of DRAM bandwidth.
func BenchmarkSIMDUnary(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 4096)
	for i := range x {
		x[i] = r.Float32()*8 - 4
	}
	y := make([]float32, len(x))
	_, best := SIMD()
	for k := range nUnary {
		for l := SIMDGo; l <= best; l++ {
			b.Run(fmt.Sprintf("%s/level=%d", unaryNames[k], l), func(b *testing.B) {
				defer SetSIMD(l)()
				loop := unaryLoop(k)
				b.SetBytes(int64(8 * len(x)))
				for b.Loop() {
					loop(y, x)
				}
			})
		}
	}
}

// TestSIMDStreamForward runs the ops whose large outputs stream with streaming forced
// (streamMinBytes 0) on rows that are not a whole number of lines (so every row has its own
// unaligned head and tail), and checks them bit for bit against the same op with streaming
// off (streamMinBytes raised): the streamed and the cached paths compute the same values.
func TestSIMDStreamForward(t *testing.T) {
	for _, cols := range []int{4099, 1029, 4096, 1024, 16} {
		testStreamForward(t, 48, cols)
	}
}

func testStreamForward(t *testing.T, rows, cols int) {
	r := rand.New(rand.NewPCG(7, uint64(cols)))
	x, y, want := mustTensor(t, Float32, rows, cols), mustTensor(t, Float32, rows, cols), mustTensor(t, Float32, rows, cols)
	x.Data = simdData(r, rows*cols, 40)
	w, b := mustTensor(t, Float32, cols), mustTensor(t, Float32, cols)
	w.Data, b.Data = simdData(r, cols, 3), simdData(r, cols, 3)
	type fwd = func(out *Tensor) error
	un := func(op interface{ Forward(out, x *Tensor) error }, err error) fwd {
		if err != nil {
			t.Fatal(err)
		}
		return func(out *Tensor) error { return op.Forward(out, x) }
	}
	eps := 1e-5
	rms, _ := NewRMSNormFwd([]int{cols}, &eps, Float32)
	ln, _ := NewLayerNormFwd([]int{cols}, 1e-5, Float32)
	cases := map[string]fwd{
		"exp": un(NewExpFwd(Float32)), "sigmoid": un(NewSigmoidFwd(Float32)), "silu": un(NewSiluFwd(Float32)),
		"tanh": un(NewTanhFwd(Float32)), "gelu": un(NewGeluFwd(Float32)), "gelu_erf": un(NewGeluErfFwd(Float32)),
		"softplus": un(NewSoftplusFwd(Float32)), "mish": un(NewMishFwd(Float32)), "hardswish": un(NewHardswishFwd(Float32)),
		"elu":     un(NewEluFwd(1.5, Float32)),
		"softmax": un(NewSoftmaxFwd(-1, Float32)), "log_softmax": un(NewLogSoftmaxFwd(-1, Float32)),
		"rms_norm":     func(out *Tensor) error { return rms.Forward(out, x, w) },
		"rms_norm/nw":  func(out *Tensor) error { return rms.Forward(out, x, nil) },
		"layer_norm":   func(out *Tensor) error { return ln.Forward(out, x, w, b) },
		"layer_norm/w": func(out *Tensor) error { return ln.Forward(out, x, w, nil) },
		"layer_norm/b": func(out *Tensor) error { return ln.Forward(out, x, nil, b) },
		"layer_norm/-": func(out *Tensor) error { return ln.Forward(out, x, nil, nil) },
	}
	prev := streamMinBytes
	defer func() { streamMinBytes = prev }()
	eachSIMD(t, func(t *testing.T) {
		if cols%16 == 0 && simdLevel() >= SIMDAVX512 && !f32.FusedRowsOK(y.Data, cols) {
			t.Fatalf("cols=%d: softmax's fused pass would not run on y (not 64-byte aligned?)", cols)
		}
		for name, f := range cases {
			clear(y.Data)
			streamMinBytes = 0
			if err := f(y); err != nil {
				t.Fatal(err)
			}
			streamMinBytes = 1 << 62
			if err := f(want); err != nil {
				t.Fatal(err)
			}
			// A one-input op's vectors start elsewhere when streamed, so a vector the kernel
			// leaves to the Go function holds other elements: the ulp bound of
			// TestSIMDMatchesGo holds between the two. The row ops are bit for bit.
			ulps, abs := 0.0, 0.0
			if !strings.Contains("softmax log_softmax rms_norm layer_norm", strings.Split(name, "/")[0]) {
				ulps, abs = 3, 2e-7
			}
			for i := range y.Data {
				if !closeTo(y.Data[i], want.Data[i], ulps, abs) {
					t.Fatalf("%s cols=%d: streamed y[%d] = %v, cached %v", name, cols, i, y.Data[i], want.Data[i])
				}
			}
		}
	})
}

// TestSIMDTranspose checks the transpose's vector tiles, streamed and not, against the
// reference element for element: ragged edges in both dims, rows of y that are and are not
// whole lines, blocks larger than trBlock, and a mid dim.
func TestSIMDTranspose(t *testing.T) {
	prev := streamMinBytes
	defer func() { streamMinBytes = prev }()
	shapes := []struct {
		shape      []int
		dim0, dim1 int
	}{
		{[]int{300, 301}, 0, 1}, {[]int{528, 300}, 0, 1}, {[]int{1040, 530}, 0, 1}, {[]int{16, 8}, 0, 1},
		{[]int{15, 7}, 0, 1}, {[]int{2, 48, 3, 130}, 1, 3}, {[]int{3, 64, 96}, 1, 2},
	}
	eachSIMD(t, func(t *testing.T) {
		for _, c := range shapes {
			for _, min := range []int{0, 1 << 62} {
				streamMinBytes = min
				op, err := NewTransposeFwd(c.dim0, c.dim1, Float32)
				if err != nil {
					t.Fatal(err)
				}
				x := seq(t, c.shape...)
				shape, err := op.Bind(x)
				if err != nil {
					t.Fatal(err)
				}
				y, want := mustTensor(t, Float32, shape...), mustTensor(t, Float32, shape...)
				if err := op.Forward(y, x); err != nil {
					t.Fatal(err)
				}
				op.reference(want, x)
				for i := range y.Data {
					if y.Data[i] != want.Data[i] {
						t.Fatalf("%v (%d, %d) streamed=%v: y[%d] = %v, want %v", c.shape, c.dim0, c.dim1, min == 0, i, y.Data[i], want.Data[i])
					}
				}
			}
		}
	})
}

// TestSIMDCumsum checks the vector running sum against the Go loop: every length and start
// within a line (the AVX-512 steps stream from the first 64-byte boundary), streamed and not, NaN and infinities carried along. The vector steps add in
// another order in float64, so an element is within one float32 ulp of the Go loop's, or
// within 2**-50 of the largest partial sum so far (where the running sum cancels).
func TestSIMDCumsum(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	eachSIMD(t, func(t *testing.T) {
		for _, n := range simdLengths {
			for mis := range 16 {
				for _, stream := range []bool{false, true} {
					x := simdData(r, n, 100)
					if mis%2 == 0 { // finite rows too, so the bound is exercised beyond NaN
						for i := range x {
							if x[i] != x[i] || math.IsInf(float64(x[i]), 0) || abs32(x[i]) > 1e30 {
								x[i] = float32(i%7) - 3
							}
						}
					}
					y, want := aligned64(n, mis), aligned64(n, mis)
					cumsumRow(y, x, make([]float32, len(x)), stream) // a prefetched next row
					f32.Fence()
					var s, big float64
					for i, v := range x {
						s += float64(v)
						want[i] = float32(s)
						big = max(big, math.Abs(s))
						if !closeTo(y[i], want[i], 1, 0x1p-50*big) {
							t.Fatalf("n=%d mis=%d stream=%v: y[%d] = %v, Go loop %v", n, mis, stream, i, y[i], want[i])
						}
					}
				}
			}
		}
	})
}

// TestSIMDCumsum4 checks the four-row running sum against cumsumRow on each row, bit for
// bit (any NaN matching any NaN): every length to 40 and beyond, rows starting on the store
// alignment and off it, streamed and not. The kernel must take exactly the rows its doc
// promises (amd64, two or more whole vector steps, aligned rows when streamed); where it
// refuses, y is untouched.
func TestSIMDCumsum4(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	eachSIMD(t, func(t *testing.T) {
		l := f32.Lanes()
		for _, n := range append(simdLengths, 4096) {
			for _, mis := range []int{0, 1, 4} { // off by an element, and by 16 bytes
				for _, stream := range []bool{false, true} {
					x := simdData(r, 4*n, 100)
					y, want := aligned64(4*n, mis), aligned64(4*n, mis)
					for i := range y {
						y[i] = -7
					}
					took := f32.Cumsum4(y, x, nil, n, stream)
					f32.Fence()
					aligned := mis == 0 || (l == 8 && mis == 4) // AVX2 streams 16-byte halves
					if wantTook := runtime.GOARCH == "amd64" && n >= 2*l && n%l == 0 && (!stream || aligned); took != wantTook {
						t.Fatalf("n=%d mis=%d stream=%v: took the rows = %v, want %v", n, mis, stream, took, wantTook)
					}
					if !took {
						for i, v := range y {
							if v != -7 {
								t.Fatalf("n=%d mis=%d stream=%v: refused but wrote y[%d] = %v", n, mis, stream, i, v)
							}
						}
						continue
					}
					for k := range 4 {
						cumsumRow(want[k*n:(k+1)*n], x[k*n:(k+1)*n], nil, stream)
					}
					f32.Fence()
					for i := range y {
						if math.Float32bits(y[i]) != math.Float32bits(want[i]) && !(y[i] != y[i] && want[i] != want[i]) {
							t.Fatalf("n=%d mis=%d stream=%v: y[%d] = %v, cumsumRow %v", n, mis, stream, i, y[i], want[i])
						}
					}
				}
			}
		}
	})
}

// vecUnary returns the vector kernel of unary k with its Go element function, as unaryLoop
// runs it: the form of the kernels the tables of these tests list.
func vecUnary(k int) func(y, x []float32) int {
	return func(y, x []float32) int { return f32.Unary(k, y, x, unaryScalar[k]) }
}
