//go:build !amd64

package calibrate

// unitKernels: no bf16, fp16, int8 or matrix-unit kernel is written for this architecture,
// so its profile prices those dtypes at the fp32 pipes (HalfPrecision says how).
func unitKernels() []fmaKernel { return nil }

var amxWhy = "no AMX kernel for this architecture"
