package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ropgen/ropgen/perf/calibrate"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/stats"
)

// roofCLoops names the C loop of compare/limits.c ("unit NAME") that reaches each compute
// roof with intrinsics: the FMA loop for vector.fp32, _mm512_dpbf16_ps for vector.bf16,
// _mm512_fmadd_ph for vector.fp16, _tile_dpbf16ps and _tile_dpbssd for an AMX cube.bf16 and
// cube.int8. A roof is compared only where its kernel runs here and the loop was compiled
// in (limits "units").
var roofCLoops = map[string]string{
	"vector.fp32": "fma32",
	"vector.bf16": "dpbf16",
	"vector.fp16": "fmaph",
	"cube.bf16":   "tdpbf16",
	"cube.int8":   "tdpbssd",
}

// roofTime is how long each side of a roof row runs in a round: a calibration round's
// multiply-add run (calibrate.Default's FMATime), in dispatches of 2 ms on both sides.
const roofTime = 200 * time.Millisecond

// roofRow is one compute roof against its C loop: FLOP/s of the fastest dispatch per round.
type roofRow struct {
	rk    calibrate.RoofKernel
	cLoop string
	ours  []float64
	c     []float64
}

// roofRows are the roofs of this host that have a C loop in lim, those whose key matches
// cfg.only when it is set.
func roofRows(cfg config, lim *limitsWorker) ([]*roofRow, error) {
	if lim == nil {
		return nil, nil
	}
	line, err := lim.ask("units")
	if err != nil {
		return nil, err
	}
	have := strings.Fields(line)
	var rows []*roofRow
	for _, rk := range calibrate.RoofKernels() {
		loop, ok := roofCLoops[rk.Key]
		if !ok || cfg.only != nil && !cfg.only.MatchString(rk.Key) {
			continue
		}
		if !slices.Contains(have, loop) {
			continue
		}
		rows = append(rows, &roofRow{rk: rk, cLoop: loop})
	}
	return rows, nil
}

// sides are the two measurements of the row in one round, ours then C's.
func (r *roofRow) sides(lim *limitsWorker) []func() error {
	return []func() error{
		func() error {
			r.ours = append(r.ours, r.rk.Peak(runtime.GOMAXPROCS(0), roofTime))
			return nil
		},
		func() error {
			s, work, err := lim.time(fmt.Sprintf("unit %s %d", r.cLoop, roofTime.Milliseconds()))
			r.c = append(r.c, work/s)
			return err
		},
	}
}

// printRoofs writes the table of the compute roofs against their C loops.
func printRoofs(w io.Writer, rows []*roofRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nCompute roofs against C intrinsics loops (compare/limits.c, cc -O2 -march=native), both sides the fastest 2 ms dispatch of a %v run on every thread, the calibration's statistic; target 0.8-1.15:\n\n", roofTime)
	fmt.Fprintln(w, "| roof | kernel | ours | C loop | C | ours/C |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows {
		u := profiles.RateUnit(r.rk.Key)
		fmt.Fprintf(w, "| %s | %s | %.1f G%s | %s | %.1f G%s | %s |\n", r.rk.Key, r.rk.Kernel,
			stats.Median(r.ours)/1e9, u, r.cLoop, stats.Median(r.c)/1e9, u, spread(ratios(r.ours, r.c)))
	}
}
