package roofline

import (
	"errors"
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

// The counted schedule and the two extreme traffics are the lesson's, kept here as oracles
// for the closed forms the package exports.

// matrix is a dense row-major matrix.
type matrix struct {
	Rows, Cols int
	Data       []float64
}

// At returns element (i, j).
func (a matrix) At(i, j int) float64 { return a.Data[i*a.Cols+j] }

// tiledMatmul multiplies a·b with b×b tiles of side tile and counts the traffic. Each output
// tile stays in fast memory while the walk along k loads one A tile and one B tile per step,
// and is stored once at the end. Edge tiles are smaller where a size is not a multiple of the
// tile.
func tiledMatmul(a, b matrix, tile int) (matrix, Traffic, error) {
	if a.Cols != b.Rows || tile < 1 {
		return matrix{}, Traffic{}, errors.New("roofline: shapes must agree and the tile must be at least 1")
	}
	m, k, n := a.Rows, a.Cols, b.Cols
	c := matrix{Rows: m, Cols: n, Data: make([]float64, m*n)}
	var t Traffic
	for i0 := 0; i0 < m; i0 += tile {
		bm := min(tile, m-i0)
		for j0 := 0; j0 < n; j0 += tile {
			bn := min(tile, n-j0)
			acc := make([]float64, bm*bn) // the C tile held in fast memory
			for p0 := 0; p0 < k; p0 += tile {
				bk := min(tile, k-p0)
				t.Loads += int64(bm*bk + bk*bn)
				t.Flops += int64(2 * bm * bk * bn)
				for i := range bm {
					for p := range bk {
						av := a.At(i0+i, p0+p)
						for j := range bn {
							acc[i*bn+j] += av * b.At(p0+p, j0+j)
						}
					}
				}
			}
			for i := range bm {
				copy(c.Data[(i0+i)*n+j0:(i0+i)*n+j0+bn], acc[i*bn:(i+1)*bn])
			}
			t.Stores += int64(bm * bn)
		}
	}
	return c, t, nil
}

// minTraffic is the best case: A and B loaded once, C stored once.
func minTraffic(m, n, k int64) Traffic {
	return Traffic{Loads: m*k + k*n, Stores: m * n, Flops: MatmulFlops(m, n, k)}
}

// naiveTraffic is the no-reuse case: each multiply-add fetches both operands.
func naiveTraffic(m, n, k int64) Traffic {
	return Traffic{Loads: 2 * m * n * k, Stores: m * n, Flops: MatmulFlops(m, n, k)}
}

// tileStep is one step of the tiled schedule: the output tile (I, J), the k tile P, and the
// elements loaded.
type tileStep struct {
	I, J, P int64
	Loads   int64
}

// tileSteps lists the steps of the tiled schedule in loop order.
func tileSteps(m, n, k, b int64) []tileStep {
	var steps []tileStep
	for i := int64(0); i < m; i += b {
		for j := int64(0); j < n; j += b {
			for p := int64(0); p < k; p += b {
				bm, bn, bk := min(b, m-i), min(b, n-j), min(b, k-p)
				steps = append(steps, tileStep{I: i / b, J: j / b, P: p / b, Loads: bm*bk + bk*bn})
			}
		}
	}
	return steps
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %g", what, got, want, tol)
	}
}

func randMatrix(r *rand.Rand, rows, cols int) matrix {
	a := matrix{Rows: rows, Cols: cols, Data: make([]float64, rows*cols)}
	for i := range a.Data {
		a.Data[i] = r.NormFloat64()
	}
	return a
}

// naiveMatmul is three plain loops, the reference tiledMatmul must agree with.
func naiveMatmul(a, b matrix) matrix {
	c := matrix{Rows: a.Rows, Cols: b.Cols, Data: make([]float64, a.Rows*b.Cols)}
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
		c, _, err := tiledMatmul(a, b, tc.b)
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
	a := matrix{Rows: 2, Cols: 3, Data: make([]float64, 6)}
	if _, _, err := tiledMatmul(a, a, 1); err == nil {
		t.Errorf("2x3 · 2x3 accepted")
	}
	b := matrix{Rows: 3, Cols: 2, Data: make([]float64, 6)}
	if _, _, err := tiledMatmul(a, b, 0); err == nil {
		t.Errorf("tile 0 accepted")
	}
}

// The closed form and the counting loop must agree, ragged edges included: guards a closed
// form that drifts from the loop it claims to describe.
func TestCountedLoopMatchesClosedForm(t *testing.T) {
	for _, tc := range []struct{ m, k, n, b int }{{64, 64, 64, 8}, {37, 23, 41, 8}, {1, 33, 17, 8}, {9, 11, 13, 64}, {5, 3, 7, 1}} {
		ones := func(r, c int) matrix {
			a := matrix{Rows: r, Cols: c, Data: make([]float64, r*c)}
			for i := range a.Data {
				a.Data[i] = 1
			}
			return a
		}
		_, counted, err := tiledMatmul(ones(tc.m, tc.k), ones(tc.k, tc.n), tc.b)
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
	if got, want := TiledTraffic(n, n, n, 1), naiveTraffic(n, n, n); got != want {
		t.Errorf("tile 1 = %+v, naive %+v", got, want)
	}
	if got, want := TiledTraffic(n, n, n, n), minTraffic(n, n, n); got != want {
		t.Errorf("tile n = %+v, min %+v", got, want)
	}
}

var (
	exampleA = matrix{4, 4, []float64{1, 2, 0, 1, 3, 1, 2, 0, 0, 1, 1, 2, 2, 0, 1, 1}}
	exampleB = matrix{4, 4, []float64{1, 2, 2, 1, 0, 1, 1, 0, 2, 1, 0, 1, 1, 2, 1, 0}}
)

// The numbers the lesson works by hand: 8 steps of 8 loads, 16 stores, 128 FLOPs.
func TestWorkedExampleFourByFourWithTwoByTwoTiles(t *testing.T) {
	c, tr, err := tiledMatmul(exampleA, exampleB, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 6, 5, 1, 7, 9, 7, 5, 4, 6, 3, 1, 5, 7, 5, 3} // the matrix printed in the lesson
	if !slices.Equal(c.Data, want) {
		t.Errorf("C = %v, want %v", c.Data, want)
	}
	steps := tileSteps(4, 4, 4, 2)
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
	for _, s := range tileSteps(5, 3, 7, 2) {
		sum += s.Loads
	}
	if want := TiledTraffic(5, 3, 7, 2).Loads; sum != want {
		t.Errorf("ragged step loads sum to %d, closed form %d", sum, want)
	}
	if tr != (Traffic{Loads: 64, Stores: 16, Flops: 128}) {
		t.Errorf("traffic = %+v", tr)
	}
	if naiveTraffic(4, 4, 4).Loads != 128 {
		t.Errorf("naive loads = %d", naiveTraffic(4, 4, 4).Loads)
	}
	near(t, "naive intensity per number moved", naiveTraffic(4, 4, 4).Intensity(1), 0.89, 0.005) // 128 / 144
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
	naive, best := naiveTraffic(n, n, n), minTraffic(n, n, n)
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
