// Package schema validates op manifests. A JSON Schema (manifest.schema.json, embedded, the
// same file editors use) checks each entry's structure; the entries that pass it are decoded
// by package manifest and then get the checks a schema cannot express: dtype and param type
// syntax, func-mode functions, and every workload row against its op's signature and
// shape_rules. Validate is the one entry point, used by `ropgen validate` and the generator.
package schema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"
)

// ManifestSchemaPath is the manifest schema's path relative to the module root. A manifest
// under manifest/ points editors at it with its first line:
//
//	# yaml-language-server: $schema=../schema/manifest.schema.json
const ManifestSchemaPath = "schema/manifest.schema.json"

//go:embed manifest.schema.json
var manifestSchema []byte

// ManifestSchema returns the text of the manifest JSON Schema.
func ManifestSchema() []byte { return bytes.Clone(manifestSchema) }

// loadSchema compiles the embedded schema once. It panics on failure: the schema is part of
// the binary, and TestSchemaCompiles keeps it valid.
var loadSchema = sync.OnceValue(func() *Compiled {
	s, err := Compile("manifest.schema.json", manifestSchema)
	if err != nil {
		panic(fmt.Sprintf("schema: %v", err))
	}
	s.Entries = true // a manifest maps op names to entries
	return s
})
