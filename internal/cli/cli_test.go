package cli

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestDispatch(t *testing.T) {
	var got []string
	commands := map[string]Command{
		"run": {Summary: "run it", Run: func(args []string, stdout, _ io.Writer) int {
			got = args
			return 7
		}},
	}
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
		passed   []string
	}{
		{args: nil, code: 2, err: "usage: tool <command>"},
		{args: []string{"help"}, code: 0, out: "  run  run it"},
		{args: []string{"-h"}, code: 0, out: "Run 'tool <command> -h'"},
		{args: []string{"help", "run"}, code: 7, passed: []string{"-h"}},
		{args: []string{"help", "nope"}, code: 2, err: `tool help: unknown command "nope"`},
		{args: []string{"run", "-x", "y"}, code: 7, passed: []string{"-x", "y"}},
		{args: []string{"nope"}, code: 2, err: `tool: unknown command "nope"`},
	} {
		got = nil
		var stdout, stderr bytes.Buffer
		code := Dispatch("tool", commands, tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.err) ||
			strings.Join(got, " ") != strings.Join(tc.passed, " ") {
			t.Errorf("Dispatch(%q) = %d, stdout %q, stderr %q, passed %q", tc.args, code, stdout.String(), stderr.String(), got)
		}
	}
}

// TestFlags: -h prints synopsis, description and flags to stdout with exit 0; a bad flag
// prints the error and the synopsis to stderr with exit 2; Fail and NoArgs are bad usage.
func TestFlags(t *testing.T) {
	newFlags := func() (*Flags, *bytes.Buffer, *bytes.Buffer) {
		var stdout, stderr bytes.Buffer
		f := NewFlags("tool cmd", "[-v] FILE\n-list", "Cmd does a thing.", &stdout, &stderr)
		f.Bool("v", false, "be verbose")
		return f, &stdout, &stderr
	}
	f, stdout, stderr := newFlags()
	if code, ok := f.Parse([]string{"-h"}); ok || code != 0 || stderr.Len() != 0 ||
		stdout.String() != "usage: tool cmd [-v] FILE\n       tool cmd -list\n\nCmd does a thing.\n\nflags:\n  -v\tbe verbose\n" {
		t.Errorf("-h: %d %v, stdout %q, stderr %q", code, ok, stdout, stderr)
	}
	f, stdout, stderr = newFlags()
	if code, ok := f.Parse([]string{"-x"}); ok || code != 2 || stdout.Len() != 0 ||
		stderr.String() != "flag provided but not defined: -x\nusage: tool cmd [-v] FILE\n       tool cmd -list\nRun 'tool cmd -h' for details.\n" {
		t.Errorf("-x: %d %v, stdout %q, stderr %q", code, ok, stdout, stderr)
	}
	f, _, stderr = newFlags()
	if _, ok := f.Parse([]string{"-v", "a"}); !ok || !f.IsSet("v") || f.IsSet("h") {
		t.Errorf("-v a: ok %v, IsSet(v) %v", ok, f.IsSet("v"))
	}
	if code, ok := f.NoArgs(); ok || code != 2 || !strings.HasPrefix(stderr.String(), "tool cmd: unexpected arguments [\"a\"]\nusage: tool cmd") {
		t.Errorf("NoArgs: %d %v, stderr %q", code, ok, stderr)
	}
}

// TestWholeNumberFlags: an integer flag takes the notation the tools print limits in
// (plan.go writes "-max-flops 2e+09"), and refuses what is not a whole number that fits.
func TestWholeNumberFlags(t *testing.T) {
	for in, want := range map[string]int64{"3000000000": 3e9, "3e9": 3e9, "2e+09": 2e9, "1.5e6": 1500000, "0x10": 16, "-4": -4} {
		var errb bytes.Buffer
		f := NewFlags("tool run", "", "", io.Discard, &errb)
		n := f.Int64("max-flops", 7, "")
		c := f.Int("count", 1, "")
		if code, ok := f.Parse([]string{"-max-flops", in, "-count", in}); !ok {
			t.Errorf("%s: exit %d: %s", in, code, errb.String())
			continue
		}
		if *n != want || int64(*c) != want {
			t.Errorf("%s: -max-flops %d, -count %d; want %d", in, *n, *c, want)
		}
	}
	for _, in := range []string{"2.5", "1e30", "NaN", "Inf", "3x", ""} {
		var errb bytes.Buffer
		f := NewFlags("tool run", "", "", io.Discard, &errb)
		f.Int64("max-flops", 7, "")
		if code, ok := f.Parse([]string{"-max-flops", in}); ok || code != 2 || !strings.Contains(errb.String(), "-max-flops") {
			t.Errorf("%q: accepted (exit %d): %s", in, code, errb.String())
		}
	}
}

