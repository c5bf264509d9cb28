package ops

// zz_roofline.go and zz_roofline_helpers.go are generated from the manifests in ../manifest.
//go:generate go run ../cmd/ropgen generate
