package ops

import "math"

// Float32 transcendentals for the kernels. Go's math package computes in float64 and calls
// out of line, which costs several times the memory time of an element; these inline
// Cephes-style float32 versions keep the vector kernels memory-bound. Their accuracy (a few
// ulp) is checked against math in elementwise_math_test.go.

// Constants of the range reduction x = k*ln2 + r.
const (
	log2e = 1.44269504088896341
	ln2hi = 0.693359375 // ln2 split so that k*ln2hi is exact for |k| < 2**9
	ln2lo = -2.12194440e-4
	// roundShift rounds a float32 of magnitude below 2**22 to an integer when added: the sum
	// has no bits below the units place, and the integer sits in its low mantissa bits.
	roundShift = 0x1.8p23
)

// expPoly returns e**r for |r| <= ln2/2: 1 + r + c2 r² + ... + c6 r**6 in Horner's form,
// six multiply-adds. The coefficients minimize the relative error on that interval (3.1e-9,
// Lawson's iteration on Chebyshev nodes). Simulated in numpy with the vector kernels' float32
// FMA steps, exp is within 0.88 ulp of float64 e**x on 6M points of [-87, 88], where Cephes'
// 1 + r + r²P(r), two steps longer, reached 0.99: the shorter chain is both more accurate
// and less work per element.
func expPoly(r float32) float32 {
	return ((((((expC6*r+expC5)*r+expC4)*r+expC3)*r+expC2)*r+1)*r + 1)
}

// expPoly's coefficients of r**6 .. r**2 (internal/asm/f32/dispatch_arm64.go hands a copy
// to the NEON kernels; the kernel tests hold them to these bit for bit).
const (
	expC6 = 1.381461275741458e-3
	expC5 = 8.368710055947304e-3
	expC4 = 4.166838899254799e-2
	expC3 = 1.666652113199234e-1
	expC2 = 4.999999403953552e-1
)

// expf returns e**x: x = k*ln2 + r with |r| <= ln2/2, e**r from expPoly, then a scale by 2**k
// built from the exponent bits. The common range takes no data-dependent branch (k is
// rounded by roundShift, not by a sign test), so random-signed activations do not
// mispredict; overflow, underflow, subnormal results and NaN go to expfEdge.
func expf(x float32) float32 {
	if !(x > -87 && x < 88) { // k stays in [-126, 127]: a normal scale factor
		return expfEdge(x)
	}
	t := x*log2e + roundShift
	k := int32(math.Float32bits(t) - math.Float32bits(roundShift))
	fk := t - roundShift
	r := x - fk*ln2hi - fk*ln2lo
	return expPoly(r) * math.Float32frombits(uint32(k+127)<<23)
}

// expfEdge is expf outside (-87, 88).
func expfEdge(x float32) float32 {
	switch {
	case x != x:
		return x
	case x > 88.72283:
		return float32(math.Inf(1))
	case x < -103.97208: // below half the smallest subnormal
		return 0
	}
	t := x * log2e
	var k int32
	if t < 0 {
		k = int32(t - 0.5)
	} else {
		k = int32(t + 0.5)
	}
	fk := float32(k)
	p := expPoly(x - fk*ln2hi - fk*ln2lo)
	if k < -126 { // subnormal result: scale in two steps
		p *= math.Float32frombits(1 << 23) // 2**-126
		k += 126
	}
	if k > 127 {
		p *= 2
		k--
	}
	return p * math.Float32frombits(uint32(k+127)<<23)
}

// tanhf returns tanh(x): an odd polynomial near zero, where 1 - 2/(e**2x + 1) would cancel,
// and the exponential form elsewhere.
func tanhf(x float32) float32 {
	a := x
	if a < 0 {
		a = -a
	}
	switch {
	case a < 0.625:
		z := x * x
		return ((((-5.70498872745e-3*z+2.06390887954e-2)*z-5.37397155531e-2)*z+1.33314422036e-1)*z-3.33332819422e-1)*z*x + x
	case a > 9.02: // tanh rounds to ±1 in float32
		return float32(math.Copysign(1, float64(x)))
	case x != x:
		return x
	}
	y := 1 - 2/(expf(2*a)+1)
	if x < 0 {
		return -y
	}
	return y
}

// sigmoidf returns 1 / (1 + e**-x).
func sigmoidf(x float32) float32 { return 1 / (1 + expf(-x)) }

// siluf returns x * sigmoid(x).
func siluf(x float32) float32 { return x * sigmoidf(x) }

// The gelu tanh-approximation constants: c0 = sqrt(2/pi), c1 = c0 * 0.044715.
const (
	geluC0 = 0.7978845608028654
	geluC1 = geluC0 * 0.044715
)

// geluf returns 0.5 * x * (1 + tanh(z)), z = sqrt(2/pi) * (x + 0.044715 * x**3), in the
// equal form x / (1 + e**-2z) (0.5 * (1 + tanh(z)) is sigmoid(2z)): one exp and a divide
// instead of tanh's polynomial, exp and divide, and no cancellation of 1 + tanh(z) for
// x < -3. Beyond exp's range the quotient is x / inf = -0 or x / 1 = x, the limits.
func geluf(x float32) float32 {
	z := x * (geluC1*(x*x) + geluC0)
	return x / (1 + expf(-2*z))
}

// logf returns the natural logarithm of x > 0: x = m * 2**e with m in [sqrt(1/2), sqrt(2)),
// then log(m) from a polynomial in (m-1) (Cephes logf). Reductions call it once per row, so
// its speed matters little; it exists so that log_softmax agrees with expf's precision.
func logf(x float32) float32 {
	switch {
	case x != x || x < 0:
		return float32(math.NaN())
	case x == 0:
		return float32(math.Inf(-1))
	case math.IsInf(float64(x), 1):
		return x
	}
	fr, e := math.Frexp(float64(x)) // fr in [0.5, 1)
	m := float32(fr)
	if m < 0.70710678 {
		m *= 2
		e--
	}
	f := m - 1
	z := f * f
	y := ((((((((7.0376836292e-2*f-1.1514610310e-1)*f+1.1676998740e-1)*f-1.2420140846e-1)*f+
		1.4249322787e-1)*f-1.6668057665e-1)*f+2.0000714765e-1)*f-2.4999993993e-1)*f + 3.3333331174e-1) * f * z
	fe := float32(e)
	y += -2.12194440e-4 * fe
	y += -0.5 * z
	return f + y + 0.693359375*fe
}
