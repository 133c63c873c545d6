package main

import (
	"embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
)

// machine is what the report says of the machine it ran on.
type machine struct {
	cpu, goos, goarch, goVersion string
	cores                        int
	loadBefore, loadAfter        string // /proc/loadavg's first three fields
	date                         string
	minutes                      float64 // how long the runs took
}

// sizes are the stripped linux/arm64 bootstraps, in bytes: each backend's authorizer
// (by backend name) and the hello-world's.
type sizes struct {
	authorizer map[string]int64
	hello      int64
}

// report is one `make bench`: the machine, each suite's run, the bootstrap sizes.
type report struct {
	machine machine
	runs    map[string]run
	sizes   sizes
}

// markdown renders docs/benchmarks.md.
func (r *report) markdown() string {
	var b strings.Builder
	m := r.machine // into a strings.Builder, every key set: the template cannot fail
	prose.ExecuteTemplate(&b, "head", map[string]any{"date": m.date, "cpu": m.cpu, "cores": m.cores, "goos": m.goos,
		"goarch": m.goarch, "goVersion": m.goVersion, "loadBefore": m.loadBefore, "loadAfter": m.loadAfter, "minutes": m.minutes})
	for _, h := range headline {
		shown, verdict := r.outcome(h)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", h.what, orDash(h.peer), shown, orDash(h.goal), verdict)
	}
	b.WriteString("\n![Upstash decisions/s by callers](bench-upstash.svg)\n")
	for _, s := range suites {
		r.suiteSection(&b, s)
	}
	r.costSection(&b)
	return b.String()
}

// outcome is a headline row's figure ("not measured" when it has none) and whether it
// meets its goal ("" for a row without a goal or without a figure).
func (r *report) outcome(h row) (shown, verdict string) {
	v, shown, ok := h.figure(r)
	switch {
	case !ok:
		return "not measured", ""
	case h.met == nil:
		return shown, ""
	case h.met(v):
		return shown, "met"
	}
	return shown, "**not met**"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// suiteSection writes a suite's table: every benchmark of its run, every unit.
func (r *report) suiteSection(b *strings.Builder, s suite) {
	fmt.Fprintf(b, "\n## %s\n\n", s.title)
	fmt.Fprintf(b, "```sh\ngo test %s -run '^$' -bench '%s' -benchmem -benchtime %s -count %d\n```\n\n", s.pkg, s.bench, s.benchtime, s.count)
	run := r.runs[s.name]
	b.WriteString("| benchmark | time/op | allocs/op | bytes/op | other |\n|---|---|---|---|---|\n")
	for _, name := range run.names() {
		var other []string
		for _, unit := range slices.Sorted(maps.Keys(run.benchmarks[name])) {
			if unit != nsPerOp && unit != allocsPerOp && unit != bytesPerOp {
				v, _ := run.median(name, unit)
				other = append(other, trim(v)+" "+unit)
			}
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", name, run.cell(name, nsPerOp), run.cell(name, allocsPerOp),
			run.cell(name, bytesPerOp), orDash(strings.Join(other, ", ")))
	}
	if note := prose.Lookup(s.name); note != nil {
		b.WriteString("\n")
		note.Execute(b, nil) // text alone, into a strings.Builder: it cannot fail
		b.WriteString("\n")
	}
}

// prose is the report's prose, the templates of prose.tmpl: under a suite's table
// what its figures mean (one template by suite name), and the cost section's.
var prose = template.Must(template.New("").Option("missingkey=error").ParseFS(proseFile, "prose.tmpl"))

//go:embed prose.tmpl
var proseFile embed.FS
