package report

import "strings"

// dtypeShort abbreviates the dtype names inside a mixed dtype label, longest first.
var dtypeShort = strings.NewReplacer("bfloat", "bf", "float8_", "f8", "float", "f", "int", "i")

// ShortDType abbreviates a mixed dtype label for a table column ("q=bfloat16,k=float8_e4m3"
// reads "q=bf16,k=f8e4m3"); a bare dtype ("bfloat16") is short already and stays. Tables say
// so in a footnote, and -json and -csv keep the full label.
func ShortDType(label string) string {
	if !strings.Contains(label, "=") {
		return label
	}
	pairs := strings.Split(label, ",")
	for i, p := range pairs {
		if name, dt, ok := strings.Cut(p, "="); ok {
			// Only the dtype: an input name ("point") keeps its letters.
			pairs[i] = name + "=" + dtypeShort.Replace(dt)
		}
	}
	return strings.Join(pairs, ",")
}

// ShortName abbreviates the dtype part of an op/workload/dtype row name.
func ShortName(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return name
	}
	return name[:i+1] + ShortDType(name[i+1:])
}

// DTypeLegend is the footnote of a table with abbreviated dtype labels.
const DTypeLegend = "mixed dtype labels abbreviated (bf = bfloat, f8 = float8_, f = float, i = int); -json and -csv give them in full"
