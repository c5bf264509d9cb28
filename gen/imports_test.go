package gen

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ropgen/ropgen/"

// importRules is one package's section of docs/architecture.md.
type importRules struct {
	mayImport   []string // module packages its non-test files import, exactly
	never       []string // module packages it must not depend on, even through its tests
	stated      bool     // the section has a May import line
	subcommands []string // the Subcommands line: the command's subcommand table, exactly
	subLine     bool     // the section has a Subcommands line
}

var (
	sectionRE  = regexp.MustCompile("^### `([^`]+)`\\s*$")
	backtickRE = regexp.MustCompile("`([^`]+)`")
	// asideRE is a parenthesized note on a rules line ("`perf/calibrate` (the drift
	// reference)"): it says why, and a backticked word in it is not a package.
	asideRE = regexp.MustCompile(`\([^()]*\)`)
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
			rest = asideRE.ReplaceAllString(rest, "")
			cur.stated = true
			for _, m := range backtickRE.FindAllStringSubmatch(rest, -1) {
				cur.mayImport = append(cur.mayImport, m[1])
			}
		}
		if rest, ok := strings.CutPrefix(line, "Never depends on:"); ok {
			rest = asideRE.ReplaceAllString(rest, "")
			for _, m := range backtickRE.FindAllStringSubmatch(rest, -1) {
				cur.never = append(cur.never, m[1])
			}
		}
		if rest, ok := strings.CutPrefix(line, "Subcommands:"); ok {
			cur.subLine = true
			for _, m := range backtickRE.FindAllStringSubmatch(rest, -1) {
				cur.subcommands = append(cur.subcommands, m[1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rules
}

// TestImportRules enforces docs/architecture.md: every package of the module has a section
// there; its non-test files import exactly the module packages the section lists (an
// allowance the package does not use fails too, so the page never permits more than the
// code does); and nothing it depends on, tests included, is a package the section forbids. Among the rules: the
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
	seen := map[string]bool{}
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
			seen[pkg] = true
			var used []string
			for _, imp := range imports {
				if p, ok := own(imp); ok {
					used = append(used, p)
					if !slices.Contains(r.mayImport, p) {
						t.Errorf("%s imports %s, which docs/architecture.md does not allow it (May import: %s)", pkg, p, strings.Join(r.mayImport, ", "))
					}
				}
			}
			for _, p := range r.mayImport {
				if !slices.Contains(used, p) {
					t.Errorf("docs/architecture.md lets %s import %s, which it does not: remove it from the May import line", pkg, p)
				}
			}
		}
		for _, dep := range deps {
			if p, ok := own(dep); ok && slices.Contains(r.never, p) {
				t.Errorf("%s depends on %s (in %s), which docs/architecture.md forbids", pkg, p, id)
			}
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(rules)) {
		if r := rules[pkg]; r.stated && !seen[pkg] {
			t.Errorf("docs/architecture.md has a section for %s, which is not a package of the module: remove or rename it", pkg)
		}
	}
}

// subcommandTables returns, for each package of the module whose non-test files build a
// `map[string]cli.Command` (the table internal/cli.Dispatch runs), the table's keys, sorted.
func subcommandTables(t *testing.T, root string) map[string][]string {
	t.Helper()
	tables := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // a module of its own (examples/mykernels)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isCommandTable(lit.Type) {
				return true
			}
			for _, elt := range lit.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if key, ok := kv.Key.(*ast.BasicLit); ok && key.Kind == token.STRING {
					name, err := strconv.Unquote(key.Value)
					if err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					tables[pkg] = append(tables[pkg], name)
				}
			}
			return false
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, names := range tables {
		slices.Sort(names)
	}
	return tables
}

// isCommandTable reports whether typ is map[string]cli.Command.
func isCommandTable(typ ast.Expr) bool {
	m, ok := typ.(*ast.MapType)
	if !ok {
		return false
	}
	k, ok := m.Key.(*ast.Ident)
	if !ok || k.Name != "string" {
		return false
	}
	v, ok := m.Value.(*ast.SelectorExpr)
	if !ok || v.Sel.Name != "Command" {
		return false
	}
	x, ok := v.X.(*ast.Ident)
	return ok && x.Name == "cli"
}

// TestSubcommandsListed enforces the Subcommands lines of docs/architecture.md both ways: a
// package whose code has a subcommand table has a Subcommands line naming exactly its keys,
// and no section lists subcommands that no table of its package has.
func TestSubcommandsListed(t *testing.T) {
	rules := readImportRules(t, filepath.Join("..", "docs", "architecture.md"))
	tables := subcommandTables(t, "..")
	if len(tables) == 0 {
		t.Fatal("no map[string]cli.Command found in the module: the test no longer sees the commands' tables")
	}
	for _, pkg := range slices.Sorted(maps.Keys(tables)) {
		names, r := tables[pkg], rules[pkg]
		if r == nil || !r.subLine {
			t.Errorf("%s has subcommands %s, and its section in docs/architecture.md has no Subcommands line", pkg, strings.Join(names, ", "))
			continue
		}
		listed := slices.Sorted(slices.Values(r.subcommands))
		if !slices.Equal(listed, names) {
			t.Errorf("docs/architecture.md lists the subcommands of %s as %s; its table has %s", pkg, strings.Join(listed, ", "), strings.Join(names, ", "))
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(rules)) {
		if r := rules[pkg]; r.subLine && tables[pkg] == nil {
			t.Errorf("docs/architecture.md lists subcommands for %s, which has no subcommand table (map[string]cli.Command)", pkg)
		}
	}
}

// layoutRE is a row of README.md's layout table: its first cell's backticked names.
var layoutRE = regexp.MustCompile("^\\| (`[^|]+`) \\|")

// TestReadmeLayout checks that README.md's layout table names every package of the module
// (as `path` or `path/`, alone or among others in its first cell), so that a reader looking
// for where something lives finds every room.
func TestReadmeLayout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		m := layoutRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, n := range backtickRE.FindAllStringSubmatch(m[1], -1) {
			named[strings.TrimSuffix(n[1], "/")] = true
		}
	}
	rules := readImportRules(t, filepath.Join("..", "docs", "architecture.md"))
	if len(rules) < 10 {
		t.Fatalf("docs/architecture.md: only %d package sections found", len(rules))
	}
	// The architecture page's sections are the module's packages (TestImportRules holds them
	// to go list), so the README is checked against them without running go list again.
	for _, pkg := range slices.Sorted(maps.Keys(rules)) {
		if r := rules[pkg]; r.stated && !named[pkg] {
			t.Errorf("README.md's layout table does not name package %s: add it to a row (`%s/`, what it holds)", pkg, pkg)
		}
	}
}
