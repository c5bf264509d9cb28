package roofline

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The A100 SXM 80GB data sheet numbers the lesson uses (perf/profiles/a100-sxm-80gb.yaml).
const (
	a100Peak = 312e12
	a100BW   = 2039e9
	fp16     = 2
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %g", what, got, want, tol)
	}
}

func randMatrix(r *rand.Rand, rows, cols int) Matrix {
	a := Matrix{Rows: rows, Cols: cols, Data: make([]float64, rows*cols)}
	for i := range a.Data {
		a.Data[i] = r.NormFloat64()
	}
	return a
}

// naiveMatmul is three plain loops, the reference TiledMatmul must agree with.
func naiveMatmul(a, b Matrix) Matrix {
	c := Matrix{Rows: a.Rows, Cols: b.Cols, Data: make([]float64, a.Rows*b.Cols)}
	for i := range a.Rows {
		for j := range b.Cols {
			s := 0.0
			for p := range a.Cols {
				s += a.At(i, p) * b.At(p, j)
			}
			c.Data[i*c.Cols+j] = s
		}
	}
	return c
}

// Guards an off-by-one on edge tiles: a wrong slice end gives a wrong C, not an error.
func TestTiledMatmulIsCorrectWhenSizesDoNotDivide(t *testing.T) {
	r := rand.New(rand.NewPCG(0, 0))
	for _, tc := range []struct{ m, k, n, b int }{{8, 8, 8, 2}, {37, 23, 41, 8}, {1, 33, 17, 8}, {7, 5, 3, 1}, {9, 11, 13, 64}} {
		a, b := randMatrix(r, tc.m, tc.k), randMatrix(r, tc.k, tc.n)
		c, _, err := TiledMatmul(a, b, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveMatmul(a, b)
		for i := range want.Data {
			if math.Abs(c.Data[i]-want.Data[i]) > 1e-9 {
				t.Errorf("%+v: C[%d] = %g, want %g", tc, i, c.Data[i], want.Data[i])
				break
			}
		}
	}
}

func TestTiledMatmulRefusesBadInput(t *testing.T) {
	a := Matrix{Rows: 2, Cols: 3, Data: make([]float64, 6)}
	if _, _, err := TiledMatmul(a, a, 1); err == nil {
		t.Errorf("2x3 · 2x3 accepted")
	}
	b := Matrix{Rows: 3, Cols: 2, Data: make([]float64, 6)}
	if _, _, err := TiledMatmul(a, b, 0); err == nil {
		t.Errorf("tile 0 accepted")
	}
}

// The closed form and the counting loop must agree, ragged edges included: guards a closed
// form that drifts from the loop it claims to describe.
func TestCountedLoopMatchesClosedForm(t *testing.T) {
	for _, tc := range []struct{ m, k, n, b int }{{64, 64, 64, 8}, {37, 23, 41, 8}, {1, 33, 17, 8}, {9, 11, 13, 64}, {5, 3, 7, 1}} {
		ones := func(r, c int) Matrix {
			a := Matrix{Rows: r, Cols: c, Data: make([]float64, r*c)}
			for i := range a.Data {
				a.Data[i] = 1
			}
			return a
		}
		_, counted, err := TiledMatmul(ones(tc.m, tc.k), ones(tc.k, tc.n), tc.b)
		if err != nil {
			t.Fatal(err)
		}
		m, n, k, b := int64(tc.m), int64(tc.n), int64(tc.k), int64(tc.b)
		if want := TiledTraffic(m, n, k, b); counted != want {
			t.Errorf("%+v: counted %+v, closed form %+v", tc, counted, want)
		}
		if counted.Flops != MatmulFlops(m, n, k) {
			t.Errorf("%+v: counted flops %d", tc, counted.Flops)
		}
	}
}

// Loads = 2n³/b for square sizes; tile 1 is exactly the no-reuse count; one tile moves every
// element once.
func TestSquareFormulaAndTileOneIsTheNaiveCount(t *testing.T) {
	const n, b = 64, 16
	if got := TiledTraffic(n, n, n, b).Loads; got != 2*n*n*n/b {
		t.Errorf("loads = %d, want %d", got, 2*n*n*n/b)
	}
	if got, want := TiledTraffic(n, n, n, 1), NaiveTraffic(n, n, n); got != want {
		t.Errorf("tile 1 = %+v, naive %+v", got, want)
	}
	if got, want := TiledTraffic(n, n, n, n), MinTraffic(n, n, n); got != want {
		t.Errorf("tile n = %+v, min %+v", got, want)
	}
}

var (
	exampleA = Matrix{4, 4, []float64{1, 2, 0, 1, 3, 1, 2, 0, 0, 1, 1, 2, 2, 0, 1, 1}}
	exampleB = Matrix{4, 4, []float64{1, 2, 2, 1, 0, 1, 1, 0, 2, 1, 0, 1, 1, 2, 1, 0}}
)

// The numbers the lesson works by hand: 8 steps of 8 loads, 16 stores, 128 FLOPs.
func TestWorkedExampleFourByFourWithTwoByTwoTiles(t *testing.T) {
	c, tr, err := TiledMatmul(exampleA, exampleB, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 6, 5, 1, 7, 9, 7, 5, 4, 6, 3, 1, 5, 7, 5, 3} // the matrix printed in the lesson
	if !slices.Equal(c.Data, want) {
		t.Errorf("C = %v, want %v", c.Data, want)
	}
	steps := TileSteps(4, 4, 4, 2)
	if len(steps) != 8 {
		t.Errorf("%d steps, want 8", len(steps))
	}
	for _, s := range steps {
		if s.Loads != 8 {
			t.Errorf("step %+v loads %d, want 8", s, s.Loads)
		}
	}
	// Ragged edges: guards a wrong edge-tile size in the per-step loads.
	var sum int64
	for _, s := range TileSteps(5, 3, 7, 2) {
		sum += s.Loads
	}
	if want := TiledTraffic(5, 3, 7, 2).Loads; sum != want {
		t.Errorf("ragged step loads sum to %d, closed form %d", sum, want)
	}
	if tr != (Traffic{Loads: 64, Stores: 16, Flops: 128}) {
		t.Errorf("traffic = %+v", tr)
	}
	if NaiveTraffic(4, 4, 4).Loads != 128 {
		t.Errorf("naive loads = %d", NaiveTraffic(4, 4, 4).Loads)
	}
	near(t, "naive intensity per number moved", NaiveTraffic(4, 4, 4).Intensity(1), 0.89, 0.005) // 128 / 144
	near(t, "tiled intensity per number moved", tr.Intensity(1), 1.6, 1e-12)                     // 128 / 80
}

// Guards a unit slip (TFLOP vs GFLOP, GB vs GiB).
func TestA100RidgeFromTheDatasheetNumbers(t *testing.T) {
	near(t, "ridge", Ridge(a100Peak, a100BW), 153.0, 0.05)
}

func TestRooflineMinAndClassificationTie(t *testing.T) {
	const peak, bw = 100.0, 10.0 // ridge 10
	if Attainable(2, peak, bw) != 20 || Attainable(50, peak, bw) != 100 {
		t.Errorf("attainable = %g, %g", Attainable(2, peak, bw), Attainable(50, peak, bw))
	}
	if Classify(9.99, peak, bw) != MemoryBound {
		t.Errorf("9.99 is %s", Classify(9.99, peak, bw))
	}
	if Classify(10, peak, bw) != ComputeBound { // a tie sits on the roof
		t.Errorf("the ridge itself is %s", Classify(10, peak, bw))
	}
}

func TestIntensityRisesWithTileAndIsAboutBOverElementSize(t *testing.T) {
	const n = 4096
	var prev float64
	for _, b := range []int64{1, 4, 16, 64, 256} {
		v := TiledIntensity(n, b, fp16)
		if v <= prev {
			t.Errorf("intensity at b=%d is %g, not above %g", b, v, prev)
		}
		prev = v
	}
	near(t, "b=1", TiledIntensity(n, 1, fp16), 0.5, 0.5e-3)
	near(t, "b=64", TiledIntensity(n, 64, fp16), 64.0/fp16, 0.02*64/fp16)
	near(t, "b=n", TiledIntensity(n, n, fp16), GemmIntensity(n, n, n, fp16), 1e-9)
}

// Three b×b tiles must fit. Guards forgetting the C tile (2b² gives 128 at 64 KiB) and a
// rounded-up root (105). The rows are the lesson's capacity table.
func TestTileCapacityBound(t *testing.T) {
	for _, tc := range []struct {
		kib, b    int64
		intensity float64
	}{{16, 52, 25.8}, {64, 104, 50.6}, {256, 209, 99.9}, {1024, 418, 195.0}} {
		fast := tc.kib * 1024
		b := MaxTile(fast, fp16)
		if !(FastBytesNeeded(b, fp16) <= fast && fast < FastBytesNeeded(b+1, fp16)) {
			t.Errorf("%d KiB: tile %d does not sit at the capacity", tc.kib, b)
		}
		if b != tc.b {
			t.Errorf("%d KiB: max tile %d, want %d", tc.kib, b, tc.b)
		}
		near(t, "intensity", TiledIntensity(4096, b, fp16), tc.intensity, 0.05)
	}
}

// Check-yourself question 2: 48 KiB, 4-byte numbers: b = 64, 15.9 FLOP/byte at n = 4096.
func TestCheckYourselfCapacityAnswer(t *testing.T) {
	b := MaxTile(48*1024, 4)
	if b != 64 {
		t.Errorf("max tile = %d, want 64", b)
	}
	near(t, "intensity", TiledIntensity(4096, b, 4), 15.9, 0.05)
}

func TestIsqrtIsExact(t *testing.T) {
	for _, x := range []int64{0, 1, 2, 3, 4, 15, 16, 17, 1<<52 + 1, (1<<31 - 1) * (1<<31 - 1), math.MaxInt64} {
		r := isqrt(x)
		// r² <= x < (r+1)², checked in big-enough arithmetic: r < 2^32, so squares fit in uint64.
		if uint64(r)*uint64(r) > uint64(x) || uint64(r+1)*uint64(r+1) <= uint64(x) {
			t.Errorf("isqrt(%d) = %d", x, r)
		}
	}
}

// The lesson's best-case table, 2n / (3s) with s = 4: guards a slip in the byte count.
func TestBestCaseIntensityTableForFourByteFloats(t *testing.T) {
	for n, want := range map[int64]float64{2: 1.0 / 3, 16: 2.667, 256: 42.667, 4096: 682.667} {
		near(t, "intensity", GemmIntensity(n, n, n, 4), want, 0.0005)
	}
}

// The lesson quotes 342, not the rule of thumb 306, for two causes: storing C alone moves 306
// to 318; the whole tile count (13 per side give 151.7, 12 give 163.8) moves it to 342.
func TestSmallestTileReachingTheRidgeIsAboveTheLargeNRuleForTwoCauses(t *testing.T) {
	ridge := Ridge(a100Peak, a100BW)
	if math.Round(fp16*ridge) != 306 {
		t.Errorf("s × ridge = %g, want 306", fp16*ridge)
	}
	if got := math.Ceil(RidgeTileFractional(4096, fp16, a100Peak, a100BW)); got != 318 {
		t.Errorf("fractional-count tile = %g, want 318", got)
	}
	b, ok := SmallestTileForRidge(4096, fp16, a100Peak, a100BW)
	if !ok || b != 342 {
		t.Fatalf("smallest tile = %d, %v; want 342", b, ok)
	}
	if !(TiledIntensity(4096, b, fp16) >= ridge && ridge > TiledIntensity(4096, b-1, fp16)) {
		t.Errorf("tile %d is not the first at the ridge", b)
	}
	near(t, "intensity at 342", TiledIntensity(4096, 342, fp16), 163.8, 0.05)
	near(t, "intensity at 341", TiledIntensity(4096, 341, fp16), 151.7, 0.05)
	if FastBytesNeeded(b, fp16) != 701_784 {
		t.Errorf("fast bytes = %d", FastBytesNeeded(b, fp16))
	}
	// The bisection must give what a linear scan gives, wherever the ridge falls.
	for _, n := range []int64{64, 100, 1000, 4096} {
		for _, peak := range []float64{1e12, 50e12, 150e12, 312e12} {
			b, ok := SmallestTileForRidge(n, fp16, peak, a100BW)
			var scan int64
			for c := int64(1); c <= n; c++ {
				if TiledIntensity(n, c, fp16) >= Ridge(peak, a100BW) {
					scan = c
					break
				}
			}
			if ok != (scan > 0) || b != scan {
				t.Errorf("n=%d peak=%g: bisection %d,%v; scan %d", n, peak, b, ok, scan)
			}
		}
	}
}

func TestSmallestTileForRidgeUnreachable(t *testing.T) {
	// n = 64 in fp16 tops out at 64/3 FLOP/byte, below the A100's 153.
	if b, ok := SmallestTileForRidge(64, fp16, a100Peak, a100BW); ok {
		t.Errorf("n=64 reaches the ridge at b=%d", b)
	}
}

func TestDecodeIsMemoryBoundAndBatchingCrossesTheRidge(t *testing.T) {
	near(t, "decode intensity", GemmIntensity(1, 4096, 4096, fp16), 1.0, 0.001)
	if Classify(GemmIntensity(1, 4096, 4096, fp16), a100Peak, a100BW) != MemoryBound {
		t.Errorf("decode is not memory-bound")
	}
	if Classify(GemmIntensity(4096, 4096, 4096, fp16), a100Peak, a100BW) != ComputeBound {
		t.Errorf("prefill is not compute-bound")
	}
	m, ok := BatchToReachRidge(4096, 4096, fp16, a100Peak, a100BW)
	if !ok || m != 166 {
		t.Fatalf("batch = %d, %v; want 166", m, ok)
	}
	r := Ridge(a100Peak, a100BW)
	if !(GemmIntensity(m-1, 4096, 4096, fp16) < r && r <= GemmIntensity(m, 4096, 4096, fp16)) {
		t.Errorf("batch %d is not the first at the ridge", m)
	}
	// Against the lesson's linear search, across shapes and ridges.
	for _, nk := range [][2]int64{{4096, 4096}, {11008, 4096}, {1024, 8192}, {300, 500}} {
		for _, peak := range []float64{10e12, 100e12, 312e12} {
			m, ok := BatchToReachRidge(nk[0], nk[1], fp16, peak, a100BW)
			limit := 2 * float64(nk[0]*nk[1]) / float64((nk[0]+nk[1])*fp16)
			if !ok {
				if limit > Ridge(peak, a100BW) {
					t.Errorf("n,k=%v peak=%g: refused though the limit %g exceeds the ridge", nk, peak, limit)
				}
				continue
			}
			var scan int64 = 1
			for GemmIntensity(scan, nk[0], nk[1], fp16) < Ridge(peak, a100BW) {
				scan++
			}
			if m != scan {
				t.Errorf("n,k=%v peak=%g: batch %d, linear search %d", nk, peak, m, scan)
			}
		}
	}
	// n = k = 256 in fp16 never passes 128 FLOP/byte, below the A100 ridge.
	if m, ok := BatchToReachRidge(256, 256, fp16, a100Peak, a100BW); ok {
		t.Errorf("256x256 reached the ridge at m=%d", m)
	}
}

// Guards the decode/prefill table drifting from the code that prints it.
func TestDecodeTableRowsMatchTheLesson(t *testing.T) {
	for _, tc := range []struct {
		m                      int64
		intensity, tflops, pct float64
	}{
		{1, 1.00, 2.04, 0.7}, {8, 7.97, 16.25, 5.2}, {32, 31.51, 64.24, 20.6}, {128, 120.47, 245.64, 78.7},
		{165, 152.70, 311.35, 99.8}, {166, 153.55, 312.00, 100.0}, {1024, 682.67, 312.00, 100.0},
	} {
		i := GemmIntensity(tc.m, 4096, 4096, fp16)
		att := Attainable(i, a100Peak, a100BW)
		near(t, "intensity", i, tc.intensity, 0.005)
		near(t, "TFLOP/s", att/1e12, tc.tflops, 0.005)
		near(t, "% of peak", 100*att/a100Peak, tc.pct, 0.05)
	}
}

// 6.87 ms to read 14 GB of fp16 weights at 2,039 GB/s: at most 146 tokens/s. Guards a
// bytes/params slip.
func TestDecodeCeilingForASevenBillionParameterModel(t *testing.T) {
	near(t, "ms", WeightReadSeconds(7e9, fp16, a100BW)*1e3, 6.866, 0.001)
	near(t, "tokens/s", DecodeTokensPerSecond(7e9, fp16, a100BW), 145.6, 0.1)
}

// The naive 4096 table: 1.019 TFLOP/s (0.327% of peak), floors 0.4405 ms and 134.83 ms (306
// times), 0.0494 ms at the minimum traffic. Guards TimeFloors and the bytes-per-element slip.
func TestNaiveMultiplyFloorsOnTheA100(t *testing.T) {
	const n = 4096
	naive, best := NaiveTraffic(n, n, n), MinTraffic(n, n, n)
	att := Attainable(naive.Intensity(fp16), a100Peak, a100BW)
	near(t, "naive attainable", att, 1.019e12, 5e8)
	near(t, "naive % of peak", att/a100Peak*100, 0.327, 0.0005)
	tMath, tNaive := TimeFloors(float64(naive.Flops), float64(naive.Bytes(fp16)), a100Peak, a100BW)
	_, tMin := TimeFloors(float64(best.Flops), float64(best.Bytes(fp16)), a100Peak, a100BW)
	near(t, "math floor ms", tMath*1e3, 0.4405, 0.00005)
	near(t, "naive floor ms", tNaive*1e3, 134.83, 0.005)
	near(t, "naive / math", tNaive/tMath, 306.07, 0.005)
	near(t, "min floor ms", tMin*1e3, 0.0494, 0.00005)
	if tMin >= tMath {
		t.Errorf("min traffic floor %g not below the math floor %g", tMin, tMath)
	}
	if best.Bytes(fp16) != 100_663_296 {
		t.Errorf("min bytes = %d", best.Bytes(fp16))
	}
}
