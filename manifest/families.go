package manifest

import (
	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/schema"
	"go.yaml.in/yaml/v3"
)

// Families returns each op's family ("norm", "matmul", ...) by name, read from the manifest
// files and directories at paths without validating them: what a chart needs to group its
// points, at the cost of one YAML parse per file rather than Load's whole check of the
// catalog. An op whose family is not a plain string is left out; a file that cannot be read
// or parsed is a finding, and the families of the others still come back.
func Families(paths ...string) (map[string]string, diag.Findings) {
	var fs diag.Findings
	out := map[string]string{}
	for _, name := range ExpandPaths(paths, &fs) {
		f, pfs := parseFile(name)
		fs = append(fs, pfs...)
		if f == nil || f.Root == nil || f.Root.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(f.Root.Content); i += 2 {
			if n := schema.Lookup(f.Root.Content[i+1], "family"); n != nil && n.Kind == yaml.ScalarNode {
				out[f.Root.Content[i].Value] = n.Value
			}
		}
	}
	return out, fs
}
