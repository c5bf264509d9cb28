// Package instrument is the measuring instrument that the calibration, ropgen's bench command
// and every module's bench command share: the memory mixes that stream the catalog's own
// copy and triad loops (internal/stream), timed warm (a pass of short dispatches on every
// worker: the calibration's rounds and the drift reference) or cold (one call after
// perf/cold's eviction: the same-time reference of the DRAM-sized rows), and the dispatch
// both use. It is apart from the calibration so that another module's bench command, which
// needs the references, links neither the calibration nor the catalog's kernels.
package instrument
