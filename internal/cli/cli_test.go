package cli

import (
	"bytes"
	"io"
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
