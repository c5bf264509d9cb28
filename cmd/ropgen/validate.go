package main

import (
	"fmt"
	"io"
)

func runValidate(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "ropgen validate: not implemented yet")
	return 2
}
