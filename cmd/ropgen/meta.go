package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/output"
	"github.com/ropgen/ropgen/manifest"
)

// modulePath is ropgen's module path: how the version is found in the build information of
// a binary built as a tool of another module.
const modulePath = "github.com/ropgen/ropgen"

// runVersion is `ropgen version`: the module version this binary was built from.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen version", "", "Version prints the version of the ropgen module this binary was built from, the\nrevision when the build recorded one, and the Go version.", stdout, stderr)
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info))
	return 0
}

// versionLine describes the ropgen module in info: the main module when ropgen is built in
// its own tree or installed with go install, a dependency when built as another module's
// tool (go get -tool), with its replacement if any.
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return "ropgen (no build information) " + runtime.Version()
	}
	mod := &info.Main
	if mod.Path != modulePath {
		mod = nil
		for _, d := range info.Deps {
			if d.Path == modulePath {
				mod = d
			}
		}
	}
	if mod == nil {
		return "ropgen (unknown version) " + info.GoVersion
	}
	v := mod.Version
	if v == "" {
		v = "(devel)"
	}
	if mod.Replace != nil {
		v += " => " + mod.Replace.Path
		if mod.Replace.Version != "" && mod.Replace.Version != "(devel)" {
			v += " " + mod.Replace.Version
		}
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " rev " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return "ropgen " + v + " " + info.GoVersion
}

// runSchema is `ropgen schema`: the manifest JSON Schema embedded in this binary.
func runSchema(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen schema", "[-config] [-o FILE]", `
Schema prints the manifest JSON Schema this binary validates against, so that an editor's
modeline can point at a copy in any tree:

	ropgen schema -o manifest.schema.json
	# yaml-language-server: $schema=manifest.schema.json   (first line of a manifest)

With -config it prints the schema of ropgen.yaml instead.`, stdout, stderr)
	out := fl.String("o", "", "write the schema to `FILE` instead of standard output")
	ofConfig := fl.Bool("config", false, "the schema of ropgen.yaml, not of a manifest")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	data := manifest.SchemaJSON()
	if *ofConfig {
		data = config.SchemaJSON()
	}
	if *out == "" {
		if _, err := stdout.Write(data); err != nil {
			return fl.Errorf("%v", err)
		}
		return 0
	}
	if err := output.WriteFile(*out, data); err != nil {
		return fl.Errorf("%v", err)
	}
	return 0
}

// runInit is `ropgen init`: a starting ropgen.yaml at the module root.
func runInit(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropgen init", "[-print]", `
Init writes a starting `+config.FileName+` at the module root (the nearest directory above the
working directory holding go.mod), filled in from what the module has: its manifest
directory, the packages with a //go:generate line that runs ropgen generate (else ops/), and
a formulas package. It refuses to replace an existing `+config.FileName+`. It adds the history
database (`+historyIgnore+`, ropgen history) to the module's .gitignore.`, stdout, stderr)
	print := fl.Bool("print", false, "print the starting config to stdout instead of writing it")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	root, err := config.FindRoot(".")
	if err != nil {
		return fl.Fail("%v: run it inside a Go module", err)
	}
	data := config.Starter(root)
	if *print {
		stdout.Write(data)
		return 0
	}
	dest := filepath.Join(root, config.FileName)
	if _, err := os.Lstat(dest); err == nil {
		return fl.Errorf("%s exists already; edit it, or remove it first", config.Rel(dest))
	} else if !errors.Is(err, os.ErrNotExist) {
		return fl.Errorf("%v", err)
	}
	if err := output.WriteFile(dest, data); err != nil {
		return fl.Errorf("%v", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", config.Rel(dest))
	if err := ignoreHistory(root, stdout); err != nil {
		return fl.Errorf("%v", err)
	}
	if _, err := config.Find(root); err != nil {
		fmt.Fprintf(stderr, "ropgen init: note: %s does not load yet (create what it names):\n%v\n", config.Rel(dest), err)
	}
	return 0
}
