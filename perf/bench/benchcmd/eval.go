package benchcmd

import (
	"fmt"
	"io"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/perf/bench"
)

// eval is `NAME eval`: Eval over the selected cases.
func (e *env) eval(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags(e.name+" eval", "[-manifests PATHS] [-op REGEX] [-workload REGEX] [-dtype REGEX] [-json]", `
Eval runs every workload × dtype of the implemented ops through the generated EvalRoofline
and ComputeRoof (on shapes alone, no data), the way run and predict will: a formula that
fails or panics on a real workload is reported at that workload's row, file:line:col.
With -json it prints the work list instead of the count: one JSON object a line per clean
case (op, workload, dtypes, dims, params, tensor shapes, exact flops and bytes, roof key;
docs/bench.md), for a harness in another language to time; the count goes to stderr.
Exit 1 on any failure.`, stdout, stderr)
	manifests := fl.ManifestsFlag()
	asJSON := fl.Bool("json", false, "print the work list, one JSON object a line per clean case, instead of the count")
	ff := addFilterFlags(fl)
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	f, err := ff.filter()
	if err != nil {
		return fl.Fail("%v", err)
	}
	cat, code, ok := e.load(fl, *manifests)
	if !ok {
		return code
	}
	cases := f.Select(cat.cases)
	if len(cases) == 0 {
		return fl.Errorf("no case selected")
	}
	work, fs := bench.WorkList(e.reg, cases)
	for _, x := range fs {
		fmt.Fprintln(stderr, x)
	}
	summary := stdout
	if *asJSON {
		if err := bench.WriteJSONLines(stdout, work); err != nil {
			return fl.Errorf("%v", err)
		}
		summary = stderr
	}
	fmt.Fprintf(summary, "%d cases evaluated: %d clean, %d failed\n", len(cases), len(work), len(fs))
	if len(fs) > 0 {
		return 1
	}
	return 0
}
