package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/perf/calibrate"
	"github.com/ropgen/ropgen/perf/profiles"
)

// measure is the measurement behind runCalibrate; a test replaces it.
var measure = calibrate.Run

// runCalibrate measures this machine with package perf/calibrate and writes its device
// profile (docs/model.md §4).
func runCalibrate(args []string, stdout, stderr io.Writer) int {
	def := calibrate.Default()
	fl := cli.NewFlags("ropgen calibrate", "-o FILE [-mib N] [-repeats N] [-fma-ms N] [-sweep-mib N] [-budget DURATION]", `
Calibrate measures this machine on all its CPUs and writes its device profile: the SIMD and
scalar multiply-add peaks (fp32, fp64), the DRAM envelope over seven access mixes (copy,
triad, read, write, and non-temporal-store copy, triad and write), L1/L2/L3 bandwidth from
a working-set sweep, and the latency floor, each with its spread. About half a minute.
A calibration whose rounds disagree (a priced figure's median round more than its tolerance
below its best, or its best moved between the first and second half of its rounds) or whose
caches are slower than the next level or DRAM is measured again while the -budget allows,
and then refused: exit 3, the reasons on standard error, and no profile written to -o. With
-loaded FILE the refused measurement is written to FILE instead, its reasons in its
measured.refused: a profile the report reads as measured under load (its figures lower
bounds; verdicts only where a same-time reference carries them), never the host's.`, stdout, stderr)
	out := fl.String("o", "", "write the profile to `FILE` (atomically; it must be absent, a writable regular file, or a stream such as /dev/null); - for standard output")
	mib := fl.Int("mib", 0, "size of each DRAM array in `MiB` (default: 2x the last-level cache, at least 64 MiB); smaller arrays measure the cache, not DRAM")
	repeats := fl.Int("repeats", def.Repeats, "interleaved rounds of every measurement; min, median and max are kept")
	fmaMS := fl.Int("fma-ms", int(def.FMATime/time.Millisecond), "duration of one multiply-add run in `ms`")
	sweepMiB := fl.Int("sweep-mib", int(def.SweepBytes>>20), "traffic of one cache-sweep measurement per worker in `MiB`; 0 skips the cache sweep")
	loaded := fl.String("loaded", "", "when the calibration is refused, write the refused measurement to `FILE` (never -o's file), marked measured.refused, and still exit 3")
	budget := fl.Duration("budget", 90*time.Second, "measure again while refused, as long as one more attempt would end within `DURATION` of the start")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	switch {
	case *out == "":
		return fl.Fail("-o FILE is required")
	case fl.NArg() > 0:
		return fl.Fail("unexpected arguments %q", fl.Args())
	case *repeats < 1 || *fmaMS < 1 || *mib < 0 || *sweepMiB < 0:
		return fl.Fail("-repeats and -fma-ms must be positive, -mib and -sweep-mib not negative")
	case *loaded != "" && (*loaded == "-" || *out != "-" && filepath.Clean(*loaded) == filepath.Clean(*out)):
		return fl.Fail("-loaded %s: must be a file other than -o's: a refused measurement is never the host's profile", *loaded)
	}
	// The destination is checked, and its temporary file created, before measuring: a
	// device node, FIFO, symbolic link, directory or read-only file is refused now, not
	// after half a minute of measurement.
	var dest *output.File
	if *out != "-" {
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			fmt.Fprintln(stderr, "ropgen calibrate:", err)
			return 1
		}
		var err error
		if dest, err = output.Create(*out); err != nil {
			fmt.Fprintln(stderr, "ropgen calibrate:", err)
			return 1
		}
		defer dest.Abort()
	}
	var loadedDest *output.File
	if *loaded != "" {
		var err error
		if loadedDest, err = output.Create(*loaded); err != nil {
			fmt.Fprintln(stderr, "ropgen calibrate: -loaded:", err)
			return 1
		}
		defer loadedDest.Abort()
	}
	cfg := def
	cfg.ArrayMiB, cfg.Repeats, cfg.FMATime = *mib, *repeats, time.Duration(*fmaMS)*time.Millisecond
	cfg.SweepBytes, cfg.Log = int64(*sweepMiB)<<20, stderr
	r, refused := calibrate.Calibrate(cfg, *budget, measure, time.Now)
	if len(refused) > 0 {
		fmt.Fprintf(stderr, "ropgen calibrate: refused (attempt %d; -budget %v): no profile written:\n", r.Attempt, *budget)
		for _, why := range refused {
			fmt.Fprintf(stderr, "  %s\n", why)
		}
		fmt.Fprintf(stderr, "ropgen calibrate: measure again when the machine is quieter (load average %.2f at the last attempt's start)\n", r.When.LoadAvg)
		if loadedDest != nil {
			r.When.Refused = refused
			if _, err := writeProfile(loadedDest, r); err != nil {
				fmt.Fprintln(stderr, "ropgen calibrate: -loaded:", err)
				return 1
			}
			fmt.Fprintf(stderr, "ropgen calibrate: the refused measurement is in %s (measured under load: lower bounds, not this host's ceilings)\n", *loaded)
		}
		return 3
	}
	text, err := writeProfile(dest, r)
	if err != nil {
		fmt.Fprintln(stderr, "ropgen calibrate:", err)
		return 1
	}
	if dest == nil {
		if _, err := stdout.Write(text); err != nil {
			fmt.Fprintln(stderr, "ropgen calibrate: writing standard output:", err)
			return 1
		}
	}
	fmt.Fprint(stderr, calibrate.Summary(r))
	return 0
}

// writeProfile renders r as a profile, checks that it loads, and commits it to dest (nil:
// only renders it).
func writeProfile(dest *output.File, r *calibrate.Result) ([]byte, error) {
	text := calibrate.Render(r)
	// What we write must load: a profile that fails its own schema is a bug here, not later.
	if _, err := profiles.Parse("calibrated profile", text); err != nil {
		return nil, fmt.Errorf("internal error: the measured profile does not load:\n%v", err)
	}
	if dest == nil {
		return text, nil
	}
	if _, err := dest.Write(text); err != nil {
		return nil, err
	}
	return text, dest.Commit()
}
