package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	root := flag.String("root", ".", "the repository's root folder")
	count := flag.Int("count", 0, "-count for every suite (0: each suite's own)")
	flag.Parse()
	if err := generate(*root, *count, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
