package ops

// zz_roofline.go is generated from the manifests in ../manifest.
//go:generate go run ../cmd/ropgen generate
