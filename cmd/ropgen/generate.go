package main

import (
	"fmt"
	"io"
)

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "ropgen generate: not implemented yet")
	return 2
}
