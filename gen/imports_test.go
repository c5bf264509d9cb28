package gen

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ropgen/ropgen/"

// importRules is one package's section of docs/architecture.md.
type importRules struct {
	mayImport []string // module packages its non-test files may import
	never     []string // module packages it must not depend on, even through its tests
	stated    bool     // the section has a May import line
}

var (
	sectionRE  = regexp.MustCompile("^### `([^`]+)`\\s*$")
	backtickRE = regexp.MustCompile("`([^`]+)`")
)

// readImportRules parses the package map: a "### `path`" heading per package, and under it
// "May import: `a`, `b`." (or "nothing.") and optionally "Never depends on: `c`.".
func readImportRules(t *testing.T, path string) map[string]*importRules {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := map[string]*importRules{}
	var cur *importRules
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := sectionRE.FindStringSubmatch(line); m != nil {
			cur = &importRules{}
			rules[m[1]] = cur
			continue
		}
		if strings.HasPrefix(line, "## ") {
			cur = nil
			continue
		}
		if cur == nil {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "May import:"); ok {
			cur.stated = true
			for _, m := range backtickRE.FindAllStringSubmatch(rest, -1) {
				cur.mayImport = append(cur.mayImport, m[1])
			}
		}
		if rest, ok := strings.CutPrefix(line, "Never depends on:"); ok {
			for _, m := range backtickRE.FindAllStringSubmatch(rest, -1) {
				cur.never = append(cur.never, m[1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rules
}

// TestImportRules enforces docs/architecture.md: every package of the module has a section
// there; its non-test files import only the module packages the section allows; and nothing
// it depends on, tests included, is a package the section forbids. Among the rules: the
// generator command and gen never depend on ops (a broken generated file must never stop
// the generator from building), the func-mode formulas never import ops (the op package
// imports them), diag imports nothing of ours, and perf/record stays off the manifest model.
func TestImportRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	rules := readImportRules(t, filepath.Join("..", "docs", "architecture.md"))
	if len(rules) < 10 {
		t.Fatalf("docs/architecture.md: only %d package sections found", len(rules))
	}
	cmd := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}\t{{join .Deps \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	own := func(p string) (string, bool) {
		p = strings.Fields(p)[0] // "pkg [pkg.test]" is pkg as its tests see it
		return strings.CutPrefix(p, module)
	}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		cols := strings.Split(strings.TrimRight(line, "\n"), "\t")
		id, imports, deps := cols[0], strings.Fields(cols[1]), strings.Fields(cols[2])
		pkg, ok := own(id)
		if !ok {
			continue
		}
		variant := strings.Contains(id, " ") || strings.HasSuffix(pkg, ".test")
		pkg = strings.TrimSuffix(strings.TrimSuffix(pkg, ".test"), "_test")
		r := rules[pkg]
		if r == nil || !r.stated {
			if !variant {
				t.Errorf("package %s has no section with a May import line in docs/architecture.md: add one (what it owns, what it may import)", pkg)
			}
			continue
		}
		if !variant { // the package's own files
			for _, imp := range imports {
				if p, ok := own(imp); ok && !slices.Contains(r.mayImport, p) {
					t.Errorf("%s imports %s, which docs/architecture.md does not allow it (May import: %s)", pkg, p, strings.Join(r.mayImport, ", "))
				}
			}
		}
		for _, dep := range deps {
			if p, ok := own(dep); ok && slices.Contains(r.never, p) {
				t.Errorf("%s depends on %s (in %s), which docs/architecture.md forbids", pkg, p, id)
			}
		}
	}
}
