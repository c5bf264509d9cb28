package report

import (
	"math"
	"strconv"
	"strings"
)

// Percent formats a fraction in percent with one decimal ("78.5%"), or past 10^4 with three
// digits and an exponent; blank for NaN and infinities.
func Percent(v float64) string {
	if Blank(v) || math.IsInf(v, 0) {
		return ""
	}
	if math.Abs(v) >= 1e4 { // a formula error's ratio: three digits and an exponent, not dozens of digits
		return strconv.FormatFloat(v*100, 'e', 2, 64) + "%"
	}
	return strconv.FormatFloat(v*100, 'f', 1, 64) + "%"
}

// Times formats a ratio with two decimals ("1.73"), or past 10^4 with three digits and an
// exponent.
func Times(v float64) string {
	if math.Abs(v) >= 1e4 {
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

var prefixes = []struct {
	scale  float64
	prefix string
}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}, {1e-12, "p"}}

// PrefixOf returns the SI prefix v is written with (SI, and the chart's tick labels): the
// largest whose scale |v| reaches once rounded to three significant digits (999.6 is
// "1.00k"). ok is false when |v| reaches none; scale and prefix are then the smallest's.
func PrefixOf(v float64) (scale float64, prefix string, ok bool) {
	for _, q := range prefixes {
		if math.Abs(v) >= q.scale*0.9995 {
			return q.scale, q.prefix, true
		}
	}
	p := prefixes[len(prefixes)-1]
	return p.scale, p.prefix, false
}

// SI formats v with three significant digits and an SI prefix ("12.3µs", "4.30TB"); blank
// for NaN.
func SI(v float64, unit string) string {
	if Blank(v) || math.IsInf(v, 0) {
		return ""
	}
	if v == 0 {
		return "0" + unit
	}
	scale, prefix, _ := PrefixOf(v)
	x := v / scale
	if math.Abs(x) >= 999.5 {
		// Past the largest prefix (below it, 999.5 of a scale reaches the next): three
		// digits and an exponent, not a long run of digits.
		return strconv.FormatFloat(v, 'e', 2, 64) + unit
	}
	prec := 2
	switch {
	case scale == 1 && x == math.Trunc(x): // a small count: "64", not "64.0"
		prec = 0
	case math.Abs(x) >= 99.95:
		prec = 0
	case math.Abs(x) >= 9.995:
		prec = 1
	}
	return strconv.FormatFloat(x, 'f', prec, 64) + prefix + unit
}

// Rate formats a rate with a space before the prefixed unit, for prose: "4.30 TB/s". SI and
// Rate are the one number formatter of the report, the predictions and the benchmark progress.
func Rate(v float64, unit string) string {
	if Blank(v) || math.IsInf(v, 0) {
		return ""
	}
	s := SI(v, "")
	i := strings.LastIndexAny(s, "0123456789") + 1
	return s[:i] + " " + s[i:] + unit
}
