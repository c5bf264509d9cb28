// Package vcs says which source revision a run of benchmark records was measured at, by one
// rule for every command that stores or shows it (ropgen report's page, ropgen history's
// runs): the records' own "commit: REV" configuration line, as the Go benchmark format
// allows, else the working tree's HEAD and whether tracked files changed, else the revision
// the running binary was built from.
package vcs

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"

	"github.com/ropgen/ropgen/perf/record"
)

// Where a Commit was found.
const (
	FromRecords = "records"      // a commit: configuration line of the records
	FromTree    = "working tree" // git, in the working directory, when the command ran
	FromBuild   = "build"        // the revision go build stamped into this binary
)

// Commit is the revision a run was measured at: Rev ("" when nothing says), Dirty when
// tracked files differed from it, and From, where it was found.
type Commit struct {
	Rev   string
	Dirty bool
	From  string
}

// Of returns the commit of the run whose records are files; never an error (a revision
// nothing names is the zero Commit).
func Of(files []string) Commit {
	for _, f := range files {
		if c := fileConfig(f, "commit"); c != "" {
			return Commit{Rev: c, From: FromRecords}
		}
	}
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		status, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
		return Commit{Rev: strings.TrimSpace(string(out)), Dirty: err == nil && len(strings.TrimSpace(string(status))) > 0, From: FromTree}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		c := Commit{From: FromBuild}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				c.Rev = s.Value
			case "vcs.modified":
				c.Dirty = s.Value == "true"
			}
		}
		if c.Rev != "" {
			return c
		}
	}
	return Commit{}
}

// fileConfig is the value of the first "key: value" configuration line of a benchmark
// format file (record.ConfigValue), or "".
func fileConfig(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	return record.ConfigValue(f, key)
}
