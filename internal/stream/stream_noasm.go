//go:build !amd64 || purego

package stream

// Without assembly (another architecture, or the purego build) nothing is streamed: Span
// is empty, and every kernel is its Go loop (stream.go), which any caller may still call
// over any slice.

// Span returns an empty span: there are no non-temporal stores here.
func Span(y []float32) (s, e int) { return 0, 0 }

// CopyNT computes y = x.
func CopyNT(y, x []float32) { copyGo(y, x) }

// ReluNT computes y = max(x, 0) (reluGo).
func ReluNT(y, x []float32) { reluGo(y, x) }

// LeakyReluNT computes y = leaky_relu(x) with slope s (leakyReluGo).
func LeakyReluNT(y, x []float32, s float32) { leakyReluGo(y, x, s) }

// ClampNT computes y = min(max(x, lo), hi).
func ClampNT(y, x []float32, lo, hi float32) { clampGo(y, x, lo, hi) }

// AddNT computes y = a + b.
func AddNT(y, a, b []float32) { addGo(y, a, b) }

// SubNT computes y = a - b.
func SubNT(y, a, b []float32) { subGo(y, a, b) }

// MulNT computes y = a * b.
func MulNT(y, a, b []float32) { mulGo(y, a, b) }

// DivNT computes y = a / b.
func DivNT(y, a, b []float32) { divGo(y, a, b) }

// AddSNT computes y = a + s.
func AddSNT(y, a []float32, s float32) { addSGo(y, a, s) }

// SubSNT computes y = a - s.
func SubSNT(y, a []float32, s float32) { subSGo(y, a, s) }

// MulSNT computes y = a * s.
func MulSNT(y, a []float32, s float32) { mulSGo(y, a, s) }

// DivSNT computes y = a / s.
func DivSNT(y, a []float32, s float32) { divSGo(y, a, s) }

// RsubSNT computes y = s - a.
func RsubSNT(y, a []float32, s float32) { rsubSGo(y, a, s) }

// RdivSNT computes y = s / a.
func RdivSNT(y, a []float32, s float32) { rdivSGo(y, a, s) }
