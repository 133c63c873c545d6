// Command edgelimit is the edgelimit command-line tool: it replays traffic through
// the limiter (simulate), runs local services for development, and keeps an admin
// API's limits as a file says (apply, export).
//
// Every command and subcommand prints its usage to stdout and exits 0 when asked for
// help (-h, --help, a lone "help", or `edgelimit help COMMAND [SUBCOMMAND]`); a bad flag
// or argument names the problem on stderr, with the usage, and exits 2. `edgelimit
// --version` is `edgelimit version`.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// command is one subcommand: it reads args (without the subcommand's name) and
// returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// subcommands are the words that `edgelimit help COMMAND SUBCOMMAND` accepts.
	subcommands []string
}

// commands lists every subcommand; each lives in its own file.
var commands = map[string]command{
	"apply":         {"apply a file of plans, tenants and keys to the admin API (--dry-run: the diff)", runApply, nil},
	"dev":           {"run the authorizer and admin API locally, as API Gateway would", runDev, nil},
	"export":        {"write the admin API's plans, tenants and keys as a file for apply", runExport, nil},
	"keys":          {"make and hash API keys for a tenants file", runKeys, []string{"new", "hash"}},
	"simulate":      {"replay a trace of requests through a rule set", runSimulate, nil},
	"upstash-local": {"serve the Upstash REST API in front of a Redis server", runUpstashLocal, nil},
	"version":       {"print the version of this binary (also: edgelimit --version)", runVersion, nil},
}

// commandOrder is the order usage lists the commands in.
var commandOrder = []string{"dev", "simulate", "keys", "apply", "export", "upstash-local", "version"}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return topLevelError(stderr, "missing command")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "-version", "--version":
		return runVersion(rest, stdin, stdout, stderr)
	case "help":
		return runHelp(rest, stdin, stdout, stderr)
	}
	cmd, ok := commands[name]
	if !ok {
		return topLevelError(stderr, fmt.Sprintf("unknown command %q", name))
	}
	return cmd.run(rest, stdin, stdout, stderr)
}

// runHelp is `edgelimit help [COMMAND [SUBCOMMAND]]`: the usage of the top level, of a
// command, or of one of its subcommands (`edgelimit help keys new`).
func runHelp(words []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(words) == 0 {
		usage(stdout)
		return 0
	}
	cmd, ok := commands[words[0]]
	switch {
	case !ok:
		return topLevelError(stderr, fmt.Sprintf("unknown command %q", words[0]))
	case len(words) > 2 || len(words) == 2 && !slices.Contains(cmd.subcommands, words[1]):
		return topLevelError(stderr, fmt.Sprintf("help: unexpected argument %q", words[len(words)-1]))
	}
	return cmd.run(append(slices.Clone(words[1:]), "--help"), stdin, stdout, stderr)
}

// topLevelError names the problem and prints the usage on stderr: exit code 2.
func topLevelError(stderr io.Writer, problem string) int {
	fmt.Fprintf(stderr, "edgelimit: %s\n\n", problem)
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: edgelimit COMMAND [flags]\n\ncommands:\n")
	for _, name := range commandOrder {
		fmt.Fprintf(w, "  %-14s %s\n", name, commands[name].summary)
	}
	fmt.Fprint(w, "\n`edgelimit COMMAND --help` (or `edgelimit help COMMAND`) describes one;\n`edgelimit --version` prints the version.\n")
}
