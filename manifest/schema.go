package manifest

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/schema"
)

// SchemaPath is the manifest schema's path relative to the module root. A manifest under
// manifest/ points editors at it with its first line:
//
//	# yaml-language-server: $schema=manifest.schema.json
const SchemaPath = "manifest/manifest.schema.json"

//go:embed manifest.schema.json
var schemaJSON []byte

// SchemaJSON returns the text of the manifest JSON Schema (`ropgen schema` prints it, so an
// editor's modeline can point at a copy in any tree).
func SchemaJSON() []byte { return slices.Clone(schemaJSON) }

// loadSchema compiles the embedded schema once. It panics on failure: the schema is part of
// the binary, and TestSchemaCompiles keeps it valid.
var loadSchema = sync.OnceValue(func() *schema.Compiled {
	s, err := schema.Compile("manifest.schema.json", schemaJSON)
	if err != nil {
		panic(fmt.Sprintf("manifest schema: %v", err))
	}
	s.Entries = true // a manifest maps op names to entries
	return s
})

// checkFile validates every op entry of f against the manifest schema. It returns the
// findings and the names of the entries that have any.
func checkFile(f *File) (diag.Findings, map[string]bool) {
	_, fs := loadSchema().Check(f.Path, f.Root)
	bad := map[string]bool{}
	for _, x := range fs {
		bad[x.Op] = true
	}
	return fs, bad
}
