// Package cli is the command-line plumbing every command of this module shares: dispatch to
// subcommands (`tool <command> [flags]`, `tool help [command]`), one flag-set and usage
// helper (a synopsis, a description and the flags; -h prints them to stdout and exits 0, a
// bad flag or argument prints the synopsis to stderr and exits 2), and finding the module's
// configuration from any subdirectory.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ropgen/ropgen/config"
	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/manifest"
)

// Command is one subcommand: Run parses its own flags from args (with NewFlags) and returns
// the exit code: 0 clean, 1 findings or failures, 2 bad usage.
type Command struct {
	Summary string
	Run     func(args []string, stdout, stderr io.Writer) int
}

// Dispatch runs the subcommand args[0] of tool. With no arguments it prints the usage and
// returns 2; "help", "-h" and "--help" print it to stdout (or, followed by a command, that
// command's usage) and return 0.
func Dispatch(tool string, commands map[string]Command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.Run([]string{"-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "%s help: unknown command %q\n", tool, args[1])
			usage(stderr, tool, commands)
			return 2
		}
		if len(args) == 0 {
			usage(stderr, tool, commands)
			return 2
		}
		usage(stdout, tool, commands)
		return 0
	}
	if (args[0] == "-version" || args[0] == "--version") && len(args) == 1 {
		if c, ok := commands["version"]; ok { // what every other tool answers to
			return c.Run(nil, stdout, stderr)
		}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n", tool, args[0])
		usage(stderr, tool, commands)
		return 2
	}
	return c.Run(args[1:], stdout, stderr)
}

func usage(w io.Writer, tool string, commands map[string]Command) {
	fmt.Fprintf(w, "usage: %s <command> [flags] [args]\n\ncommands:\n", tool)
	names := make([]string, 0, len(commands))
	width := 0
	for name := range commands {
		names = append(names, name)
		width = max(width, len(name))
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, name, commands[name].Summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> -h' for a command's flags.\n", tool)
}

// Flags is the flag set of one command or subcommand, with what its usage says.
type Flags struct {
	*flag.FlagSet
	name       string
	synopses   []string
	doc        string
	stdout     io.Writer
	stderr     io.Writer
	repeatable map[string]bool // flags that may be given more than once (List)
}

// NewFlags returns the flag set of the command name ("ropgen validate"). synopsis is the
// usage line after the name ("[-json] [-v] [paths...]"); several lines are several forms.
// doc is the description printed by -h between the synopsis and the flags.
func NewFlags(name, synopsis, doc string, stdout, stderr io.Writer) *Flags {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	f := &Flags{FlagSet: fl, name: name, synopses: strings.Split(synopsis, "\n"), doc: strings.TrimSpace(doc), stdout: stdout, stderr: stderr}
	// The flag package prints a parse error, then calls Usage; Parse prints the rest.
	fl.Usage = func() {}
	return f
}

// Name is the command's name, as its messages start.
func (f *Flags) Name() string { return f.FlagSet.Name() }

// Parse parses args. When ok is false the command returns code at once: 0 after -h (the
// full usage is on stdout), 2 after a bad flag (the error and the synopsis are on stderr).
//
// Flags may follow the arguments (`report out.txt -profile host.yaml`: the flag package alone
// would read -profile as a file); after "--" everything is an argument. A flag given twice is
// refused, since the flag package keeps the last silently, unless it is a List; and a file
// flag (its usage names a FILE) given as "" is refused, since it would mean its default.
func (f *Flags) Parse(args []string) (code int, ok bool) {
	counts := map[string]int{}
	values := map[*flag.Flag]flag.Value{}
	f.VisitAll(func(fl *flag.Flag) {
		values[fl] = fl.Value
		fl.Value = &counted{Value: fl.Value, n: counts, name: fl.Name}
	})
	var positional []string
	var err error
	for {
		if err = f.FlagSet.Parse(args); err != nil {
			break
		}
		rest := f.FlagSet.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
	for fl, v := range values {
		fl.Value = v
	}
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		f.PrintUsage(f.stdout)
		return 0, false
	default:
		f.shortUsage()
		return 2, false
	}
	f.FlagSet.Parse(append([]string{"--"}, positional...)) // what Args returns
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		if counts[name] > 1 && !f.repeatable[name] {
			return f.Fail("-%s is given %d times: give it once (the flag package would keep the last without a word)", name, counts[name]), false
		}
	}
	var empty []string
	f.Visit(func(fl *flag.Flag) {
		if what, _ := flag.UnquoteUsage(fl); strings.Contains(what, "FILE") && fl.Value.String() == "" {
			empty = append(empty, fl.Name)
		}
	})
	if len(empty) > 0 {
		return f.Fail("-%s '': an empty file name; leave the flag out for its default", empty[0]), false
	}
	return 0, true
}

// counted is a flag's value during Parse, counting how often the flag is set.
type counted struct {
	flag.Value
	n    map[string]int
	name string
}

func (c *counted) Set(s string) error { c.n[c.name]++; return c.Value.Set(s) }

