package ops

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// gemmErrorBound is the bound every GEMM kernel keeps to: |c[i,j] - Σ_p a[i,p]·b[p,j]| ≤
// γ_k · Σ_p |a[i,p]·b[p,j]|, γ_k = k·u/(1 - k·u) with u = 2^-24 the float32 unit roundoff
// (Higham, Accuracy and Stability of Numerical Algorithms, §3.1). It holds for any order of
// summation and with or without fused multiply-adds, so it covers the reference's running
// sum, the vector kernels' fused steps and f32.Dot4's sixteen partial sums alike.
func gemmErrorBound(k int, absSum float64) float64 {
	u := 0x1p-24
	ku := float64(k) * u
	return ku / (1 - ku) * absSum
}

// withEachKernel runs f under every GEMM kernel this CPU runs (by SIMD level), and under
// each again with small blocks (kc 16, mc 2 tiles, nc 2 panels) so that small products walk
// every loop of the block nest: several k blocks continuing a running sum, several m and n
// blocks.
func withEachKernel(t *testing.T, f func(t *testing.T)) {
	for _, level := range slices.Sorted(maps.Keys(gemmKernels)) {
		k := gemmKernels[level]
		small := *k
		small.name += "-smallblocks"
		small.kc, small.mc, small.nc = 16, 2*k.mr, 2*k.nr
		for _, kern := range []*microKernel{k, &small} {
			t.Run(kern.name, func(t *testing.T) {
				defer SetSIMD(level)()
				gemmKernels[level] = kern
				defer func() { gemmKernels[level] = k }()
				if got := gemmActive(); got != kern {
					t.Fatalf("SIMD level %d runs GEMM kernel %s, want %s", level, got.name, kern.name)
				}
				f(t)
			})
		}
	}
}

// checkGemm64 compares c = a·b (row-major m×k and k×n) against the float64 sum: NaN where
// it is NaN, the same infinity where it is infinite, and within gemmErrorBound elsewhere.
func checkGemm64(t *testing.T, what string, m, n, k int, a, b, c []float32) {
	t.Helper()
	bad := 0
	for i := range m {
		for j := range n {
			var s, abs float64
			for p := range k {
				x := float64(a[i*k+p]) * float64(b[p*n+j])
				s += x
				abs += math.Abs(x)
			}
			got := float64(c[i*n+j])
			var ok bool
			switch {
			case math.IsNaN(s):
				ok = math.IsNaN(got)
			case math.IsInf(s, 0):
				ok = got == s
			default:
				ok = math.Abs(got-s) <= gemmErrorBound(k, abs)
			}
			if !ok {
				if bad == 0 {
					t.Errorf("%s m=%d n=%d k=%d: c[%d,%d] = %v, float64 sum %v (bound %.3g)",
						what, m, n, k, i, j, got, s, gemmErrorBound(k, abs))
				}
				bad++
			}
		}
	}
	if bad > 1 {
		t.Errorf("%s m=%d n=%d k=%d: %d elements out of bound", what, m, n, k, bad)
	}
}

// TestGemmKernelsFloat64Bound runs every kernel on every edge of its tiles: m, n and k one
// below, at and above the micro-tile (and the gemv widths, 32 columns and 16 terms), 1×1,
// k = 1, the few-row gemv paths, and all four operand layouts, against the float64 sum.
// c starts as NaN, so a kernel that read c instead of overwriting it would fail.
func TestGemmKernelsFloat64Bound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ms := []int{1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 25, 37}
	ns := []int{1, 3, 15, 16, 17, 31, 32, 33, 65, 100}
	ks := []int{1, 2, 15, 16, 17, 33, 70}
	withEachKernel(t, func(t *testing.T) {
		for _, m := range ms {
			for _, n := range ns {
				for _, k := range ks {
					if m*n*k > 40000 && (m+n+k)%3 != 0 { // a third of the large shapes keeps the test short
						continue
					}
					a, b := randMat(rng, m*k, false), randMat(rng, k*n, false)
					for _, l := range gemmLayouts(m, n, k, a, b) {
						c := make([]float32, m*n)
						for i := range c {
							c[i] = float32(math.NaN())
						}
						gemm(m, n, k, l.a, l.b, c)
						checkGemm64(t, l.name, m, n, k, a, b, c)
					}
				}
			}
		}
	})
}

