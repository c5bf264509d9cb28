//go:build !amd64

package ops

// Other architectures have no streaming kernels (stream_amd64.s): the nt functions stream
// nothing, an empty span, and the Go loops compute every element.

func ntRelu(y, x []float32) (s, e int)                  { return 0, 0 }
func ntLeakyRelu(y, x []float32, sl float32) (s, e int) { return 0, 0 }
func ntClamp(y, x []float32, lo, hi float32) (s, e int) { return 0, 0 }
func ntArith(op int, y, a, b []float32) (s, e int)      { return 0, 0 }
func ntCopy(y, x []float32) (s, e int)                  { return 0, 0 }

func ntSpan(y []float32) (s, e int) { return 0, 0 }
