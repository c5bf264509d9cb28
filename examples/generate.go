// Package examples holds the worked example module examples/mykernels (its own go.mod, with a replace to this
// tree), which make test builds and checks, and examples/pyharness, a reference harness in
// Python that times the work list (ropbench eval -json) and writes records (docs/using.md).
//
// go generate ./... at the root keeps that module current too: its go.mod follows this
// module's requirements (go mod tidy), and its generated roofline code follows gen.
package examples

//go:generate go -C mykernels mod tidy
//go:generate go -C mykernels generate ./...
