// Package schema is the generic YAML-to-JSON-Schema checker: it parses a YAML file that holds
// one document (ParseDocument), converts its tree to the JSON value encoding/json would decode
// from it and validates that against a compiled JSON Schema (Compile, Compiled.Check), with
// every finding at the file:line:col of the node it is about, in the author's words. It knows
// nothing of what the documents mean: package manifest checks op manifests with it (and owns
// their schema and the rules beyond it), package perf/profiles device profiles.
package schema
