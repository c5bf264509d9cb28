package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
)

// The numpy peer at its best (issue 21): numpy's OpenBLAS picks its kernel from the CPU's
// model, and a build older than the CPU falls back to a slow generic one (Prescott), which
// is no peer. So the driver asks which BLAS and kernel numpy runs (compare/numpy_worker.py
// "blas": threadpoolctl where installed, else OpenBLAS's openblas_get_corename through
// ctypes), and for OpenBLAS starts one worker per OPENBLAS_CORETYPE candidate, checks each
// one's matmul against a reference computed without BLAS (a forced kernel can compute wrong
// results on a CPU the library does not know), times a probe GEMM, and keeps the fastest that
// checks. Only the workers' own environments are set: the caller's is left as it is.

// blasInfo is the worker's answer to "blas".
type blasInfo struct {
	Library, API, Core, Version, Via string
}

// coreCandidates are the OPENBLAS_CORETYPE values tried after the default, for this
// architecture: the AVX-512 kernels first, then AVX2's.
func coreCandidates() []string {
	if runtime.GOARCH == "amd64" {
		return []string{"SapphireRapids", "Cooperlake", "SkylakeX", "Haswell"}
	}
	return nil
}

// probeN is the size of the probe GEMM, the headline row's (GEMM 1024³).
const probeN = 1024

// blasTrial is one kernel choice tried: the candidate ("" for the default), the kernel
// OpenBLAS reports running, the probe's best GFLOP/s, and why it was dropped ("" if kept).
type blasTrial struct {
	coretype, core string
	gflops         float64
	dropped        string
}

func (w *numpyWorker) blas() (blasInfo, error) {
	line, err := w.ask(`{"blas": 1}`)
	if err != nil {
		return blasInfo{}, err
	}
	var raw map[string]string
	if err := json.Unmarshal([]byte(line), &raw); err != nil {
		return blasInfo{}, fmt.Errorf("numpy: blas answer %q: %v", line, err)
	}
	return blasInfo{raw["library"], raw["api"], raw["core"], raw["version"], raw["via"]}, nil
}

func (w *numpyWorker) probe() (float64, error) {
	line, err := w.ask(fmt.Sprintf(`{"probe": %d}`, probeN))
	if err != nil {
		return 0, err
	}
	s, err := strconv.ParseFloat(line, 64)
	if err != nil || s <= 0 {
		return 0, fmt.Errorf("numpy: probe answer %q", line)
	}
	return 2 * math.Pow(probeN, 3) / s / 1e9, nil
}

// bestNumpy returns the numpy worker whose BLAS kernel is fastest among those that check,
// with its description set; log gets each trial. start starts a worker with
// OPENBLAS_CORETYPE=coretype ("" leaves it unset). cores are the candidates (nil: none).
func bestNumpy(start func(coretype string) (*numpyWorker, error), cores []string, log io.Writer) (*numpyWorker, error) {
	def, err := start("")
	if err != nil {
		return nil, err
	}
	info, err := def.blas()
	if err != nil {
		def.close()
		return nil, err
	}
	lib := info.Library
	if lib == "" {
		lib = "no BLAS library found loaded"
	}
	switch info.API {
	case "openblas":
	case "":
		def.blasNote = fmt.Sprintf("BLAS %s: not OpenBLAS, MKL or BLIS, perhaps the reference BLAS, which is no optimised peer", lib)
		return def, nil
	default:
		def.blasNote = fmt.Sprintf("BLAS %s (%s, its own kernel choice: only OpenBLAS's is tried)", lib, info.API)
		return def, nil
	}
	what := "OpenBLAS"
	if info.Version != "" {
		what += " " + info.Version
	}
	if len(cores) == 0 {
		def.blasNote = fmt.Sprintf("%s, kernel %s (its own choice; found by %s)", what, info.Core, info.Via)
		return def, nil
	}
	type cand struct {
		w *numpyWorker
		t blasTrial
	}
	cands := []*cand{{def, blasTrial{core: info.Core}}}
	for _, c := range cores {
		w, err := start(c)
		if err != nil {
			cands = append(cands, &cand{nil, blasTrial{coretype: c, dropped: err.Error()}})
			continue
		}
		in, err := w.blas()
		t := blasTrial{coretype: c, core: in.Core}
		switch {
		case err != nil:
			t.dropped = err.Error()
		case slicesAny(cands, func(x *cand) bool { return x.w != nil && x.t.core == in.Core }):
			t.dropped = "the same kernel as one tried before"
		}
		if t.dropped != "" {
			w.close()
			w = nil
		}
		cands = append(cands, &cand{w, t})
	}
	for _, c := range cands {
		if c.w == nil {
			continue
		}
		if _, err := c.w.ask(`{"check": 1}`); err != nil {
			c.t.dropped = "failed the check: " + err.Error()
			c.w.close()
			c.w = nil
		}
	}
	// Two probes each, interleaved, the best kept: on a shared machine one probe can lose
	// its CPU, and the choice must not be that probe's luck.
	for range 2 {
		for _, c := range cands {
			if c.w == nil {
				continue
			}
			g, err := c.w.probe()
			if err != nil {
				c.t.dropped = err.Error()
				c.w.close()
				c.w = nil
				continue
			}
			c.t.gflops = max(c.t.gflops, g)
		}
	}
	var best *cand
	for _, c := range cands {
		if c.w != nil && (best == nil || c.t.gflops > best.t.gflops) {
			best = c
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no OpenBLAS kernel choice computed matmul right (%s)", describeTrials(trialsOf(cands, func(c *cand) blasTrial { return c.t })))
	}
	for _, c := range cands {
		if c != best && c.w != nil {
			c.w.close()
		}
		fmt.Fprintf(log, "ropcompare: numpy: %s\n", describeTrial(c.t))
	}
	choice := "its own choice"
	if best.t.coretype != "" {
		choice = "OPENBLAS_CORETYPE=" + best.t.coretype
	}
	best.w.blasNote = fmt.Sprintf("%s, kernel %s (%s, the fastest of the kernel choices tried that compute matmul right, by a %d³ probe: %s; found by %s)",
		what, best.t.core, choice, probeN, describeTrials(trialsOf(cands, func(c *cand) blasTrial { return c.t })), info.Via)
	return best.w, nil
}

func slicesAny[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if f(x) {
			return true
		}
	}
	return false
}

func trialsOf[T any](xs []T, f func(T) blasTrial) []blasTrial {
	out := make([]blasTrial, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func describeTrial(t blasTrial) string {
	name := "default"
	if t.coretype != "" {
		name = t.coretype
	}
	if t.core != "" && t.core != t.coretype {
		name += " (ran " + t.core + ")"
	}
	if t.dropped != "" {
		return name + ": " + t.dropped
	}
	return fmt.Sprintf("%s %.0f GFLOP/s", name, t.gflops)
}

func describeTrials(ts []blasTrial) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, describeTrial(t))
	}
	return strings.Join(parts, ", ")
}
