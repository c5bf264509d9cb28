package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/roofline"
)

// maxDim bounds the sizes the calculators accept, so that 2·n³ stays far inside int64.
const maxDim = 1 << 20

// runRoofline is the roofline calculator for one device profile: its ridge points, the tile a
// fast memory holds and the tile that reaches the ridge, the batch that makes a matrix
// multiply compute-bound, and the decode-rate ceiling of a model.
func runRoofline(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen roofline", "-profile NAME|FILE [-basis effective|theoretical] [-ridge | -tile -fast-kib N [-n N] | -batch [-n N -k N -m LIST] | -decode [-params P]] [-roof KEY] [-elem BYTES]", `
Roofline arithmetic on a device profile's ceilings. A ceiling never measured has no
effective value: use -basis theoretical to price against the datasheet.`, stdout, stderr)
	profile := fl.String("profile", "", "device profile `NAME|FILE`: a builtin name or a .yaml file (required)")
	basis := fl.String("basis", string(profiles.Effective), "ceilings: effective (measured) or theoretical (datasheet)")
	roof := fl.String("roof", "cube.fp16", "compute roof `KEY` for -tile and -batch")
	elem := fl.Int64("elem", 2, "bytes per element")
	ridge := fl.Bool("ridge", false, "print every ceiling of the profile and its ridge point (the default)")
	tile := fl.Bool("tile", false, "tile calculator: the largest b×b tile that fits -fast-kib, and the smallest tile reaching the ridge at size -n")
	batch := fl.Bool("batch", false, "batch calculator: the smallest m at which (m×k)·(k×n) reaches the ridge, and a table over m")
	decode := fl.Bool("decode", false, "decode ceiling: time to read -params weights once, and tokens/s at batch 1")
	fastKiB := fl.Int64("fast-kib", 0, "fast memory per tile computation, in `KiB` (shared memory, L1, SRAM), for -tile")
	n := fl.Int64("n", 4096, "matrix size n (-tile: an n×n×n multiply; -batch: output columns)")
	k := fl.Int64("k", 4096, "reduction size k, for -batch")
	ms := fl.String("m", "", "comma-separated batch sizes to tabulate with -batch (default: powers of two and the crossing)")
	params := fl.Int64("params", 7e9, "model parameters, for -decode (a whole number: 7e9 or 7000000000)")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	bad := fl.Fail
	modes := 0
	for _, on := range []bool{*ridge, *tile, *batch, *decode} {
		if on {
			modes++
		}
	}
	switch {
	case fl.NArg() > 0:
		return bad("unexpected arguments %q", fl.Args())
	case *profile == "":
		return bad("-profile is required")
	case modes > 1:
		return bad("-ridge, -tile, -batch and -decode are exclusive")
	case *elem < 1 || *elem > 16:
		return bad("-elem %d: want 1 to 16 bytes", *elem)
	case *n < 1 || *n > maxDim || *k < 1 || *k > maxDim:
		return bad("-n and -k must be between 1 and %d", maxDim)
	case *tile && *fastKiB < 1:
		return bad("-tile needs -fast-kib, a fast-memory size in KiB")
	case *tile && *fastKiB > maxFastKiB:
		return bad("-fast-kib %d is too large: at most %d KiB (1 TiB)", *fastKiB, maxFastKiB)
	case *decode && (*params < 1 || *params > maxParams):
		return bad("-params %d: want 1 to %g parameters", *params, float64(maxParams))
	}
	b, err := profiles.ParseBasis(*basis)
	if err != nil {
		return bad("%v", err)
	}
	p, err := profiles.Open(*profile)
	if err != nil {
		fmt.Fprintln(stderr, "ropgen roofline:", err)
		return 2
	}
	calc := calculator{w: stdout, p: p, basis: b, elem: *elem}
	switch {
	case *tile:
		err = calc.tile(*roof, *fastKiB<<10, *n)
	case *batch:
		var rows []int64
		if rows, err = parseSizes(*ms); err != nil {
			return bad("-m: %v", err)
		}
		err = calc.batch(*roof, *n, *k, rows)
	case *decode:
		err = calc.decode(float64(*params))
	default:
		calc.ridges()
	}
	if err != nil {
		fmt.Fprintln(stderr, "ropgen roofline:", err)
		return 1
	}
	return 0
}

// maxFastKiB bounds -fast-kib: no fast memory a tile runs in is a terabyte.
const maxFastKiB = 1 << 30

// maxParams bounds -params: a quadrillion parameters, far beyond any model, and its bytes
// (times -elem) still a finite time to read.
const maxParams = 1e15

func parseSizes(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var out []int64
	for f := range strings.SplitSeq(s, ",") {
		// The numeric flags' rule (cli.ParseWhole): 1e3 is a size, as it is for -n.
		v, err := cli.ParseWhole(strings.TrimSpace(f))
		if err != nil || v < 1 || v > maxDim {
			return nil, fmt.Errorf("%q is not a size between 1 and %d", f, maxDim)
		}
		out = append(out, v)
	}
	return out, nil
}

// calculator prints the calculators' answers for one profile and basis.
type calculator struct {
	w     io.Writer
	p     *profiles.Profile
	basis profiles.Basis
	elem  int64
}

// ceilings resolves the memory roof and a compute roof, or says why one has no value.
func (c calculator) ceilings(key string) (peak, bw float64, err error) {
	bw, ok := c.p.Resolve(profiles.HBMKey, c.basis)
	if !ok {
		return 0, 0, c.none(profiles.HBMKey)
	}
	if peak, ok = c.p.Resolve(key, c.basis); !ok {
		return 0, 0, c.none(key)
	}
	fmt.Fprintf(c.w, "%s (%s), %s ceilings: %s %s, hbm %s, ridge %.1f FLOP/byte\n",
		c.p.Name, c.p.Device, c.basis, key, report.Rate(peak, "FLOP/s"), report.Rate(bw, "B/s"), roofline.Ridge(peak, bw))
	return peak, bw, nil
}

func (c calculator) none(key string) error {
	msg := c.p.Why(key, c.basis)
	if c.basis == profiles.Effective {
		if _, ok := c.p.Resolve(key, profiles.Theoretical); ok {
			msg += "; pass -basis theoretical to use the datasheet value"
		}
	}
	return errors.New(msg)
}

// ridges prints every ceiling and, for each compute roof, its ridge point.
func (c calculator) ridges() {
	fmt.Fprintf(c.w, "%s (%s, %s), %s ceilings\n", c.p.Name, c.p.Device, c.p.Source, c.basis)
	tw := tabwriter.NewWriter(c.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "roof\ttheoretical\tcalibration\teffective\tridge (FLOP/byte)")
	bw, bwOK := c.p.Resolve(profiles.HBMKey, c.basis)
	for _, key := range c.p.Keys() {
		ceil, _ := c.p.Roof(key)
		unit := "FLOP/s"
		if key == profiles.HBMKey {
			unit = "B/s"
		}
		cal, eff := "none", "none"
		if ceil.Calibrated() {
			cal, eff = fmt.Sprintf("%.4f", ceil.Calibration), report.Rate(ceil.Effective, unit)
		}
		r := "-"
		if v, ok := c.p.Resolve(key, c.basis); ok && key != profiles.HBMKey {
			r = "none (no hbm ceiling)"
			if bwOK {
				r = fmt.Sprintf("%.1f", roofline.Ridge(v, bw))
			}
		} else if !ok {
			r = "none"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", key, report.Rate(ceil.Theoretical, unit), cal, eff, r)
	}
	tw.Flush()
	if c.basis == profiles.Effective && !c.p.HBM.Calibrated() {
		fmt.Fprintln(c.w, "none: never measured, so no effective ceiling; -basis theoretical prices against the datasheet values")
	}
	if c.p.LatencyFloor > 0 {
		fmt.Fprintf(c.w, "latency floor %.3g s\n", c.p.LatencyFloor)
	}
}

// tile prints the tile calculator for an n×n×n multiply (see package roofline).
func (c calculator) tile(key string, fastBytes, n int64) error {
	peak, bw, err := c.ceilings(key)
	if err != nil {
		return err
	}
	s := c.elem
	b := roofline.MaxTile(fastBytes, s)
	fmt.Fprintf(c.w, "fast memory %d bytes, %d-byte elements:\n", fastBytes, s)
	if b < 1 {
		fmt.Fprintf(c.w, "  no tile fits: one element of each of A, B and C needs %d bytes\n", roofline.FastBytesNeeded(1, s))
	} else {
		i := roofline.TiledIntensity(n, min(b, n), s)
		att := roofline.Attainable(i, peak, bw)
		fmt.Fprintf(c.w, "  largest tile b = %d (A, B and C tiles: %d bytes)\n", b, roofline.FastBytesNeeded(b, s))
		fmt.Fprintf(c.w, "  n = %d with b = %d: intensity %.1f FLOP/byte, %s, attainable %s (%.1f%% of peak)\n",
			n, min(b, n), i, roofline.Classify(i, peak, bw), report.Rate(att, "FLOP/s"), 100*att/peak)
	}
	ridge := roofline.Ridge(peak, bw)
	need, ok := roofline.SmallestTileForRidge(n, s, peak, bw)
	if !ok {
		fmt.Fprintf(c.w, "no tile reaches the ridge at n = %d: even one tile covering everything gives %.1f FLOP/byte\n",
			n, roofline.GemmIntensity(n, n, n, s))
		return nil
	}
	fits := "fits"
	if roofline.FastBytesNeeded(need, s) > fastBytes {
		fits = "does not fit"
	}
	fmt.Fprintf(c.w, "smallest tile reaching the ridge at n = %d: b = %d (intensity %.1f), needing %d bytes of fast memory: %s\n",
		n, need, roofline.TiledIntensity(n, need, s), roofline.FastBytesNeeded(need, s), fits)
	fmt.Fprintf(c.w, "  (rule of thumb s × ridge = %.0f; with the C store but a fractional tile count %.1f)\n",
		float64(s)*ridge, roofline.RidgeTileFractional(n, s, peak, bw))
	return nil
}

// batch prints the batch calculator and a table of (m×k)·(k×n) over m.
func (c calculator) batch(key string, n, k int64, rows []int64) error {
	peak, bw, err := c.ceilings(key)
	if err != nil {
		return err
	}
	m, ok := roofline.BatchToReachRidge(n, k, c.elem, peak, bw)
	if ok {
		fmt.Fprintf(c.w, "(m×%d)·(%d×%d), %d-byte elements: compute-bound from m = %d\n", k, k, n, c.elem, m)
	} else {
		fmt.Fprintf(c.w, "(m×%d)·(%d×%d), %d-byte elements: memory-bound at every m (intensity stays below %.1f)\n",
			k, k, n, c.elem, 2*float64(n)*float64(k)/(float64(n+k)*float64(c.elem)))
	}
	if rows == nil {
		for r := int64(1); r <= 4096; r *= 2 {
			rows = append(rows, r)
		}
		if ok && m <= maxDim {
			rows = append(rows, m-1, m)
		}
	}
	tw := tabwriter.NewWriter(c.w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "m\tintensity\tbound\tattainable\t% of peak\t")
	for _, r := range sortedUnique(rows) {
		i := roofline.GemmIntensity(r, n, k, c.elem)
		att := roofline.Attainable(i, peak, bw)
		fmt.Fprintf(tw, "%d\t%.2f\t%s\t%s\t%.1f\t\n", r, i, roofline.Classify(i, peak, bw), report.Rate(att, "FLOP/s"), 100*att/peak)
	}
	return tw.Flush()
}

func sortedUnique(v []int64) []int64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return slices.Compact(v)
}

// decode prints the weight-read floor of one decoding step and the tokens/s ceiling.
func (c calculator) decode(params float64) error {
	bw, ok := c.p.Resolve(profiles.HBMKey, c.basis)
	if !ok {
		return c.none(profiles.HBMKey)
	}
	fmt.Fprintf(c.w, "%s (%s), %s hbm %s\n", c.p.Name, c.p.Device, c.basis, report.Rate(bw, "B/s"))
	fmt.Fprintf(c.w, "%.4g parameters × %d bytes = %.4g GB: one read takes %.3f ms; at most %.1f tokens/s per request at batch 1 (attention cache reads ignored)\n",
		params, c.elem, params*float64(c.elem)/1e9, roofline.WeightReadSeconds(params, c.elem, bw)*1e3, roofline.DecodeTokensPerSecond(params, c.elem, bw))
	return nil
}
