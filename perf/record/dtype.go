package record

import (
	"fmt"
	"strings"
)

// A record's dtype label names the dtype set of its case. It is the first input's dtype
// ("bfloat16") when that alone tells the case apart from the other cases of its op and
// workload, and otherwise name=dtype for every input in signature order, joined by commas
// ("a=float8_e4m3,s=float32"). DTypeLabel writes it, ParseDType reads it back.

// DTypeLabel returns the label of the dtype set dtypes, whose inputs are named inputs in
// signature order. row holds the dtype sets of every case of the same op and workload,
// dtypes among them.
func DTypeLabel(inputs []string, dtypes map[string]string, row []map[string]string) string {
	if len(inputs) == 0 {
		return ""
	}
	first := dtypes[inputs[0]]
	n := 0
	for _, s := range row {
		if s[inputs[0]] == first {
			n++
		}
	}
	if n <= 1 {
		return first
	}
	var pairs []string
	for _, in := range inputs {
		if dt, ok := dtypes[in]; ok {
			pairs = append(pairs, in+"="+dt)
		}
	}
	return strings.Join(pairs, ",")
}

// ParseDType returns the tensor dtypes label names: {firstInput: label} for a bare dtype,
// else one entry per name=dtype pair.
func ParseDType(label, firstInput string) (map[string]string, error) {
	if !strings.Contains(label, "=") {
		return map[string]string{firstInput: label}, nil
	}
	want := map[string]string{}
	for pair := range strings.SplitSeq(label, ",") {
		name, dt, ok := strings.Cut(pair, "=")
		if !ok || name == "" || dt == "" {
			return nil, fmt.Errorf("dtype %q: %q is not name=dtype", label, pair)
		}
		if _, twice := want[name]; twice {
			// One would silently win over the other.
			return nil, fmt.Errorf("dtype %q: %s is given twice", label, name)
		}
		want[name] = dt
	}
	return want, nil
}

// floatBits are the widths of the float dtypes a record's label may name, and of the float
// dtypes a roof key names (after its unit: "vector.fp16").
var floatBits = map[string]int{
	"float64": 64, "float32": 32, "float16": 16, "bfloat16": 16,
	"float8_e4m3": 8, "float8_e5m2": 8, "float8_e4m3fn": 8, "float8_e5m2fnuz": 8, "float8_e4m3fnuz": 8,
	"fp64": 64, "fp32": 32, "tf32": 32, "fp16": 16, "bf16": 16, "fp8": 8,
}

// RoofFitError says why a compute unit of the roof key roof ("vector.fp16") cannot do the
// work of a case whose dtype label is dtype, or "". A float unit narrower than every float
// dtype of the label (a 16-bit unit for a float32 op, a 32-bit unit for a float64 one) and
// an integer unit for a case of float dtypes only are what a record's author slipped on:
// priced, the row would be judged against a roof the op cannot use. The narrowest dtype
// decides, so a low-precision operand with wider scales ("a=float8_e4m3,s=float32" on a
// 16-bit unit) fits; a roof without a unit's dtype ("hbm") and dtypes this table does not
// know are not judged.
func RoofFitError(roof, dtype string) string {
	_, unitDT, ok := strings.Cut(roof, ".")
	if !ok {
		return ""
	}
	narrowest, floats, ints := 0, 0, 0
	for pair := range strings.SplitSeq(dtype, ",") {
		dt := pair
		if _, v, ok := strings.Cut(pair, "="); ok {
			dt = v
		}
		if b, ok := floatBits[dt]; ok {
			floats++
			if narrowest == 0 || b < narrowest {
				narrowest = b
			}
		} else if strings.HasPrefix(dt, "int") || strings.HasPrefix(dt, "uint") {
			ints++
		}
	}
	if floats == 0 {
		return ""
	}
	if b, ok := floatBits[unitDT]; ok && b < narrowest {
		return fmt.Sprintf("roof %s is a %d-bit unit, and every float dtype of %s is wider: the op cannot compute on it (the roof key names the unit the op's arithmetic runs on, e.g. vector.fp%d)", roof, b, dtype, narrowest)
	}
	if strings.HasPrefix(unitDT, "int") && ints == 0 {
		return fmt.Sprintf("roof %s is an integer unit, and %s has float dtypes only: the op cannot compute on it", roof, dtype)
	}
	return ""
}
