package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/edgelimit/edgelimit/internal/apply"
	"github.com/edgelimit/edgelimit/internal/config/awsdefault"
)

const applyUsage = `usage: edgelimit apply -f FILE --admin URL [--dry-run] [--prune]

Makes the admin API at URL hold the plans, tenants and keys of FILE (YAML, or JSON
when it ends in .json or starts with '{'; - reads stdin): limits kept as code. It
validates the whole file (a problem exits 2, naming the object and field, and writes
nothing), reads the server, prints one line per object to change
("+ tenant acme", "~ tenant acme: rules[0].limit 100 -> 200", "- tenant old") and a
summary, then writes them; --dry-run stops after the diff. Objects the file does not
name are left alone; --prune deletes them (a key is revoked). Each write carries the
ETag read before the diff, so a change made meanwhile by someone else stops apply
with a conflict (exit 1) naming the object: run it again. A second apply of the same
file writes nothing.

URL is the admin API's base: http://127.0.0.1:3000/admin for edgelimit dev (a plain
http URL without a path gets /admin), or the stack's AdminApiUrl (https), whose
requests are signed with SigV4 (execute-api) with the AWS SDK's default credentials.
Keys hold no secret, and must exist: the admin API draws a new key's id itself.
docs/reference.md, "Limits as code", describes the file.`

// runApply is `edgelimit apply`: flags and wiring; internal/apply does the work.
func runApply(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit apply", flag.ContinueOnError)
	file := fs.String("f", "", "the `FILE` of plans, tenants and keys, YAML or JSON; - for stdin (required)")
	admin := fs.String("admin", "", "the admin API's base `URL` (required)")
	dryRun := fs.Bool("dry-run", false, "print the diff and write nothing")
	prune := fs.Bool("prune", false, "delete the plans and tenants the file does not name, and revoke the keys of its tenants it does not list")
	if code := parseArgs(fs, applyUsage, args, stdout, stderr); code != proceed {
		return code
	}
	switch {
	case *file == "":
		return usageError(stderr, fs, applyUsage, "-f is required")
	case *admin == "":
		return usageError(stderr, fs, applyUsage, "--admin is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, code := adminClient(ctx, fs, applyUsage, *admin, stderr)
	if c == nil {
		return code
	}
	data, err := readInput(*file, stdin)
	if err != nil {
		return usageError(stderr, fs, applyUsage, "-f %q: %v", *file, err)
	}
	want, err := apply.Parse(*file, data)
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit apply: %s: %v\n", *file, err)
		return 2
	}
	if err := apply.Run(ctx, c, want, *prune, *dryRun, stdout); err != nil {
		fmt.Fprintf(stderr, "edgelimit apply: %v\n", err)
		return 1
	}
	return 0
}

// readInput reads the file name, or stdin for "-".
func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(stdin, apply.MaxFileBytes+1))
	}
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errors.New("no such file")
	}
	return data, err
}

// adminClient is the client of the admin API at base: nil and the exit code (2 for a
// bad URL, 1 when the AWS configuration does not load) when there is none.
func adminClient(ctx context.Context, fs *flag.FlagSet, text, base string, stderr io.Writer) (*apply.Client, int) {
	c, err := apply.NewClient(ctx, base, apply.Options{AWSConfig: awsdefault.Load})
	switch {
	case errors.Is(err, apply.ErrBaseURL):
		return nil, usageError(stderr, fs, text, "--admin %v", err)
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return nil, 1
	}
	return c, 0
}
