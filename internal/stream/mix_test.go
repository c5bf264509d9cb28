package stream

import (
	"slices"
	"testing"
)

// TestMixes checks calibration's memory mixes against their Go loops over every length to
// 300 and a long one, at every start within a vector: each whole iteration and tail, each
// alignment. The inputs are small integers, so every sum and triad is exact in any order
// and fused or not. The NT mixes take a span (TestStreamLineCounts).
func TestMixes(t *testing.T) {
	lengths := []int{9000}
	for n := range 301 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for _, off := range []int{0, 1, 3} {
			a := make([]float32, n+off)[off:]
			b := make([]float32, n+off+1)[off+1:]
			for i := range a {
				a[i], b[i] = float32(i%1024), float32(i%77-38)
			}
			copies := []struct {
				name string
				f    func(y, x []float32)
			}{{"CopyAVX2", CopyAVX2}, {"CopyAVX512", CopyAVX512}}
			for _, c := range copies {
				y := make([]float32, n+1)
				y[n] = -1
				c.f(y[:n], a)
				if !slices.Equal(y[:n], a) || y[n] != -1 {
					t.Fatalf("%s over %d elements (offset %d): not a copy, or wrote past the end", c.name, n, off)
				}
			}
			want := make([]float32, n)
			TriadGo(want, a, b, 3)
			got := make([]float32, n)
			TriadAVX2(got, a, b, 3)
			if !slices.Equal(got, want) {
				t.Fatalf("TriadAVX2 over %d elements (offset %d) differs from TriadGo", n, off)
			}
			s := SumGo(a)
			for name, sum := range map[string]func([]float32) float32{"ReadAVX2": ReadAVX2, "ReadAVX512": ReadAVX512} {
				if got := sum(a); got != s {
					t.Fatalf("%s over %d elements (offset %d) = %v, want %v", name, n, off, got, s)
				}
			}
			FillAVX2(got, 2.5)
			if slices.ContainsFunc(got, func(v float32) bool { return v != 2.5 }) {
				t.Fatalf("FillAVX2 over %d elements (offset %d) left an element unset", n, off)
			}
		}
	}
}
