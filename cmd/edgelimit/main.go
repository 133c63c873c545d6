// Command edgelimit is the edgelimit command-line tool: it replays traffic through
// the limiter (simulate) and runs local services for development.
package main

import (
	"fmt"
	"io"
	"os"
	_ "time/tzdata" // calendar rules need zoneinfo wherever the binary runs
)

// command is one subcommand: it reads args (without the subcommand's name) and
// returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists every subcommand; each lives in its own file.
var commands = map[string]command{
	"dev":           {"run the authorizer and admin API locally, as API Gateway would", runDev},
	"keys":          {"manage API keys for a tenants file", runKeys},
	"simulate":      {"replay a trace of requests through a rule set", runSimulate},
	"upstash-local": {"serve the Upstash REST API in front of a Redis server", runUpstashLocal},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		return 2
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "edgelimit: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: edgelimit COMMAND [flags]\n\ncommands:")
	for _, name := range []string{"dev", "keys", "simulate", "upstash-local"} {
		fmt.Fprintf(w, "  %-14s %s\n", name, commands[name].summary)
	}
}
