//go:build goexperiment.simd && amd64

package ops

import (
	"math"
	"simd/archsimd"
)

// 8-lane versions of the row and column reductions (see elementwise_vec.go). Sums convert
// each block to two float64x4 halves and accumulate in float64, as the scalar kernels do;
// only the order of the float64 additions differs.

type d4 = archsimd.Float64x4

// halves returns the low and high four lanes of v in float64.
func halves(v f8) (lo, hi d4) { return v.GetLo().ConvertToFloat64(), v.GetHi().ConvertToFloat64() }

// total adds the lanes of a float64x4.
func total(a d4) float64 {
	var l [4]float64
	a.Store(&l)
	return (l[0] + l[1]) + (l[2] + l[3])
}

// vecSum returns how many elements of x it summed (the full blocks) and their sum.
func vecSum(x []float32) (int, float64) {
	if !vecOK {
		return 0, 0
	}
	n := len(x) &^ 7
	a, b := archsimd.BroadcastFloat64x4(0), archsimd.BroadcastFloat64x4(0)
	for i := 0; i < n; i += 8 {
		lo, hi := halves(archsimd.LoadFloat32x8Slice(x[i:]))
		a, b = a.Add(lo), b.Add(hi)
	}
	return n, total(a.Add(b))
}

// vecSumSq returns how many elements of x it did and the sum of (x - m)² in float64.
func vecSumSq(x []float32, m float64) (int, float64) {
	if !vecOK {
		return 0, 0
	}
	n := len(x) &^ 7
	vm := archsimd.BroadcastFloat64x4(m)
	a, b := archsimd.BroadcastFloat64x4(0), archsimd.BroadcastFloat64x4(0)
	for i := 0; i < n; i += 8 {
		lo, hi := halves(archsimd.LoadFloat32x8Slice(x[i:]))
		lo, hi = lo.Sub(vm), hi.Sub(vm)
		a, b = lo.MulAdd(lo, a), hi.MulAdd(hi, b)
	}
	return n, total(a.Add(b))
}

// vecMax returns how many elements of x it did and their maximum; ok is false when a
// block holds a NaN (VMAXPS drops NaN; the caller then takes the scalar path, which keeps
// it as torch.amax does).
func vecMax(x []float32) (n int, m float32, ok bool) {
	if !vecOK || len(x) < 8 {
		return 0, 0, true
	}
	n = len(x) &^ 7
	acc := bc(float32(math.Inf(-1)))
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !noNaN(v) {
			return 0, 0, false
		}
		acc = acc.Max(v)
	}
	var l [8]float32
	acc.Store(&l)
	m = l[0]
	for _, v := range l[1:] {
		m = max(m, v)
	}
	return n, m, true
}

// vecSumCols adds x into acc elementwise (acc[i] += x[i] in float64) over the full blocks.
func vecSumCols(acc []float64, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		lo, hi := halves(archsimd.LoadFloat32x8Slice(x[i:]))
		archsimd.LoadFloat64x4Slice(acc[i:]).Add(lo).StoreSlice(acc[i:])
		archsimd.LoadFloat64x4Slice(acc[i+4:]).Add(hi).StoreSlice(acc[i+4:])
	}
	return n
}

// vecMaxCols folds x into acc elementwise with max. VMAXPD drops a NaN in either operand
// (and the compiler may swap its operands), so a block of x holding a NaN is folded by the
// scalar max, and a NaN already in acc is put back after the vector max.
func vecMaxCols(acc []float64, x []float32) int {
	if !vecOK {
		return 0
	}
	n := len(x) &^ 7
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		if !noNaN(v) {
			for j, e := range x[i : i+8] {
				acc[i+j] = max(acc[i+j], float64(e))
			}
			continue
		}
		lo, hi := halves(v)
		a, b := archsimd.LoadFloat64x4Slice(acc[i:]), archsimd.LoadFloat64x4Slice(acc[i+4:])
		a.Max(lo).Merge(a, a.Equal(a)).StoreSlice(acc[i:])
		b.Max(hi).Merge(b, b.Equal(b)).StoreSlice(acc[i+4:])
	}
	return n
}
