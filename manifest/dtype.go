package manifest

// DTypeSpec is one dtype a manifest may name, with its storage size in bytes.
type DTypeSpec struct {
	Name string
	Size int
}

// DTypes is the single table of dtypes: the validator checks names against it and package
// ops numbers its DType values after it.
var DTypes = []DTypeSpec{
	{"float32", 4},
	{"float16", 2},
	{"bfloat16", 2},
	{"float8_e4m3", 1},
	{"float8_e5m2", 1},
	{"int64", 8},
	{"int32", 4},
	{"int8", 1},
	{"bool", 1},
}

// LookupDType returns the dtype named name.
func LookupDType(name string) (DTypeSpec, bool) {
	for _, d := range DTypes {
		if d.Name == name {
			return d, true
		}
	}
	return DTypeSpec{}, false
}
