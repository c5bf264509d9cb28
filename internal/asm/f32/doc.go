// Package f32 holds the float32 kernels in assembly and the SIMD level that picks them: flat
// functions over []float32, laid out as gonum's internal/asm/f32. Each assembly stub is
// declared beside the Go loop it must equal element for element (the reference its tests
// compare it with), and that Go loop is the whole of the function where there is no
// assembly: on an architecture without it, or in a build with the purego tag, which leaves
// every assembly file out.
//
// The package imports nothing of this module: package ops (the catalog) calls the kernels,
// and perf/calibrate measures the host's memory envelope with the same streaming kernels,
// so what calibration measures and what the catalog runs are one code.
package f32
