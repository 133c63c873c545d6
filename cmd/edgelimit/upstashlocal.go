package main

import (
	"fmt"
	"io"
)

// runUpstashLocal is a placeholder until the local Upstash server lands.
func runUpstashLocal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "edgelimit upstash-local: not built yet")
	return 2
}
