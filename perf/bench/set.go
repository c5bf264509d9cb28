package bench

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
)

// SetFile names a workload row given on the command line in findings.
const SetFile = "-set"

// SetCases resolves one workload row given on the command line against op's signature,
// with the same checks as a manifest row (manifest.(*Op).Cases): every needed key present,
// values of the right kind, dtypes within the declared unions, shape rules true. set is
// comma-separated key=value pairs whose values are YAML, as in a manifest row
// ("M=128,N=4096,K=4096" or "x_shape=[512,512],negative_slope=0.1"); dtype is one dtype
// name, binding the first input, or name=dtype pairs ("q=bfloat16,k=float8_e4m3"). The
// row's label is set without spaces.
func SetCases(op *manifest.Op, set, dtype string) ([]Case, error) {
	w, err := setRow(set, dtype)
	if err != nil {
		return nil, err
	}
	row := *op
	row.Workloads = []*manifest.Workload{w}
	cases, fs := row.Cases()
	// A finding about the row points at the command line, not at the manifest the rest of
	// the signature came from.
	const field = "workloads[0]"
	for i, f := range fs {
		if rest, ok := strings.CutPrefix(f.Field, field); ok {
			if f.Pos.File != SetFile { // a value's position is its YAML node's, in no file
				fs[i].Pos = diag.Pos{File: SetFile}
			}
			fs[i].Field = SetFile + rest
		}
	}
	if len(fs) > 0 {
		return nil, fs
	}
	return label(op, cases), nil
}

// setRow builds the workload row of set and dtype.
func setRow(set, dtype string) (*manifest.Workload, error) {
	label := strings.ReplaceAll(set, " ", "")
	w := &manifest.Workload{Pos: diag.Pos{File: SetFile}, Label: &manifest.Str{Value: label}}
	items, err := splitTop(set)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, it := range items {
		key, val, ok := strings.Cut(it.text, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", SetFile, it.text)
		}
		if seen[key] {
			// Repeated -set flags join into one list: a key given twice is a conflict, never
			// the last one silently.
			return nil, fmt.Errorf("%s:1:%d: %s is given twice: give each key once", SetFile, it.col, key)
		}
		seen[key] = true
		if key == manifest.KeyDTypes || key == manifest.KeyLabel {
			return nil, fmt.Errorf("%s: %s is not a workload value here (give dtypes with -dtype)", SetFile, key)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(val), &doc); err != nil || len(doc.Content) != 1 {
			return nil, fmt.Errorf("%s: %s: value %q is not one YAML value", SetFile, key, val)
		}
		w.Values = append(w.Values, manifest.KeyValue{
			Key: manifest.Str{Value: key, Pos: diag.Pos{File: SetFile, Line: 1, Col: it.col}}, Value: doc.Content[0]})
	}
	if dtype == "" {
		return nil, fmt.Errorf("%s needs a dtype (-dtype float16, or -dtype a=float16,b=float16)", SetFile)
	}
	set1 := manifest.DTypeSet{Pos: diag.Pos{File: SetFile}}
	if !strings.Contains(dtype, "=") {
		set1.Single = &manifest.Str{Value: dtype}
	} else {
		for _, pair := range strings.Split(dtype, ",") {
			name, dt, ok := strings.Cut(pair, "=")
			if !ok || name == "" || dt == "" {
				return nil, fmt.Errorf("-dtype %q: %q is not input=dtype", dtype, pair)
			}
			set1.ByInput = append(set1.ByInput, manifest.KeyStr{Key: manifest.Str{Value: name}, Value: manifest.Str{Value: dt}})
		}
	}
	w.DTypes = []manifest.DTypeSet{set1}
	return w, nil
}

// item is one key=value of a -set list and the 1-based column where it starts.
type item struct {
	text string
	col  int
}

// splitTop splits s at the commas outside brackets, so that a shape value ("[512, 512]")
// stays whole.
func splitTop(s string) ([]item, error) {
	var items []item
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("%s:1:%d: unbalanced %q", SetFile, i+1, c)
			}
		case ',':
			if depth == 0 {
				items = append(items, item{s[start:i], start + 1})
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%s: unbalanced brackets in %q", SetFile, s)
	}
	if strings.TrimSpace(s) != "" {
		items = append(items, item{s[start:], start + 1})
	}
	return items, nil
}
