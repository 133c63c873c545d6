package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/edgelimit/edgelimit/internal/apply"
)

const exportUsage = `usage: edgelimit export --admin URL [-o FILE] [--format yaml|json]

Writes the plans, tenants and keys of the admin API at URL (as edgelimit apply takes
them, YAML by default) to stdout, or to FILE (JSON when FILE ends in .json). Applying
the export changes nothing. Keys are listed by id with their tenant and status, never
a secret. URL is as for edgelimit apply (http://127.0.0.1:3000/admin for edgelimit dev,
or the stack's AdminApiUrl, signed with SigV4).`

// runExport is `edgelimit export`: flags and wiring; internal/apply does the work.
func runExport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit export", flag.ContinueOnError)
	admin := fs.String("admin", "", "the admin API's base `URL` (required)")
	out := fs.String("o", "", "the `FILE` to write (default: stdout)")
	format := fs.String("format", "", "the output `FORMAT`: yaml or json (default: json for an -o FILE ending in .json, else yaml)")
	if code := parseArgs(fs, exportUsage, args, stdout, stderr); code != proceed {
		return code
	}
	if *admin == "" {
		return usageError(stderr, fs, exportUsage, "--admin is required")
	}
	if *format == "" && strings.EqualFold(filepath.Ext(*out), ".json") {
		*format = "json"
	}
	if *format != "" && *format != "yaml" && *format != "json" {
		return usageError(stderr, fs, exportUsage, "--format %q: want yaml or json", *format)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, code := adminClient(ctx, fs, exportUsage, *admin, stderr)
	if c == nil {
		return code
	}
	data, err := apply.Export(ctx, c, *format == "json")
	if err == nil && *out != "" {
		err = os.WriteFile(*out, data, 0o644)
	} else if err == nil {
		_, err = stdout.Write(data)
	}
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit export: %v\n", err)
		return 1
	}
	return 0
}
