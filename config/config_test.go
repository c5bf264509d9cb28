package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/schema"
)

// tree makes the files (name -> content; a name ending in / is a directory) under a new
// temporary root and returns the root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, data := range files {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFindFromSubdirectory(t *testing.T) {
	root := tree(t, map[string]string{
		"go.mod":             "module example.com/k\n",
		"ropgen.yaml":        "manifests: specs\npackages:\n  - dir: kernels\n    manifests: [specs/a.yaml]\n  - dir: more\ndtypes: {uint4x2: 1}\n",
		"specs/a.yaml":       "",
		"kernels/k.go":       "package kernels\n",
		"more/deep/dir/x":    "",
		"formulas/f.go":      "package formulas\n",
		"perf/formulas/f.go": "package formulas\n",
	})
	c, err := Find(filepath.Join(root, "more", "deep", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	j := func(p ...string) string { return filepath.Join(append([]string{root}, p...)...) }
	if c.File != j(FileName) || c.Root != root || !slices.Equal(c.Manifests, []string{j("specs")}) {
		t.Errorf("file %s root %s manifests %v", c.File, c.Root, c.Manifests)
	}
	if len(c.Packages) != 2 || c.Packages[0].Dir != j("kernels") || !slices.Equal(c.Packages[0].Manifests, []string{j("specs", "a.yaml")}) ||
		c.Packages[1].Dir != j("more") || !slices.Equal(c.Packages[1].Manifests, c.Manifests) {
		t.Errorf("packages %+v", c.Packages)
	}
	// No formulas key: no formulas package, even though perf/formulas exists.
	if c.Formulas != "" || len(c.DTypes) != 1 || c.DTypes[0].Name != "uint4x2" || c.DTypes[0].Size != 1 {
		t.Errorf("formulas %q dtypes %+v", c.Formulas, c.DTypes)
	}
}

// TestDefaults: a go.mod without ropgen.yaml is today's layout; the nearest go.mod wins.
func TestDefaults(t *testing.T) {
	root := tree(t, map[string]string{
		"ropgen.yaml":        "this: is not read\n",
		"mod/go.mod":         "module example.com/k\n",
		"mod/ops/":           "",
		"mod/perf/formulas/": "",
	})
	c, err := Find(filepath.Join(root, "mod", "ops"))
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(root, "mod")
	if c.File != "" || c.Root != mod || c.Formulas != filepath.Join(mod, DefaultFormulas) ||
		len(c.Packages) != 1 || c.Packages[0].Dir != filepath.Join(mod, "ops") {
		t.Errorf("%+v", c)
	}
	if _, err := Find(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no ropgen.yaml or go.mod in") {
		// Only when no directory above the temp dir has a go.mod (it has none here).
		if _, statErr := os.Stat("/go.mod"); statErr != nil {
			t.Errorf("no root: %v", err)
		}
	}
}

// TestStrict: every mistake is reported at its line and column, all of them at once.
func TestStrict(t *testing.T) {
	root := tree(t, map[string]string{"manifest/": "", "ops/": "", "notadir": ""})
	src := `manifests: [manifest, manifest]
formulas: notadir
packages:
  - dir: ops
    manifest: x
  - {dir: nowhere}
  - dir: ops
  - manifests: manifest
dtypes:
  float32: 4
  uint4x2: 0
  Bad: 1
  u8: one
  u9: 1
  u9: 2
extra: 1
`
	_, fs := Parse(filepath.Join(root, FileName), []byte(src))
	var got []string
	for _, f := range fs {
		got = append(got, strings.TrimPrefix(f.String(), root+string(filepath.Separator)))
	}
	want := []string{
		`ropgen.yaml:1:23: manifests[1]: manifest is listed twice`,
		`ropgen.yaml:2:11: formulas: notadir is not a directory`,
		`ropgen.yaml:5:5: packages[0]: unknown key "manifest" (known: dir, manifests)`,
		`ropgen.yaml:6:11: packages[1].dir: nowhere: no such file or directory`,
		`ropgen.yaml:7:10: packages[2].dir: package ops is listed twice (first at line 4)`,
		`ropgen.yaml:8:5: packages[3]: missing required key "dir"`,
		`ropgen.yaml:10:3: dtypes.float32: float32 is a builtin dtype already`,
		`ropgen.yaml:11:12: dtypes.uint4x2: the size in bytes must be an integer in [1, 64], not "0"`,
		`ropgen.yaml:12:3: dtypes: dtype name "Bad" must be lower-case letters, digits and _, starting with a letter`,
		`ropgen.yaml:13:7: dtypes.u8: the size in bytes must be an integer in [1, 64], not "one"`,
		`ropgen.yaml:15:3: dtypes.u9: duplicate dtype "u9" (first at line 14)`,
		`ropgen.yaml:16:1: unknown key "extra" (known: manifests, packages, formulas, dtypes)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []string{"[1, 2]\n", "manifests: {a: b}\n", "packages: []\n", "", "a: [\n"} {
		if _, fs := Parse(filepath.Join(root, FileName), []byte(bad)); len(fs) == 0 || fs[0].Pos.Line == 0 && bad != "a: [\n" {
			t.Errorf("%q: findings %v, want one with a position", bad, fs)
		}
	}
}

// TestStarter: the starting config names what the module has and loads as written.
func TestStarter(t *testing.T) {
	root := tree(t, map[string]string{
		"go.mod":           "module example.com/k\n",
		"manifests/a.yaml": "",
		"kernels/gen.go":   "package kernels\n\n//go:generate go tool ropgen generate\n",
		"other/x.go":       "package other\n//go:generate stringer -type T\n",
		"testdata/t/t.go":  "//go:generate go tool ropgen generate\n",
	})
	data := Starter(root)
	for _, want := range []string{"manifests: [manifests]\n", "  - dir: kernels\n    manifests: [manifests]\n", "# formulas: formulas\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("starter lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "other") || strings.Contains(string(data), "testdata") {
		t.Errorf("starter names a package without a ropgen generate line:\n%s", data)
	}
	c, fs := Parse(filepath.Join(root, FileName), data)
	if len(fs) > 0 || len(c.Packages) != 1 || c.Packages[0].Dir != filepath.Join(root, "kernels") {
		t.Errorf("starter does not load: %v %+v", fs, c)
	}
}

// TestSchemaAgrees: the editor schema accepts what Parse accepts (the starter, ropgen's own
// ropgen.yaml) and refuses what it refuses by structure (an unknown key, a wrong type).
func TestSchemaAgrees(t *testing.T) {
	s, err := schema.Compile("ropgen.schema.json", SchemaJSON())
	if err != nil {
		t.Fatal(err)
	}
	own, err := os.ReadFile(filepath.Join("..", FileName))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, data []byte) int {
		t.Helper()
		root, fs := schema.ParseDocument(name, data, MaxFileBytes, FileName)
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		_, fs = s.Check(name, root)
		return len(fs)
	}
	for name, data := range map[string][]byte{
		"own":     own,
		"starter": Starter(tree(t, map[string]string{"manifest/a.yaml": "", "formulas/f.go": ""})),
		"full":    []byte("manifests: [a, b]\npackages:\n  - dir: k\n    manifests: m\nformulas: f\ndtypes: {uint4x2: 1}\n"),
	} {
		if n := check(name, data); n > 0 {
			t.Errorf("%s: %d schema findings for a valid config:\n%s", name, n, data)
		}
	}
	for _, bad := range []string{"formula: f\n", "packages: [{manifests: m}]\n", "dtypes: {Bad: 1}\n", "dtypes: {u8: 0}\n", "manifests: 3\n"} {
		if check("bad", []byte(bad)) == 0 {
			t.Errorf("the schema accepts %q, which Parse refuses", bad)
		}
	}
}