// IsBoolFlag keeps a boolean flag boolean for the flag package.
func (c *counted) IsBoolFlag() bool {
	b, ok := c.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// List defines a string flag that may be given more than once: its value is every value
// given, joined by commas, so that `-set M=64 -set N=64` is `-set M=64,N=64`.
func (f *Flags) List(name, usage string) *string {
	if f.repeatable == nil {
		f.repeatable = map[string]bool{}
	}
	f.repeatable[name] = true
	v := new(joined)
	f.Var(v, name, usage+" (repeatable: the values join with commas)")
	return &v.s
}

// joined is a List flag's value.
type joined struct{ s string }

func (j *joined) String() string { return j.s }
func (j *joined) Set(v string) error {
	if j.s != "" {
		v = j.s + "," + v
	}
	j.s = v
	return nil
}

// PrintUsage writes the synopsis, the description and the flags to w.
func (f *Flags) PrintUsage(w io.Writer) {
	f.printSynopsis(w)
	if f.doc != "" {
		fmt.Fprintf(w, "\n%s\n", f.doc)
	}
	n := 0
	f.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		out := f.Output()
		f.SetOutput(w)
		f.PrintDefaults()
		f.SetOutput(out)
	}
}

func (f *Flags) printSynopsis(w io.Writer) {
	for i, s := range f.synopses {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		fmt.Fprintf(w, "%s%s %s\n", lead, f.name, s)
	}
}

func (f *Flags) shortUsage() {
	f.printSynopsis(f.stderr)
	fmt.Fprintf(f.stderr, "Run '%s -h' for details.\n", f.name)
}

// Fail reports bad usage: "name: message" and the synopsis on stderr. It returns 2, the
// exit code of bad usage.
func (f *Flags) Fail(format string, args ...any) int {
	fmt.Fprintf(f.stderr, "%s: %s\n", f.name, fmt.Sprintf(format, args...))
	f.shortUsage()
	return 2
}

// Errorf reports a failure that is not bad usage: "name: message" on stderr. It returns 1.
func (f *Flags) Errorf(format string, args ...any) int {
	fmt.Fprintf(f.stderr, "%s: %s\n", f.name, fmt.Sprintf(format, args...))
	return 1
}

// NoArgs fails (returning 2, ok false) when arguments follow the flags.
func (f *Flags) NoArgs() (code int, ok bool) {
	if f.NArg() > 0 {
		return f.Fail("unexpected arguments %q", f.Args()), false
	}
	return 0, true
}

// IsSet reports whether the flag named name was given on the command line.
func (f *Flags) IsSet(name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// Config finds the module's configuration from the working directory up (config.Load).
// When ok is false the command returns code: 1 for a ropgen.yaml with findings (printed one
// a line), 2 when there is no module root above the working directory. A command given all
// its paths passes required false: then no root is no error, and cfg is nil.
func (f *Flags) Config(required bool) (cfg *config.Config, code int, ok bool) {
	cfg, err := config.Load()
	var fs diag.Findings
	var none *config.NoRootError
	switch {
	case err == nil:
		if err := UseDTypes(cfg); err != nil {
			fmt.Fprintf(f.stderr, "%s: %v\n", f.name, err)
			return nil, 1, false
		}
		return cfg, 0, true
	case !required && errors.As(err, &none):
		UseDTypes(nil) // the builtin dtypes alone
		return nil, 0, true
	case errors.As(err, &fs):
		for _, x := range fs {
			fmt.Fprintln(f.stderr, x)
		}
		return nil, 1, false
	}
	fmt.Fprintf(f.stderr, "%s: %v\n", f.name, err)
	return nil, 2, false
}

// UseDTypes makes the dtypes of cfg (ropgen.yaml's dtypes; none for a nil cfg) the module's
// dtypes of the manifest model (manifest.SetDTypes), so that its manifests may name them:
// every command that loads a catalog calls it first.
func UseDTypes(cfg *config.Config) error {
	if cfg == nil {
		return manifest.SetDTypes()
	}
	specs := make([]manifest.DTypeSpec, len(cfg.DTypes))
	for i, d := range cfg.DTypes {
		specs[i] = manifest.DTypeSpec{Name: d.Name, Size: d.Size}
	}
	if err := manifest.SetDTypes(specs...); err != nil {
		return fmt.Errorf("%s: dtypes: %w", cfg.File, err)
	}
	return nil
}

// ManifestsFlag defines the one manifest flag of every command: -manifests PATH[,PATH...],
// files or directories of *.yaml. Its default is the configuration's (ropgen.yaml
// manifests, or manifest/ at the module root).
func (f *Flags) ManifestsFlag() *string {
	return f.String("manifests", "", "manifest `PATHS`: comma-separated files or directories of *.yaml (default: ropgen.yaml's manifests, or manifest/ at the module root)")
}

// Manifests returns the paths of a -manifests value, or the configuration's, relative to
// the working directory where that is shorter so that findings name files as a user does.
func Manifests(flag string, cfg *config.Config) []string {
	if flag != "" {
		return SplitList(flag)
	}
	return config.RelAll(cfg.Manifests)
}

// SplitList splits a comma-separated flag value, dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
