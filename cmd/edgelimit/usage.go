package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// proceed is what parseArgs and parseFlags return when the command should go on.
const proceed = -1

// parseArgs parses args into fs, as parseFlags does, and refuses any argument left
// after the flags with a usage error.
func parseArgs(fs *flag.FlagSet, text string, args []string, stdout, stderr io.Writer) int {
	if code := parseFlags(fs, text, args, stdout, stderr); code != proceed {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fs, text, "unexpected argument %q", fs.Arg(0))
	}
	return proceed
}

// parseFlags parses args into fs, whose name is the command's ("edgelimit dev"). A
// lone "help", or -h / --help among the flags, prints the usage to stdout: 0. A bad
// flag names the problem and prints the usage to stderr: 2. Otherwise it returns
// proceed.
func parseFlags(fs *flag.FlagSet, text string, args []string, stdout, stderr io.Writer) int {
	fs.SetOutput(io.Discard)
	if len(args) == 1 && args[0] == "help" {
		fmt.Fprint(stdout, usageOf(fs, text))
		return 0
	}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usageOf(fs, text))
		return 0
	case err != nil:
		return usageError(stderr, fs, text, "%v", err)
	}
	return proceed
}

// usageError names the problem and prints the usage, on stderr; it returns 2, the exit
// code of a usage error.
func usageError(stderr io.Writer, fs *flag.FlagSet, text, format string, a ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n\n%s", fs.Name(), fmt.Sprintf(format, a...), usageOf(fs, text))
	return 2
}

// usageOf is the command's text followed by its flags, if it has any.
func usageOf(fs *flag.FlagSet, text string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(text, "\n") + "\n")
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		b.WriteString("\nflags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return b.String()
}
