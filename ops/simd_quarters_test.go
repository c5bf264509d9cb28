package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// TestSIMDQuarters checks the streamed loops that walk four quarters of their range side by
// side (asmgen's quartered): the one-input kernels and the norms' output passes, on lengths
// whose quarters hold one line, several, and a remainder walked in order after them.
//   - A unary's rows inside every kernel's fast range must run the quarters to their end:
//     the raw kernel does every full vector, within the bounds of TestSIMDMatchesGo of the
//     Go loop.
//   - One value outside that range in each quarter, and in the remainder, must stop the
//     quarters and start the in-order loop over, which stops at that vector; every element
//     still matches the Go loop.
//   - The exp pass of the softmax family (expSum) likewise, with and without storing the
//     exps, and its sum within 1e-6 of the float64 sum of the Go function's values.
//   - The norms' passes, streamed, must equal the same pass with ordinary stores bit for
//     bit in every mode.
func TestSIMDQuarters(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lengths := []int{64, 80, 144, 1000, 4099}
	eachSIMD(t, func(t *testing.T) {
		skipUnquartered(t)
		for k := range nUnary {
			kern := f32.RawUnary(k)
			for _, n := range lengths {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.Float64()*6 - 3) // inside every kernel's fast range
				}
				full := n &^ 15
				q := full / 64 * 16
				for _, bad := range []int{-1, 0, q - 1, q + 3, 2*q + 17, 3*q + q - 1, 4 * q, full - 1} {
					xs := append([]float32(nil), x...)
					if bad >= 0 && bad < full {
						xs[bad] = 1e4 // outside exp's range, a check's or none (tanh, relu)
					}
					got, want := aligned64(n, 0), aligned64(n, 0)
					did := kern(got[:full], xs[:full], 1)
					if bad < 0 && did != full {
						t.Fatalf("%s n=%d: the streamed kernel did %d of %d elements in range", unaryNames[k], n, did, full)
					}
					if bad >= 0 && did > bad {
						if out := !closeTo(got[bad], unaryScalar[k](xs[bad]), unaryBounds[k][0], unaryBounds[k][1]); out {
							t.Fatalf("%s n=%d: did %d elements past %v at %d, = %v", unaryNames[k], n, did, xs[bad], bad, got[bad])
						}
					}
					s, e := f32.UnaryNT(k, got, xs, unaryScalar[k])
					unaryLoop(k)(got[:s], xs[:s])
					unaryLoop(k)(got[e:], xs[e:])
					restore := SetSIMD(SIMDGo)
					unaryLoop(k)(want, xs)
					restore()
					for i := range got {
						if !closeTo(got[i], want[i], unaryBounds[k][0], unaryBounds[k][1]) {
							t.Fatalf("%s n=%d bad=%d: [%d] f(%v) = %v, Go loop %v", unaryNames[k], n, bad, i, xs[i], got[i], want[i])
						}
					}
				}
			}
		}
		expSum := f32.RawExpSum()
		for _, n := range lengths {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.Float64()*6 - 3)
			}
			full := n &^ 15
			q := full / 64 * 16
			for _, bad := range []int{-1, 0, q + 3, 2*q + 17, 3*q + q - 1, 4 * q, full - 1} {
				xs := append([]float32(nil), x...)
				if bad >= 0 && bad < full {
					xs[bad] = -200 // below exp's range: AVX2 stops there
				}
				for _, store := range []bool{true, false} {
					y := make([]float32, n)
					var out []float32
					if store {
						out = y
					}
					if did, _ := expSum(y[:full], xs[:full], 3, boolInt(store), &xs[0]); bad < 0 && did != full {
						t.Fatalf("exp_sum n=%d: did %d of %d elements in range", n, did, full)
					}
					clear(y)
					k, sum := f32.ExpSum(out, xs, 3, nil, expf) // the full vectors
					want := 0.0
					for i, v := range xs[:k] {
						e := expf(v - 3)
						want += float64(e)
						if store && !closeTo(y[i], e, 1, 0) {
							t.Fatalf("exp_sum n=%d bad=%d: [%d] exp(%v - 3) = %v, Go %v", n, bad, i, v, y[i], e)
						}
					}
					if math.Abs(sum-want) > 1e-6*want {
						t.Fatalf("exp_sum n=%d bad=%d store=%v: sum %v, want %v", n, bad, store, sum, want)
					}
				}
			}
		}
		for _, n := range lengths {
			x, w, b := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], w[i], b[i] = float32(r.NormFloat64()), float32(i%7)-2.5, float32(i%5)*0.3
			}
			full := n &^ 15
			for mode := range 4 {
				wm, bm := w[:full], b[:full]
				if mode&1 == 0 {
					wm = nil
				}
				if mode&2 == 0 {
					bm = nil
				}
				for _, pass := range []struct {
					name string
					run  func(y []float32, nt bool) int
				}{
					{"normalize", func(y []float32, nt bool) int { return f32.Normalize(y, x[:full], wm, bm, nil, 0.25, 1.5, nt) }},
					{"scale", func(y []float32, nt bool) int { return f32.Scale(y, x[:full], wm, nil, 0.3, nt) }},
				} {
					got, want := aligned64(full, 0), aligned64(full, 0)
					if d := pass.run(got, true); d != full {
						t.Fatalf("%s mode %d n=%d: streamed did %d of %d", pass.name, mode, n, d, full)
					}
					pass.run(want, false)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s mode %d n=%d: streamed [%d] = %v, stored %v", pass.name, mode, n, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

// TestSIMDExpSumOut checks the fused kernel of softmax and log_softmax on AVX-512 against
// the kernels it fuses, bit for bit: its exps and their sum against vecExpSum's of the
// same row, its streamed output against vecScale's (softmax: y = a * c, the exps written
// over a itself, as SoftmaxFwd does) or vecNormalize's with r = 1 (log_softmax: y = a - c).
// It runs at AVX-512 whatever ROPGEN_SIMD says: the kernels it compares with must be the
// AVX-512 ones, and at a lower level the fused pass must not run (TestFusedRowsLevel).
func TestSIMDExpSumOut(t *testing.T) {
	if _, best := SIMD(); best < SIMDAVX512 {
		t.Skip("no AVX-512: the fused kernel does not run")
	}
	defer SetSIMD(SIMDAVX512)()
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{16, 64, 80, 1024, 4112} {
		x, a := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], a[i] = float32(r.NormFloat64()*30), float32(r.NormFloat64())
		}
		x[n/3] = -1e4 // far below exp's range: AVX-512 clamps, the exp is 0
		m := float32(maxRow(x))
		wantE := make([]float32, n)
		_, wantS := f32.ExpSum(wantE, x, m, nil, expf)
		for _, softmax := range []bool{true, false} {
			y, want := aligned64(n, 0), aligned64(n, 0)
			if !f32.FusedRowsOK(y, n) {
				t.Fatalf("n=%d: fusedRowsOK is false on an aligned row", n)
			}
			var e []float32
			if softmax {
				f32.Scale(want, a, nil, nil, 0.37, false)
				e = append([]float32(nil), a...) // a itself, overwritten
			} else {
				f32.Normalize(want, a, nil, nil, nil, 0.37, 1, false)
			}
			src := a
			if softmax {
				src = e
			}
			k, s := f32.ExpSumOut(y, src, 0.37, e, x, m, nil, expf)
			if k != n || s != wantS {
				t.Fatalf("softmax=%v n=%d: did %d, sum %v; vecExpSum's sum %v", softmax, n, k, s, wantS)
			}
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
					t.Fatalf("softmax=%v n=%d: y[%d] = %v, want %v", softmax, n, i, y[i], want[i])
				}
				if softmax && math.Float32bits(e[i]) != math.Float32bits(wantE[i]) {
					t.Fatalf("n=%d: e[%d] = %v, vecExpSum %v", n, i, e[i], wantE[i])
				}
			}
		}
	}
}

