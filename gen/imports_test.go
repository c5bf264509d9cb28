package gen

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportRules checks the two import rules of the design: the generator command never
// depends on package ops (a broken generated file must never stop the generator from
// building), and the func-mode formulas never import ops (the op package imports them).
func TestImportRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, pkg := range []string{"github.com/ropgen/ropgen/cmd/ropgen", "github.com/ropgen/ropgen/perf/formulas", "github.com/ropgen/ropgen/gen", "github.com/ropgen/ropgen/schema"} {
		out, err := exec.Command("go", "list", "-deps", "-test", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "github.com/ropgen/ropgen/ops" {
				t.Errorf("%s depends on the ops package", pkg)
			}
		}
	}
	// diag is what every package reports with, so it depends on nothing of ropgen's; the
	// record codec reports with it and so stays off the manifest model (expr-lang, yaml).
	for pkg, banned := range map[string]string{
		"github.com/ropgen/ropgen/diag":        "github.com/ropgen/ropgen/",
		"github.com/ropgen/ropgen/perf/record": "github.com/ropgen/ropgen/manifest",
	} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep != pkg && strings.HasPrefix(dep, banned) {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
