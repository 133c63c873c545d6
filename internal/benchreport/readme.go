package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The markers of README.md's figures block, which generate rewrites.
const (
	readmeStart = "<!-- benchmarks: `make bench` writes this block from its run; edit internal/benchreport -->"
	readmeEnd   = "<!-- /benchmarks -->"
)

// readmeBlock is README.md's figures: a few of the headline's, as the headline
// formats them, so that each is in docs/benchmarks.md (TestREADMEQuotesTheReport).
func (r *report) readmeBlock() string {
	get := func(suite, bench, unit string) string {
		if v, ok := r.runs[suite].median(bench, unit); ok {
			return figure(v, unit)
		}
		return "not measured"
	}
	ratio := func(prefix string) string { // of the headline row whose label starts with prefix
		i := slices.IndexFunc(headline, func(h row) bool { return strings.HasPrefix(h.what, prefix) })
		if v, _, ok := headline[i].figure(r); ok {
			return times(v)
		}
		return "not measured"
	}
	var b strings.Builder
	b.WriteString(readmeStart + "\n")
	fmt.Fprintf(&b, "From the last `make bench` ([docs/benchmarks.md](docs/benchmarks.md), every figure against its "+
		"peer in the same run, on a shared %d-core machine):\n\n", r.machine.cores)
	fmt.Fprintf(&b, "- the authorizer's warm invoke takes %s and %s, %s the hello-world authorizer's time;\n",
		get("authorizer", "BenchmarkInvokeWarm/edgelimit", nsPerOp), get("authorizer", "BenchmarkInvokeWarm/edgelimit", allocsPerOp), ratio("authorizer warm invoke"))
	fmt.Fprintf(&b, "- its cold start, built for one backend as the template deploys it: runtime init %s (DynamoDB) the "+
		"hello-world's that makes a DynamoDB client at init, %s (Upstash) and %s (Redis) the plain hello-world's, and "+
		"linux/arm64 bootstraps %s, %s and %s the plain one's size;\n",
		ratio("runtime init, DynamoDB"), ratio("runtime init, Upstash"), ratio("runtime init, Redis"),
		ratio("stripped linux/arm64 bootstrap, DynamoDB"), ratio("stripped linux/arm64 bootstrap, Upstash"),
		ratio("stripped linux/arm64 bootstrap, Redis"))
	fmt.Fprintf(&b, "- the Upstash store decides %s at one caller (%s @upstash/ratelimit's on the same server) and %s at 16 "+
		"with its pipelining on (%s);\n",
		get("upstash", "BenchmarkStoreDecide/callers=1", perSecond), ratio("Upstash store, 1 caller, decisions/s"),
		get("upstash", "BenchmarkStoreDecidePipelined/callers=16", perSecond), ratio("Upstash store, 16 callers, decisions/s, pipelining on"))
	fmt.Fprintf(&b, "- DynamoDB takes %s and %s per decision;\n",
		get("dynamodb", "BenchmarkDecide/callers=1", "requests/decision"), get("dynamodb", "BenchmarkDecide/callers=1", "write-units/decision"))
	if cs, ok := r.costs(); ok {
		fmt.Fprintf(&b, "- a million decisions cost %s on DynamoDB and %s on Upstash, Lambda's billed duration included "+
			"(at an assumed %d ms store round trip).\n", dollars(cs[dynamoDBRow].total()), dollars(cs[upstashRow].total()), assumedRoundTripMS)
	}
	b.WriteString(readmeEnd)
	return wrap(b.String(), 88)
}

// wrap folds each line of s longer than width at spaces, indenting a list item's
// continuation lines by two.
func wrap(s string, width int) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		indent := ""
		if strings.HasPrefix(line, "- ") {
			indent = "  "
		}
		for len(line) > width && !strings.HasPrefix(line, "<!--") {
			cut := strings.LastIndex(line[:width+1], " ")
			if cut <= len(indent) {
				break
			}
			out = append(out, line[:cut])
			line = indent + line[cut+1:]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// replaceBlock returns readme with its figures block replaced by block.
func replaceBlock(readme, block string) (string, error) {
	start := strings.Index(readme, readmeStart)
	end := strings.Index(readme, readmeEnd)
	if start < 0 || end < start {
		return "", errors.New("benchreport: README.md has no figures block (" + readmeStart + " ... " + readmeEnd + ")")
	}
	return readme[:start] + block + readme[end+len(readmeEnd):], nil
}