// TestFusedRowsLevel checks that softmax's fused row pass, an AVX-512 kernel, is chosen at
// AVX-512 only: a level lowered by ROPGEN_SIMD or SetSIMD must run the separate passes.
func TestFusedRowsLevel(t *testing.T) {
	y := aligned64(64, 0)
	_, best := SIMD()
	for l := SIMDGo; l <= best; l++ {
		restore := SetSIMD(l)
		if got, want := f32.FusedRowsOK(y, 64), l >= SIMDAVX512; got != want {
			t.Errorf("at level %s, fusedRowsOK on an aligned row = %v, want %v", simdName(l), got, want)
		}
		restore()
	}
}

// TestSIMDNormVarOut checks layer norm's fused kernel at each SIMD level against the
// kernels it fuses, bit for bit in every mode: its shifted sums against vecVarRow's of the
// same row (in the segments' walk from 2048 elements and in order below), its streamed
// output against vecNormalize's.
func TestSIMDNormVarOut(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	eachSIMD(t, func(t *testing.T) {
		skipUnquartered(t)
		for _, n := range []int{16, 64, 80, 1024, 2048, 4112, 8192} {
			x, a, w, b := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], a[i] = float32(r.NormFloat64()*3+100), float32(r.NormFloat64())
				w[i], b[i] = float32(i%7)-2.5, float32(i%5)*0.3
			}
			x0 := float64(x[0])
			_, want1, want2 := f32.VarRow(x, x0)
			for mode := range 4 {
				wm, bm := w, b
				if mode&1 == 0 {
					wm = nil
				}
				if mode&2 == 0 {
					bm = nil
				}
				y, want := aligned64(n, 0), aligned64(n, 0)
				f32.Normalize(want, a, wm, bm, nil, 0.25, 1.5, false)
				k, s1, s2 := f32.NormVarOut(y, a, wm, bm, 0.25, 1.5, x, x0, nil)
				if k != n || s1 != want1 || s2 != want2 {
					t.Fatalf("mode %d n=%d: did %d, sums %v %v; vecVarRow's %v %v", mode, n, k, s1, s2, want1, want2)
				}
				for i := range y {
					if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
						t.Fatalf("mode %d n=%d: y[%d] = %v, want %v", mode, n, i, y[i], want[i])
					}
				}
			}
		}
	})
}

