//go:build !amd64

package ops

// Other architectures have no streaming kernels (stream_amd64.s): ntRelu and ntArith
// stream nothing, an empty span, and the Go loops compute every element.

func ntRelu(y, x []float32) (s, e int)             { return 0, 0 }
func ntArith(op int, y, a, b []float32) (s, e int) { return 0, 0 }
