//go:build !amd64 && !arm64

package calibrate

func simdKernels() []fmaKernel { return nil }

func simdMixes() []memMix { return nil }

func sweepMixes() []memMix { return nil }
