// Package stream holds the streaming loops over []float32: the non-temporal-store kernels of
// the catalog's large outputs (package ops: copy, relu, leaky relu, clamp, arithmetic) and
// the calibration's memory mixes (copy, triad, read, fill, in ymm and zmm, ordinary and
// non-temporal). Each is declared beside the Go loop it must equal element for element
// (stream.go: the reference its tests compare it with), and that Go loop is the whole of the
// function where there is no assembly: on an architecture without it, or in a build with the
// purego tag, which leaves every assembly file out.
//
// One copy serves the catalog, the calibration and the same-time reference (perf/cold), so
// that the envelope is measured with the catalog's own streaming copy. It is apart from the
// catalog's vector kernels (internal/asm/f32) so that another module's bench command, which
// needs the instrument, does not compile the catalog's kernels.
package stream
