package benchcmd

import (
	"fmt"
	"io"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/perf/bench"
)

// eval is `NAME eval`: Eval over the selected cases.
func (e *env) eval(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags(e.name+" eval", "[-manifests PATHS] [-op REGEX] [-workload REGEX] [-dtype REGEX]", `
Eval runs every workload × dtype of the implemented ops through the generated EvalRoofline
and ComputeRoof (on shapes alone, no data), the way run and predict will: a formula that
fails or panics on a real workload is reported at that workload's row, file:line:col.
Exit 1 on any failure.`, stdout, stderr)
	manifests := fl.ManifestsFlag()
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
	clean, fs := bench.Eval(e.reg, cases)
	for _, x := range fs {
		fmt.Fprintln(stderr, x)
	}
	fmt.Fprintf(stdout, "%d cases evaluated: %d clean, %d failed\n", len(cases), clean, len(fs))
	if len(fs) > 0 {
		return 1
	}
	return 0
}
