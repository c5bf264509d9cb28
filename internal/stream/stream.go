package stream

import "math"

// The Go loops the streaming kernels and the memory mixes equal, element for element
// (stream_amd64.s; the sums up to the order of their additions, the triads up to the
// rounding of the fused multiply-add): the reference of their tests, and the whole of each
// function where there is no assembly.

func copyGo(y, x []float32) { copy(y, x[:len(y)]) }

// reluGo is max(x, 0), which keeps NaN (clearing its sign bit) and maps -0 to +0.
func reluGo(y, x []float32) {
	x = x[:len(y)]
	for i, v := range x {
		y[i] = max(v, 0)
	}
}

// leakyReluGo scales the elements whose sign bit is set (-0 and negative NaNs too) by s.
func leakyReluGo(y, x []float32, s float32) {
	x = x[:len(y)]
	factor := [2]float32{1, s}
	for i, v := range x {
		y[i] = v * factor[math.Float32bits(v)>>31]
	}
}

func clampGo(y, x []float32, lo, hi float32) {
	x = x[:len(y)]
	for i, v := range x {
		y[i] = min(max(v, lo), hi)
	}
}

func addGo(y, a, b []float32) {
	a, b = a[:len(y)], b[:len(y)]
	for i := range y {
		y[i] = a[i] + b[i]
	}
}

func subGo(y, a, b []float32) {
	a, b = a[:len(y)], b[:len(y)]
	for i := range y {
		y[i] = a[i] - b[i]
	}
}

func mulGo(y, a, b []float32) {
	a, b = a[:len(y)], b[:len(y)]
	for i := range y {
		y[i] = a[i] * b[i]
	}
}

func divGo(y, a, b []float32) {
	a, b = a[:len(y)], b[:len(y)]
	for i := range y {
		y[i] = a[i] / b[i]
	}
}

func addSGo(y, a []float32, s float32) {
	a = a[:len(y)]
	for i, v := range a {
		y[i] = v + s
	}
}

func subSGo(y, a []float32, s float32) {
	a = a[:len(y)]
	for i, v := range a {
		y[i] = v - s
	}
}

func mulSGo(y, a []float32, s float32) {
	a = a[:len(y)]
	for i, v := range a {
		y[i] = v * s
	}
}

func divSGo(y, a []float32, s float32) {
	a = a[:len(y)]
	for i, v := range a {
		y[i] = v / s
	}
}

func rsubSGo(y, a []float32, s float32) {
	a = a[:len(y)]
	for i, v := range a {
		y[i] = s - v
	}
}

func rdivSGo(y, a []float32, s float32) {
	a = a[:len(y)]
	for i, v := range a {
		y[i] = s / v
	}
}

// TriadGo, SumGo and FillGo are exported for calibration's Go mixes, which measure what Go
// code reaches without assembly.

// TriadGo computes a = b + s*c.
func TriadGo(a, b, c []float32, s float32) {
	b, c = b[:len(a)], c[:len(a)]
	for i := range a {
		a[i] = b[i] + s*c[i]
	}
}

// SumGo returns the sum of x, added in eight independent chains as the kernels add, so that
// floating-point add latency, not memory, never limits the Go loop's read rate either.
func SumGo(x []float32) float32 {
	var s [8]float32
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s[0] += v[0]
		s[1] += v[1]
		s[2] += v[2]
		s[3] += v[3]
		s[4] += v[4]
		s[5] += v[5]
		s[6] += v[6]
		s[7] += v[7]
	}
	for ; i < len(x); i++ {
		s[0] += x[i]
	}
	return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]
}

// FillGo sets every element of y to s (non-zero in calibration's use, so that the loop is
// not turned into a memclr).
func FillGo(y []float32, s float32) {
	for i := range y {
		y[i] = s
	}
}
