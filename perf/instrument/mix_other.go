//go:build !amd64

package instrument

// simdStreamMixes: elsewhere the Go copy and triad stand (on arm64 copy is memmove, which
// uses LDP/STP pairs).
func simdStreamMixes() []Mix { return nil }
