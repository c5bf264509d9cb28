// Package schema validates op manifests. A JSON Schema (manifest.schema.json, embedded, the
// same file editors use) checks each entry's structure; the entries that pass it are decoded
// by package manifest and then get the checks a schema cannot express: dtype and param type
// syntax, func-mode functions, and every workload row against its op's signature and
// shape_rules. Validate is the one entry point, used by `ropgen validate` and the generator.
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
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

// compiled is the manifest schema ready to validate, with its raw JSON kept to look up the
// keywords (required, properties, enum, errorMessage) a validation error refers to.
type compiled struct {
	schema *jsonschema.Schema
	raw    map[string]any
}

// loadSchema compiles the embedded schema once. It panics on failure: the schema is part of
// the binary, and TestSchemaCompiles keeps it valid.
var loadSchema = sync.OnceValue(func() *compiled {
	const url = "manifest.schema.json"
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(url, bytes.NewReader(manifestSchema)); err != nil {
		panic(fmt.Sprintf("schema: %s: %v", url, err))
	}
	s, err := c.Compile(url)
	if err != nil {
		panic(fmt.Sprintf("schema: %s: %v", url, err))
	}
	var raw map[string]any
	if err := json.Unmarshal(manifestSchema, &raw); err != nil {
		panic(fmt.Sprintf("schema: %s: %v", url, err))
	}
	return &compiled{schema: s, raw: raw}
})
