//go:build !amd64 && !arm64

package calibrate

func simdMixes() []memMix { return nil }

func sweepMixes() []memMix { return nil }