// TestSIMDScaleSumSqOut checks rms_norm's fused kernel at each SIMD level against the
// kernels it fuses, bit for bit with and without the weight: its sum of squares against vecSumSq's
// of the same row, its streamed output against vecScale's.
func TestSIMDScaleSumSqOut(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	eachSIMD(t, func(t *testing.T) {
		skipUnquartered(t)
		for _, n := range []int{16, 64, 80, 1024, 2048, 4112, 8192} {
			x, a, w := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], a[i], w[i] = float32(r.NormFloat64()*3), float32(r.NormFloat64()), float32(i%7)-2.5
			}
			_, wantS := f32.SumSq(x)
			for _, wm := range [][]float32{nil, w} {
				y, want := aligned64(n, 0), aligned64(n, 0)
				f32.Scale(want, a, wm, nil, 0.3, false)
				k, s := f32.ScaleSumSqOut(y, a, wm, 0.3, x, nil)
				if k != n || s != wantS {
					t.Fatalf("w=%v n=%d: did %d, sum %v; vecSumSq's %v", wm != nil, n, k, s, wantS)
				}
				for i := range y {
					if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
						t.Fatalf("w=%v n=%d: y[%d] = %v, want %v", wm != nil, n, i, y[i], want[i])
					}
				}
			}
		}
	})
}

// skipUnquartered skips a test of the quartered and fused kernels at a level without them:
// they are amd64's (f32.RawUnary is nil at arm64's NEON level).
func skipUnquartered(t *testing.T) {
	if f32.RawUnary(uExp) == nil {
		t.Skip("no quartered or fused kernels at this level")
	}
}

// boolInt is 1 for true and 0 for false: a raw kernel's flag argument.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
