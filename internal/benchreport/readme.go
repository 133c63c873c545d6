package main

import (
	"errors"
	"slices"
	"strings"
)

// The markers of README.md's figures block, which generate rewrites.
const (
	readmeStart = "<!-- benchmarks: `make bench` writes this block from its run; edit internal/benchreport -->"
	readmeEnd   = "<!-- /benchmarks -->"
)

// readmeBlock is README.md's figures, the "readme" template of prose.tmpl: a few of
// the headline's, as the headline formats them, so that each is in docs/benchmarks.md
// (TestREADMEQuotesTheReport).
func (r *report) readmeBlock() string {
	median := func(suite, bench, unit string) string {
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
	var costs []string // none when not computed
	if cs, ok := r.costs(); ok {
		costs = []string{dollars(cs[dynamoDBRow].total()), dollars(cs[upstashRow].total())}
	}
	var b strings.Builder
	if err := prose.ExecuteTemplate(&b, "readme", map[string]any{"cores": r.machine.cores, "median": median,
		"ratio": ratio, "costs": costs, "roundTripMS": assumedRoundTripMS}); err != nil {
		panic(err) // the template quotes a figure the report does not have: a bug here, as template.Must treats one
	}
	return wrap(readmeStart+"\n"+b.String()+readmeEnd, 88)
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
