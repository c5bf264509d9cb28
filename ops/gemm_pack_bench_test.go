package ops

import "testing"

func BenchmarkPackA(b *testing.B) {
	a := make([]float32, 256*256)
	dst := make([]float32, 264*256)
	for b.Loop() {
		packA(256, 256, 12, rowMajor(a, 256), dst)
	}
}
func BenchmarkPackB(b *testing.B) {
	a := make([]float32, 256*256)
	dst := make([]float32, 264*256)
	for b.Loop() {
		packB(256, 256, 32, rowMajor(a, 256), dst)
	}
}
