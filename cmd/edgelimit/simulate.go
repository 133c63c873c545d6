package main

import "io"

func runSimulate(args []string, stdin io.Reader, stdout, stderr io.Writer) int { return 2 }
