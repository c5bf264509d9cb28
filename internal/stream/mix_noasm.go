//go:build !amd64 || purego

package stream

// Without assembly the memory mixes are their Go loops (stream.go).

// CopyAVX2 copies x into y.
func CopyAVX2(y, x []float32) { copyGo(y, x) }

// CopyAVX512 copies x into y.
func CopyAVX512(y, x []float32) { copyGo(y, x) }

// TriadAVX2 computes a = b + s*c.
func TriadAVX2(a, b, c []float32, s float32) { TriadGo(a, b, c, s) }

// TriadNTAVX2 computes a = b + s*c.
func TriadNTAVX2(a, b, c []float32, s float32) { TriadGo(a, b, c, s) }

// ReadAVX2 returns the sum of x.
func ReadAVX2(x []float32) float32 { return SumGo(x) }

// ReadAVX512 returns the sum of x.
func ReadAVX512(x []float32) float32 { return SumGo(x) }

// FillAVX2 sets every element of y to s.
func FillAVX2(y []float32, s float32) { FillGo(y, s) }

// FillNTAVX2 sets every element of y to s.
func FillNTAVX2(y []float32, s float32) { FillGo(y, s) }
