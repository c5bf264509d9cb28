package ops

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The lesson's worked example (roofline-lesson.py, EXAMPLE_A @ EXAMPLE_B), computed by hand.
func TestGemmRefLessonExample(t *testing.T) {
	a := []float32{1, 2, 0, 1, 3, 1, 2, 0, 0, 1, 1, 2, 2, 0, 1, 1}
	b := []float32{1, 2, 2, 1, 0, 1, 1, 0, 2, 1, 0, 1, 1, 2, 1, 0}
	want := []float32{2, 6, 5, 1, 7, 9, 7, 5, 4, 6, 3, 1, 5, 7, 5, 3}
	for name, f := range map[string]func(m, n, k int, a, b mat, c []float32){"gemmRef": gemmRef, "gemm": gemm} {
		c := make([]float32, 16)
		f(4, 4, 4, rowMajor(a, 4), rowMajor(b, 4), c)
		for i := range c {
			if c[i] != want[i] {
				t.Fatalf("%s: c = %v, want %v", name, c, want)
			}
		}
	}
}

// randMat returns r·c values: small integers when ints (every partial sum of a product is
// then exact in float32, so any summation order gives the same bits), else uniform [-1, 1).
func randMat(rng *rand.Rand, n int, ints bool) []float32 {
	s := make([]float32, n)
	for i := range s {
		if ints {
			s[i] = float32(rng.IntN(9) - 4)
		} else {
			s[i] = 2*rng.Float32() - 1
		}
	}
	return s
}

// TestGemmKernelMatchesReference covers every path of the kernel: the small-m paths for both
// layouts of b, the packed path split by columns and by rows, ragged edges in every
// dimension, k spanning several k blocks, n several n blocks, m several m blocks, and
// shapes big enough that both cores run.
func TestGemmKernelMatchesReference(t *testing.T) {
	shapes := [][3]int{ // m, n, k
		{1, 1, 1}, {1, 37, 19}, {3, 5, 300}, {2, 129, 64}, {1, 4096, 64},
		{4, 4, 4}, {5, 37, 19}, {64, 64, 64}, {130, 7, 9}, {257, 3, 513},
		{7, 1030, 260}, {131, 45, 600},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for _, ints := range []bool{true, false} {
			a := randMat(rng, m*k, ints)
			bRow := randMat(rng, k*n, ints)
			// The same b stored transposed (n×k), as linear's weight, and spread over every
			// other element of a larger buffer (neither rows nor columns contiguous); the same
			// a stored transposed (k×m). All are read through views.
			bT := make([]float32, n*k)
			bSpread := make([]float32, 4*k*n)
			for p := range k {
				for j := range n {
					bT[j*k+p] = bRow[p*n+j]
					bSpread[p*4*n+2*j] = bRow[p*n+j]
				}
			}
			aT := make([]float32, k*m)
			for i := range m {
				for p := range k {
					aT[p*m+i] = a[i*k+p]
				}
			}
			want := make([]float32, m*n)
			gemmRef(m, n, k, rowMajor(a, k), rowMajor(bRow, n), want)
			tol := gemmTol(k)
			if ints {
				tol = Tol{}
			}
			for _, l := range []struct {
				name string
				a, b mat
			}{
				{"row-major", rowMajor(a, k), rowMajor(bRow, n)},
				{"b transposed", rowMajor(a, k), rowMajor(bT, k).t()},
				{"b strided", rowMajor(a, k), mat{bSpread, 4 * n, 2}},
				{"a transposed", rowMajor(aT, m).t(), rowMajor(bT, k).t()},
			} {
				layout := l.name
				got := make([]float32, m*n)
				for i := range got {
					got[i] = 99 // gemm must overwrite c, not add to it
				}
				gemm(m, n, k, l.a, l.b, got)
				gt := &Tensor{Shape: []int{m, n}, DType: Float32, Data: got}
				wt := &Tensor{Shape: []int{m, n}, DType: Float32, Data: want}
				if err := Compare(gt, wt, tol); err != nil {
					t.Errorf("m=%d n=%d k=%d b %s ints=%v: %v", m, n, k, layout, ints, err)
				}
			}
		}
	}
}

func TestGemmErrors(t *testing.T) {
	if _, err := NewGemmFwd(4, 0, 4, Float32); err == nil || !strings.Contains(err.Error(), "N is 0") {
		t.Errorf("N = 0: err = %v", err)
	}
	for _, dt := range []DType{Float8E4M3, Float8E5M2, Int8} {
		if _, err := NewGemmFwd(4, 4, 4, dt); err == nil || !strings.Contains(err.Error(), "no matrix-unit roof") {
			t.Errorf("%v: err = %v, want a refusal naming the missing roof", dt, err)
		}
	}
	if _, err := NewBatchedGemmFwd(-1, 4, 4, 4, Float32); err == nil || !strings.Contains(err.Error(), "batch is -1") {
		t.Errorf("batch = -1: err = %v", err)
	}
	op, err := NewGemmFwd(4, 5, 6, Float32)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewTensor(Float32, 4, 6)
	bad, _ := NewTensor(Float32, 5, 6) // b must be K×N = 6×5
	if _, err := op.Bind(a, bad); err == nil || !strings.Contains(err.Error(), "input b is float32[5 6], the op was built for shape [6 5]") {
		t.Errorf("Bind with a transposed b: err = %v", err)
	}
	b16, _ := NewTensor(BFloat16, 6, 5)
	if _, err := op.Bind(a, b16); err == nil || !strings.Contains(err.Error(), "built for float32") {
		t.Errorf("Bind with a bfloat16 b: err = %v", err)
	}
	b, _ := NewTensor(Float32, 6, 5)
	c, _ := NewTensor(Float32, 5, 4)
	if err := op.Forward(c, a, b); err == nil || !strings.Contains(err.Error(), "want float32[4 5]") {
		t.Errorf("Forward into a wrong-shaped c: err = %v", err)
	}
}

func TestCubeRoof(t *testing.T) {
	for dt, want := range map[DType]string{Float16: "cube.fp16", BFloat16: "cube.bf16", Float32: "cube.fp32"} {
		op, err := NewGemmFwd(2, 2, 2, dt)
		if err != nil {
			t.Fatal(err)
		}
		if got := op.ComputeRoof(); got != want {
			t.Errorf("%v: ComputeRoof = %q, want %q", dt, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("cubeRoof(float8_e4m3) returned instead of refusing")
		}
	}()
	cubeRoof(Float8E4M3)
}
