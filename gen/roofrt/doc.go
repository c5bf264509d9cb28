// Package roofrt is the runtime of generated roofline code, kept as real Go so that it is
// compiled, vetted and unit-tested like any other package. Nothing imports it: ropgen
// embeds these files (gen/runtime.go) and copies their declarations into each op
// package's zz_roofline.go, the helpers only when some formula calls them. Every
// declaration here is therefore unexported and self-contained; helpers.go holds exactly
// the helpers of the binding table (gen.Helpers), in its order.
package roofrt
