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
		{args: nil, code: 2, out: "usage: tool <command>"},
		{args: []string{"help"}, code: 0, out: "  run  run it"},
		{args: []string{"-h"}, code: 0, out: "Run 'tool <command> -h'"},
		{args: []string{"help", "run"}, code: 7, passed: []string{"-h"}},
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