// TestGemmKernelsNaNInf puts a NaN in one row of a, +Inf and -Inf in columns of b (the two
// infinities meeting in one column gives NaN there), and checks every kernel propagates
// them as IEEE arithmetic does, with the rest of c unharmed. The shape's padding rows and
// columns meet the infinities too (0·Inf is NaN) and must not leak into c.
func TestGemmKernelsNaNInf(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range [][3]int{{1, 40, 20}, {3, 70, 33}, {13, 35, 19}, {30, 70, 40}} {
		m, n, k := s[0], s[1], s[2]
		a, b := randMat(rng, m*k, false), randMat(rng, k*n, false)
		for i := range a {
			if a[i] == 0 {
				a[i] = 0.5 // no zero meets an infinity by chance
			}
		}
		a[(m/2)*k+k/3] = float32(math.NaN())
		b[(k/2)*n+1] = float32(math.Inf(1))
		b[(k-1)*n+n-1] = float32(math.Inf(-1))
		b[0*n+n/2] = float32(math.Inf(1))
		b[(k/3)*n+n/2] = float32(math.Inf(-1))
		withEachKernel(t, func(t *testing.T) {
			for _, l := range gemmLayouts(m, n, k, a, b) {
				c := make([]float32, m*n)
				gemm(m, n, k, l.a, l.b, c)
				checkGemm64(t, l.name, m, n, k, a, b, c)
			}
		})
	}
}

type gemmLayout struct {
	name string
	a, b mat
}

// gemmLayouts views row-major a (m×k) and b (k×n) in the layouts the ops pass: both
// row-major; b transposed (linear's weight); b strided (neither rows nor columns
// contiguous); a transposed too.
func gemmLayouts(m, n, k int, a, b []float32) []gemmLayout {
	bT := make([]float32, n*k)
	bSpread := make([]float32, 4*k*n)
	for p := range k {
		for j := range n {
			bT[j*k+p] = b[p*n+j]
			bSpread[p*4*n+2*j] = b[p*n+j]
		}
	}
	aT := make([]float32, k*m)
	for i := range m {
		for p := range k {
			aT[p*m+i] = a[i*k+p]
		}
	}
	return []gemmLayout{
		{"row-major", rowMajor(a, k), rowMajor(b, n)},
		{"b transposed", rowMajor(a, k), rowMajor(bT, k).t()},
		{"b strided", rowMajor(a, k), mat{bSpread, 4 * n, 2}},
		{"a transposed", rowMajor(aT, m).t(), rowMajor(bT, k).t()},
	}
}

// TestGemmBlocking checks the block sizes derived from the caches: kc·nr floats fill half
// of L1, mc·kc half of L2, and each is a whole number of steps, tiles and panels.
func TestGemmBlocking(t *testing.T) {
	for _, c := range []struct{ mr, nr, l1, l2, l3, cores, kc, mc, nc int }{
		{12, 32, 48 << 10, 2 << 20, 480 << 20, 2, 256, 1020, 8192}, // this project's reference host
		{6, 16, 32 << 10, 512 << 10, 32 << 20, 8, 336, 192, 1552},  // a Zen 3 core
		{12, 32, 1 << 10, 4 << 10, 8 << 10, 1, 64, 12, 32},         // tiny caches: the floors
		{6, 16, 1 << 20, 64 << 20, 1 << 30, 1, 512, 4092, 8192},    // huge caches: the caps
	} {
		kc, mc, nc := gemmBlocking(c.mr, c.nr, c.l1, c.l2, c.l3, c.cores)
		if kc != c.kc || mc != c.mc || nc != c.nc {
			t.Errorf("gemmBlocking(%d, %d, L1 %d, L2 %d, L3 %d, %d cores) = %d, %d, %d; want %d, %d, %d",
				c.mr, c.nr, c.l1, c.l2, c.l3, c.cores, kc, mc, nc, c.kc, c.mc, c.nc)
		}
	}
	for _, c := range [][4]int{{600, 512, 8, 304}, {1024, 192, 8, 176}, {100, 512, 8, 104}, {5, 512, 8, 8}, {256, 192, 8, 128}} {
		if got := evenBlock(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("evenBlock(%d, %d, %d) = %d, want %d", c[0], c[1], c[2], got, c[3])
		}
	}
}

// TestGemmKernelFollowsSIMD checks the SIMD level chooses the GEMM kernel: the Go loops'
// level the pure-Go kernel, the CPU's best level its best kernel.
func TestGemmKernelFollowsSIMD(t *testing.T) {
	restore := SetSIMD(SIMDGo)
	got := GemmKernel()
	restore()
	if got != "go" {
		t.Errorf("at SIMDGo the GEMM kernel is %s, want go", got)
	}
	want := simdName(cpuSIMD) // each vector kernel is named after its level
	defer SetSIMD(cpuSIMD)()
	if got := GemmKernel(); got != want {
		t.Errorf("at the CPU's level %d the GEMM kernel is %s, want %s", cpuSIMD, got, want)
	}
}

