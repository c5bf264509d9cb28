package ops

import "math"

// Float32 erf and log1p for the activation kernels, in the style of elementwise_math.go:
// inline, float32, Cephes coefficients, accuracy checked against package math in
// activation_math_test.go.

// erf1p returns 1 + erf(z) without the cancellation that 1 + erf(z) has for z << 0: below
// |z| = 1 from Cephes erff's odd polynomial, beyond it from erfc (1 + erf(z) = erfc(-z),
// and 2 - erfc(z) for z > 0). Exact gelu is 0.5 * x * erf1p(x / sqrt(2)), whose negative
// tail would otherwise lose every digit.
func erf1p(z float32) float32 {
	a := z
	if a < 0 {
		a = -a
	}
	if a < 1 {
		s := z * z
		p := (((((7.853861353153693e-5*s-8.010193625184903e-4)*s+5.188327685732524e-3)*s-
			2.685381193529856e-2)*s+1.128358514861418e-1)*s-3.761262582423300e-1)*s + 1.128379165726710
		return 1 + z*p
	}
	c := erfcLarge(a)
	if z < 0 {
		return c
	}
	return 2 - c
}

// erfcLarge returns erfc(a) for a >= 1 (and NaN for NaN): e**-a² / a times a polynomial in
// 1/a² (Cephes erfcf: one for [1, 2), one beyond). e**-a² is taken as e**-h² * e**-t(a+h)
// with h = a rounded to 12 bits, so h² is exact: rounding a² itself would cost up to a²
// ulps of relative error in the tail. Beyond a = 10, erfc is below the smallest float32.
func erfcLarge(a float32) float32 {
	if a > 10 {
		return 0
	}
	q := 1 / a
	w := q * q
	var p float32
	if a < 2 {
		p = (((((((2.326819970068386e-2*w-1.387039388740657e-1)*w+3.687424674597105e-1)*w-
			5.824733027278666e-1)*w+6.210004621745983e-1)*w-4.944515323274145e-1)*w+
			3.404879937665872e-1)*w-2.741127028184656e-1)*w + 5.638259427386472e-1
	} else {
		p = ((((((-1.047766399936249e+1*w+1.297719955372516e+1)*w-7.495518717768503e+0)*w+
			2.921019019210786e+0)*w-1.015265279202700e+0)*w+4.218463358204948e-1)*w-
			2.820767439740514e-1)*w + 5.641895067754075e-1
	}
	h := math.Float32frombits(math.Float32bits(a) & 0xfffff000)
	return expf(-h*h) * expf(-(a-h)*(a+h)) * q * p
}

// log1pf returns log(1 + u) for u > -1, accurate for small u where 1 + u rounds: with
// w = 1 + u rounded, log(w) * u / (w - 1) corrects the rounding of w to first order
// (Goldberg, "What every computer scientist should know about floating-point", thm. 4).
func log1pf(u float32) float32 {
	w := 1 + u
	if w == 1 {
		return u
	}
	return logf(w) * (u / (w - 1))
}

// The activations' element functions: the scalar kernels' loops and the vector kernels'
// fallback for blocks they leave out.

// geluErf returns 0.5 * x * (1 + erf(x / sqrt(2))).
func geluErf(x float32) float32 { return 0.5 * x * erf1p(x*(math.Sqrt2/2)) }

// softplusThreshold is torch's default: above it softplus returns x itself, which is
// log1p(exp(x)) to float32 precision (exp(-20) is below half an ulp of 20).
const softplusThreshold = 20

// softplus returns x if x > 20 else log1p(exp(x)).
func softplus(x float32) float32 {
	if x > softplusThreshold {
		return x
	}
	return log1pf(expf(x))
}

// mish returns x * tanh(log1p(exp(x))) with one exp: tanh(log(1 + e)) = ((1+e)² - 1) /
// ((1+e)² + 1) = n / (n + 2) with n = e * (e + 2). The exponent is capped at 20, where
// n / (n + 2) is already 1 in float32 and n cannot overflow.
func mish(x float32) float32 {
	e := expf(min(x, 20))
	n := e * (e + 2)
	return x * (n / (n + 2))
}

// elu returns x if x > 0 else alpha * (exp(x) - 1), without a branch: max(x, 0) +
// alpha * (exp(min(x, 0)) - 1), whose second term is exactly 0 for x >= 0 (expf(0) is 1).
// exp(x) - 1 is torch's own form (not expm1), so results near 0 carry expf's absolute
// error.
func elu(x, alpha float32) float32 { return max(x, 0) + alpha*(expf(min(x, 0))-1) }

// hardswish returns x * clamp(x + 3, 0, 6) / 6.
func hardswish(x float32) float32 { return x * min(max(x+3, 0), 6) / 6 }