// TestParseClass: what the flag package does without a word, Parse does not (issue 23 items 6
// and 12): a flag after an argument is a flag, not a file; a flag given twice is refused (a
// List joins its values); a file flag given as an empty string is refused, not read as standard output;
// --version is the version command.
func TestParseClass(t *testing.T) {
	newFlags := func() (*Flags, *string, *string, *bool, *string, *bytes.Buffer) {
		var stderr bytes.Buffer
		fl := NewFlags("tool cmd", "[-profile NAME|FILE] [-o FILE] files...", "", io.Discard, &stderr)
		profile := fl.String("profile", "", "a `NAME|FILE`")
		out := fl.String("o", "", "write to `FILE`")
		v := fl.Bool("v", false, "verbose")
		set := fl.List("set", "`KEY=VALUE,...`")
		return fl, profile, out, v, set, &stderr
	}
	for _, c := range []struct {
		args    []string
		code    int
		files   []string
		profile string
		set     string
		err     string
	}{
		{args: []string{"out/chart.txt", "-profile", "out/host.yaml"}, files: []string{"out/chart.txt"}, profile: "out/host.yaml"},
		{args: []string{"a.txt", "-v", "b.txt", "-profile=p"}, files: []string{"a.txt", "b.txt"}, profile: "p"},
		{args: []string{"-v", "--", "-profile", "x"}, files: []string{"-profile", "x"}},
		{args: []string{"-", "-v"}, files: []string{"-"}},
		{args: []string{"-set", "M=64", "-set", "N=64", "-set", "K=64"}, set: "M=64,N=64,K=64"},
		{args: []string{"-profile", "a", "-profile", "b"}, code: 2, err: "tool cmd: -profile is given 2 times: give it once"},
		{args: []string{"x", "-v", "-v"}, code: 2, err: "-v is given 2 times"},
		{args: []string{"-o", "", "x"}, code: 2, err: "tool cmd: -o '': an empty file name; leave the flag out for its default"},
		{args: []string{"-profile="}, code: 2, err: "-profile '': an empty file name"},
	} {
		fl, profile, _, _, set, stderr := newFlags()
		code, ok := fl.Parse(c.args)
		if code != c.code || ok != (c.code == 0) || !strings.Contains(stderr.String(), c.err) {
			t.Errorf("%q: code %d, ok %t, stderr %q; want %d, %q", c.args, code, ok, stderr, c.code, c.err)
			continue
		}
		if ok && (!slices.Equal(fl.Args(), c.files) || *profile != c.profile || *set != c.set) {
			t.Errorf("%q: args %q, -profile %q, -set %q; want %q, %q, %q", c.args, fl.Args(), *profile, *set, c.files, c.profile, c.set)
		}
	}
	// The usage still prints every flag's default as before.
	var out bytes.Buffer
	fl, _, _, _, _, _ := newFlags()
	fl.PrintUsage(&out)
	if strings.Contains(out.String(), "panic") || !strings.Contains(out.String(), "-o FILE") {
		t.Errorf("usage:\n%s", out.String())
	}

	versions := 0
	commands := map[string]Command{"version": {Run: func([]string, io.Writer, io.Writer) int { versions++; return 0 }}}
	for _, a := range []string{"--version", "-version", "version"} {
		if code := Dispatch("tool", commands, []string{a}, io.Discard, io.Discard); code != 0 {
			t.Errorf("%s: exit %d", a, code)
		}
	}
	if versions != 3 {
		t.Errorf("the version command ran %d times of 3", versions)
	}
}