// fma32 is float32's fused multiply-add a·b + c rounded once, as FMLA and VFMADD231PS
// round it: a·b is exact in float64, so the float64 sum s is the exact result rounded once;
// rounding s to float32 again is the once-rounded result unless s lies exactly halfway
// between two float32 values, where the sign of the first rounding's error (TwoSum)
// decides. For finite results below the float32 overflow threshold.
func fma32(a, b, c float32) float32 {
	p, q := float64(a)*float64(b), float64(c)
	s := p + q
	r := float32(s)
	if float64(r) == s || math.IsInf(float64(r), 0) || s != s {
		return r
	}
	bv := s - p
	e := (p - (s - bv)) + (q - bv) // s + e == p + q exactly
	other := math.Nextafter32(r, float32(math.Copysign(math.Inf(1), s-float64(r))))
	if e == 0 || float64(r)-s != s-float64(other) {
		return r // not a halfway case: float32(s) is nearest to p + q too
	}
	if (e > 0) == (float64(other) > s) {
		return other
	}
	return r
}

func TestFma32(t *testing.T) {
	// (1 + 2⁻²³)(1 - 2⁻²⁴) + 2⁻⁴⁷(1 + 2⁻²³) = 1 + 2⁻²⁴ + 2⁻⁷⁰: just above the halfway point
	// 1 + 2⁻²⁴, so it rounds up to 1 + 2⁻²³; rounded to float64 first it is the halfway point,
	// which rounds to even, 1.
	a, b, c := math.Float32frombits(0x3f800001), math.Float32frombits(0x3f7fffff), float32(0x1p-47*(1+0x1p-23))
	if naive := float32(math.FMA(float64(a), float64(b), float64(c))); naive != 1 {
		t.Fatalf("the double-rounding case is not one: float32(math.FMA) = %v", naive)
	}
	if got, want := fma32(a, b, c), float32(1+0x1p-23); got != want {
		t.Errorf("fma32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
	}
	if got, want := fma32(a, b, -c), float32(1); got != want { // just below halfway
		t.Errorf("fma32(%v, %v, %v) = %v, want %v", a, b, -c, got, want)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 10000 { // the common case: float32(math.FMA) is right but for the rare halfway sums
		a, b, c := rng.Float32()-0.5, rng.Float32()*3, rng.Float32()-0.5
		if got, want := fma32(a, b, c), float32(math.FMA(float64(a), float64(b), float64(c))); got != want {
			t.Errorf("fma32(%v, %v, %v) = %v, float32(math.FMA) %v", a, b, c, got, want)
		}
	}
}

// TestGemmTilesFused checks every vector micro-kernel's tile bit for bit against the fused
// running sum its header promises: c[i, j] = fma(a[i, p], b[p, j], ...) for p = 0..kc-1 in
// order, from zero or from c's tile (load). Signed zeros and products of mixed sign are in
// the panels; the elements of c between tile rows (ldc > nr) must stay untouched. A kernel
// that also reads a's rows in place (tileRows) must give the same bits from them.
func TestGemmTilesFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, level := range slices.Sorted(maps.Keys(gemmKernels)) {
		k := gemmKernels[level]
		if level == SIMDGo {
			continue // the Go tile's steps are fused or not as the compiler chooses
		}
		mr, nr := k.mr, k.nr
		for _, kc := range []int{1, 2, 3, 8, 61} {
			for _, load := range []bool{false, true} {
				a, b := randMat(rng, kc*mr, false), randMat(rng, kc*nr, false)
				a[0], b[nr-1], b[len(b)-1] = float32(math.Copysign(0, -1)), 0, float32(math.Copysign(0, -1))
				ldc := nr + 3
				c := make([]float32, mr*ldc)
				for i := range c {
					c[i] = rng.Float32()*4 - 2
				}
				c[1] = float32(math.Copysign(0, -1))
				want := slices.Clone(c)
				for i := range mr {
					for j := range nr {
						acc := float32(0)
						if load {
							acc = c[i*ldc+j]
						}
						for p := range kc {
							acc = fma32(a[p*mr+i], b[p*nr+j], acc)
						}
						want[i*ldc+j] = acc
					}
				}
				in := slices.Clone(c)
				k.tile(kc, a, b, c, ldc, load)
				for i := range c {
					if !sameBits(c[i], want[i]) {
						t.Fatalf("%s kc=%d load=%v: c[%d, %d] = %v, fused sum %v", k.name, kc, load, i/ldc, i%ldc, c[i], want[i])
					}
				}
				if k.tileRows == nil {
					continue
				}
				// The same tile from a's rows in place, lda apart, NaN between them.
				lda := kc + 5
				rows := make([]float32, mr*lda)
				for i := range rows {
					rows[i] = float32(math.NaN())
				}
				for i := range mr {
					for p := range kc {
						rows[i*lda+p] = a[p*mr+i]
					}
				}
				k.tileRows(kc, rows, lda, b, in, ldc, load)
				for i := range in {
					if !sameBits(in[i], want[i]) {
						t.Fatalf("%s rows kc=%d load=%v: c[%d, %d] = %v, fused sum %v", k.name, kc, load, i/ldc, i%ldc, in[i], want[i])
					}
				}
			}
		}
	}
}
