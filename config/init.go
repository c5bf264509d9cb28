package config

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Starter returns a starting ropgen.yaml for the module at root, filled in from what is
// there: the manifest directory (manifest/ or manifests/), the op packages (directories
// with a `//go:generate ... ropgen generate` line, else ops/), and the formulas package
// (perf/formulas/ or formulas/), with a comment on every key. What it cannot find it names
// with today's default and a note to create it.
func Starter(root string) []byte {
	var b strings.Builder
	exists := func(rel string) bool {
		st, err := os.Stat(filepath.Join(root, rel))
		return err == nil && st.IsDir()
	}
	first := func(def string, cands ...string) (string, bool) {
		for _, c := range cands {
			if exists(c) {
				return c, true
			}
		}
		return def, false
	}
	note := func(ok bool) string {
		if ok {
			return ""
		}
		return " (not there yet: create it)"
	}
	manifests, okM := first(DefaultManifests, "manifest", "manifests")
	pkgs := generatePackages(root)
	okP := len(pkgs) > 0
	if !okP {
		pkgs = []string{DefaultOps}
		okP = exists(DefaultOps)
	}
	formulas, okF := first("", DefaultFormulas, "formulas")

	b.WriteString("# yaml-language-server: $schema=ropgen.schema.json   (write it with: ropgen schema -config -o ropgen.schema.json)\n")
	b.WriteString("# ropgen.yaml: where ropgen finds this module's op catalog. Every ropgen command finds\n")
	b.WriteString("# this file from any subdirectory, as the go command finds go.mod; flags override it.\n")
	b.WriteString("# Paths are relative to this file. Reference: docs/using.md in github.com/ropgen/ropgen.\n\n")
	fmt.Fprintf(&b, "# Every manifest of the catalog (files or directories of *.yaml): validate and the\n# benchmark commands read these%s.\n", note(okM))
	fmt.Fprintf(&b, "manifests: [%s]\n\n", manifests)
	fmt.Fprintf(&b, "# The op packages `ropgen generate` writes EvalRoofline and ComputeRoof into, each with the\n# manifests whose implemented entries are its op types%s.\n", note(okP))
	b.WriteString("packages:\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "  - dir: %s\n    manifests: [%s]\n", p, manifests)
	}
	b.WriteString("\n# The package of func-mode roofline functions (roofline: {func: formulas.Name}).\n")
	if okF {
		fmt.Fprintf(&b, "formulas: %s\n", formulas)
	} else {
		b.WriteString("# None yet: every roofline is inline. Uncomment when you add one.\n# formulas: formulas\n")
	}
	b.WriteString("\n# dtypes beyond the builtin ones, with their storage size in bytes (elem_bytes).\n# dtypes:\n#   uint4x2: 1\n")
	return []byte(b.String())
}

// generatePackages returns the directories under root, relative and sorted, holding a Go
// file with a go:generate line that runs ropgen generate. It skips testdata, vendor,
// hidden directories and nested modules.
func generatePackages(root string) []string {
	var dirs []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || !hasGenerateLine(path) {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err == nil && !slices.Contains(dirs, filepath.ToSlash(rel)) {
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(dirs)
	return dirs
}

func hasGenerateLine(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "//go:generate ") && strings.Contains(line, "ropgen") && strings.Contains(line, " generate") {
			return true
		}
	}
	return false
}
