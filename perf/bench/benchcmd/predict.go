package benchcmd

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// predict is `NAME predict`: price the selected cases against a profile without running them.
func (e *env) predict(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags(e.name+" predict", "-profile NAME|FILE [-theoretical] [-json] [-op REGEX] [-workload REGEX] [-dtype REGEX]\n-profile NAME|FILE [-theoretical] [-json] -op NAME -set KEY=VALUE,... -dtype DTYPE", `
bench.Predict prices catalog workloads (or one given with -set) against a device profile without
running them: each case is built as meta tensors, its generated EvalRoofline gives the FLOPs
and bytes, and the profile's ceilings give the bound, the speed-of-light time and the rate
the roofline allows (the report's pricing). Blank cells are what the profile cannot price.
With -json each case is one JSON object a line: the work list's keys (eval -json) and the
prices, a cell the profile cannot price null (docs/bench.md).`, stdout, stderr)
	manifests := fl.ManifestsFlag()
	profile := fl.String("profile", "", "device profile: a builtin `NAME` (h200, a100-sxm-80gb, ascend910b1) or a .yaml FILE")
	theoretical := fl.Bool("theoretical", false, "price against the theoretical (datasheet) ceilings instead of the effective ones")
	asJSON := fl.Bool("json", false, "one JSON object a line per case (the work list's keys and the prices) instead of the table")
	set := fl.List("set", "price one workload given here instead of the catalog's: `KEY=VALUE,...` as in a manifest row (needs -op NAME and -dtype DTYPE)")
	ff := addFilterFlags(fl)
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	if *profile == "" {
		return fl.Fail("-profile is required")
	}
	prof, err := profiles.Open(*profile)
	if err != nil {
		return fl.Fail("-profile: %v", err)
	}
	basis := profiles.Effective
	if *theoretical {
		basis = profiles.Theoretical
	}
	cat, code, ok := e.load(fl, *manifests)
	if !ok {
		return code
	}
	cases, code, err := selectCases(cat, ff, *set)
	switch {
	case err != nil && code == 2:
		return fl.Fail("%v", err)
	case err != nil:
		return fl.Errorf("%v", err)
	case len(cases) == 0:
		return fl.Errorf("no case selected")
	}
	plans, err := bench.Plan(e.reg, cases, bench.Limits{})
	if err != nil {
		return fl.Errorf("%v", err)
	}
	var preds []bench.Prediction
	for _, p := range plans {
		if p.Skip != "" { // no roofline without a builder
			fmt.Fprintf(stderr, "skip %s: %s\n", p.Name(), p.Skip)
			continue
		}
		preds = append(preds, bench.Predict(p, prof, basis))
	}
	if *asJSON {
		lines := make([]bench.PredictedWork, len(preds))
		for i, p := range preds {
			lines[i] = bench.PredictedWorkOf(p, prof, basis)
		}
		if err := bench.WriteJSONLines(stdout, lines); err != nil {
			return fl.Errorf("%v", err)
		}
		return 0
	}
	if err := writePredictions(stdout, prof, basis, preds); err != nil {
		return fl.Errorf("%v", err)
	}
	return 0
}

// writePredictions writes the header (profile, basis, ceilings and ridges of the roofs met)
// and an aligned table, one row per prediction; blank cells are empty.
func writePredictions(w io.Writer, prof *profiles.Profile, basis profiles.Basis, preds []bench.Prediction) error {
	fmt.Fprintf(w, "profile %s (%s), %s ceilings\n", prof.Name, prof.Source, basis)
	roofs := []string{profiles.HBMKey}
	for _, p := range preds {
		if !slices.Contains(roofs, p.Roof) {
			roofs = append(roofs, p.Roof)
		}
	}
	bw, okBW := prof.Resolve(profiles.HBMKey, basis)
	for _, key := range roofs {
		// The roof that prices the rows, as the rows say (a CPU prices cube.fp64 at vector.fp64).
		priced, _ := report.RoofFor(prof, key)
		v, ok := prof.Resolve(priced, basis)
		name := key
		if priced != key {
			name = key + " (priced at " + priced + ")"
		}
		switch {
		case !ok:
			fmt.Fprintf(w, "  %-12s none: %s\n", name, prof.Why(priced, basis))
		case key == profiles.HBMKey:
			fmt.Fprintf(w, "  %-12s %s\n", name, report.Rate(v, "B/s"))
		case okBW:
			fmt.Fprintf(w, "  %-12s %s, ridge %.2f FLOP/B\n", name, report.Rate(v, "FLOP/s"), v/bw)
		default:
			fmt.Fprintf(w, "  %-12s %s\n", name, report.Rate(v, "FLOP/s"))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "op\tworkload\tdtype\troof\tflops\tbytes\tintensity\tbound\tsol\tattainable\tpeak\tnote")
	for _, p := range preds {
		cells := []string{p.Case.Case.Op, p.Case.Case.Label, p.DType, p.Roof, report.SI(float64(p.Flops), ""), report.SI(float64(p.Bytes), "B"),
			fixed(p.Intensity, "%.2f"), string(p.Bound), report.SI(p.SOLTime, "s"), report.Rate(p.Attainable, "FLOP/s"),
			fixed(p.PeakShare*100, "%.1f%%"), p.Note}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func fixed(v float64, format string) string {
	if report.Blank(v) {
		return ""
	}
	return fmt.Sprintf(format, v)
}
