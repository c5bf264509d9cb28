package roofrt

import (
	"fmt"
	"math"
	"testing"
)

// The cost of exact arithmetic, against the float64 shadow it replaced, on GemmFwd's
// formulas as the generator emits them. Rounds interleave the two in one process:
// go test -run '^$' -bench Exactness -benchmem ./gen/roofrt

type shadowPair[T int | float64] struct{ flops, bytes T }

// shadowCheck and shadowExact are the old rooflineCheck and rooflineExact.
func shadowCheck(op string, v shadowPair[int], shadow shadowPair[float64]) (flops, bytes int64, err error) {
	if shadowExact(v.flops, shadow.flops) && shadowExact(v.bytes, shadow.bytes) {
		return int64(v.flops), int64(v.bytes), nil
	}
	return 0, 0, fmt.Errorf("%s: roofline overflows int64", op)
}

func shadowExact(v int, shadow float64) bool {
	return v >= 0 && shadow < 0x1p63 && math.Abs(float64(v)-shadow) <= 1e-9*shadow+1
}

type gemm struct{ M, K, N, size int }

//go:noinline
func (op *gemm) shadowEval() (flops, bytes int64, err error) {
	M, K, N, elem_bytes := op.M, op.K, op.N, op.size
	return shadowCheck("GemmFwd",
		shadowPair[int]{flops: 2 * M * N * K, bytes: (M*K + K*N + M*N) * elem_bytes},
		shadowPair[float64]{flops: 2 * float64(M) * float64(N) * float64(K), bytes: (float64(M)*float64(K) + float64(K)*float64(N) + float64(M)*float64(N)) * float64(elem_bytes)})
}

// exactEval is GemmFwd's checked path as emitted: it can fail only by overflow, so it checks
// through a rooflineChecker.
//
//go:noinline
func (op *gemm) exactEval() (flops, bytes int64, err error) {
	var rooflineCk rooflineChecker
	M, K, N, elem_bytes := op.M, op.K, op.N, op.size
	rooflineFlops := rooflineCk.mul(rooflineCk.mul(rooflineCk.mul(2, M), N), K)
	if rooflineCk.bad {
		return 0, 0, rooflineCk.err("GemmFwd", `roofline.flops "2 * M * N * K"`)
	}
	rooflineBytes := rooflineCk.mul((rooflineCk.add(rooflineCk.add(rooflineCk.mul(M, K), rooflineCk.mul(K, N)), rooflineCk.mul(M, N))), elem_bytes)
	if rooflineCk.bad {
		return 0, 0, rooflineCk.err("GemmFwd", `roofline.bytes "(M * K + K * N + M * N) * elem_bytes"`)
	}
	return rooflineResult("GemmFwd", rooflineFlops, rooflineBytes)
}

// guardedEval is GemmFwd's EvalRoofline as emitted: the formulas as written inside the
// bounds the generator proved, the checked path outside them.
//
//go:noinline
func (op *gemm) guardedEval() (flops, bytes int64, err error) {
	M, K, N, elem_bytes := op.M, op.K, op.N, op.size
	if uint(M|N|K) < 1<<20 && uint(elem_bytes) < 1<<6 {
		rooflineFlops := 2 * M * N * K
		rooflineBytes := (M*K + K*N + M*N) * elem_bytes
		return int64(rooflineFlops), int64(rooflineBytes), nil
	}
	return op.exactEval()
}

// panickingEval is the same with the panicking operations and a deferred recover, as an op
// whose formulas also call a helper that can refuse is emitted.
//
//go:noinline
func (op *gemm) panickingEval() (flops, bytes int64, err error) {
	rooflineAt := "roofline"
	defer rooflineRecover("GemmFwd", &rooflineAt, &err)
	M, K, N, elem_bytes := op.M, op.K, op.N, op.size
	rooflineAt = `roofline.flops "2 * M * N * K"`
	rooflineFlops := rooflineMul(rooflineMul(rooflineMul(2, M), N), K)
	rooflineAt = `roofline.bytes "(M * K + K * N + M * N) * elem_bytes"`
	rooflineBytes := rooflineMul((rooflineAdd(rooflineAdd(rooflineMul(M, K), rooflineMul(K, N)), rooflineMul(M, N))), elem_bytes)
	return rooflineResult("GemmFwd", rooflineFlops, rooflineBytes)
}

func BenchmarkExactness(b *testing.B) {
	op := &gemm{M: 128, K: 4096, N: 4096, size: 2}
	f1, b1, _ := op.shadowEval()
	f2, b2, _ := op.exactEval()
	f3, b3, _ := op.panickingEval()
	f4, b4, _ := op.guardedEval()
	if f1 != f2 || b1 != b2 || f1 != f3 || b1 != b3 || f1 != f4 || b1 != b4 {
		b.Fatalf("shadow %d, %d; exact %d, %d; panicking %d, %d; guarded %d, %d", f1, b1, f2, b2, f3, b3, f4, b4)
	}
	run := func(eval func() (int64, int64, error)) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := eval(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for range 3 {
		b.Run("shadow", run(op.shadowEval))
		b.Run("exact", run(op.exactEval))
		b.Run("panicking", run(op.panickingEval))
		b.Run("guarded", run(op.guardedEval))
	}
}
