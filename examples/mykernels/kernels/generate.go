package kernels

// zz_roofline.go is generated from ../manifest by ropgen, which
// reads ../ropgen.yaml. CI checks them with `go tool ropgen generate -check`.
//go:generate go tool ropgen generate
