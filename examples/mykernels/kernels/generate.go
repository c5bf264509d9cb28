package kernels

// zz_roofline.go and zz_roofline_helpers.go are generated from ../manifest by ropgen, which
// reads ../ropgen.yaml. CI checks them with `go tool ropgen generate -check`.
//go:generate go tool ropgen generate
