// Package cli dispatches a command line to subcommands, the same way for every command of
// this module: `tool <command> [flags]`, `tool help [command]`, exit 2 for bad usage.
package cli

import (
	"fmt"
	"io"
	"sort"
)

// Command is one subcommand: Run parses its own flags from args and returns the exit code:
// 0 clean, 1 findings or failures, 2 bad usage.
type Command struct {
	Summary string
	Run     func(args []string, stdout, stderr io.Writer) int
}

// Dispatch runs the subcommand args[0] of tool. With no arguments it prints the usage and
// returns 2; "help", "-h" and "--help" print it (or, followed by a command, its flags).
func Dispatch(tool string, commands map[string]Command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.Run([]string{"-h"}, stdout, stderr)
			}
		}
		usage(stdout, tool, commands)
		if len(args) == 0 {
			return 2
		}
		return 0
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
