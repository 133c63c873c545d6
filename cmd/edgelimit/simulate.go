package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/edgelimit/edgelimit/internal/simulate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

const simulateUsage = `usage: edgelimit simulate [--plan JSON] --rule JSON [--rule JSON ...] [--timezone ZONE] --trace FILE|-

Replays one tenant's traffic through a rule set, each rule in its scope: tenant
(the default) counts every line together, key each KEY, ip each ADDR. A trace
line is TIME[,KEY[,COST[,ADDR]]]: TIME in decimal seconds since the Unix epoch
or RFC 3339. With --plan (a plan's JSON, as PUT /plans/{id} takes it), the
plan's tenant-wide rules come first and each --rule adds to them or replaces the
plan's rule of its name, as a tenant's rules do; --rule is then optional.
Prints one JSON object per request, then "allowed N of M". Input errors print
"line N: reason" to stderr and exit 2 with nothing on stdout.`

// runSimulate is `edgelimit simulate`: flags and files only; internal/simulate does the work.
func runSimulate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit simulate", flag.ContinueOnError)
	var rules []string
	fs.Func("rule", "a rule as `JSON` (repeatable; several form one rule set)", func(s string) error {
		rules = append(rules, s)
		return nil
	})
	plan := fs.String("plan", "", "a plan as `JSON` whose rules the --rule flags add to")
	zoneName := fs.String("timezone", "UTC", "IANA time `zone` for calendar periods")
	tracePath := fs.String("trace", "", "trace `file`, or - for stdin (required)")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, format+"\n", a...)
		return 2
	}
	if code := parseArgs(fs, simulateUsage, args, stdout, stderr); code != proceed {
		return code
	}
	switch {
	case len(rules) == 0 && *plan == "":
		return usageError(stderr, fs, simulateUsage, "--rule is required (at least one rule, as JSON)")
	case *tracePath == "":
		return usageError(stderr, fs, simulateUsage, "--trace is required (a trace file, or - for stdin)")
	}
	set, err := buildSet(*plan, rules, *zoneName)
	if err != nil {
		return usageError(stderr, fs, simulateUsage, "%v", err)
	}
	in, err := openTrace(*tracePath, stdin)
	if err != nil {
		return usageError(stderr, fs, simulateUsage, "--trace %q: %v", *tracePath, err)
	}
	defer in.Close()
	reqs, err := simulate.ParseTrace(in, set)
	if err != nil {
		return fail("%v", err)
	}
	if err := simulate.Run(set, reqs, stdout); err != nil {
		return fail("edgelimit simulate: %v", err)
	}
	return 0
}

func buildSet(plan string, rules []string, zoneName string) (*limiter.Set, error) {
	loc, err := tenant.LoadLocation(zoneName)
	if err != nil { // LoadLocation refuses "" and "Local" too
		return nil, fmt.Errorf("--timezone %q: not an IANA time zone such as \"Europe/London\"", zoneName)
	}
	return simulate.ParseRules(plan, rules, loc)
}

// openTrace opens the trace file path, or stdin for "-".
func openTrace(path string, stdin io.Reader) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(stdin), nil
	}
	f, err := os.Open(path)
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		err = pe.Err // the flag names the path
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}
