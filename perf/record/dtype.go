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
