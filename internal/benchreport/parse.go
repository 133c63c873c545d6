package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// run is one `go test -bench` run: its header and its benchmarks' metrics.
type run struct {
	goos, goarch, cpu, pkg string
	benchmarks             map[string]map[string][]float64 // name -> unit -> one value per -count
}

// parse reads go test's benchmark output with benchfmt: the goos, goarch, cpu and pkg
// configuration, and each benchmark's values by name (its -GOMAXPROCS suffix dropped)
// and unit, as go test printed them (benchfmt's tidied units set aside). A benchmark
// line benchfmt cannot read (one that failed or logged) is skipped.
func parse(r io.Reader) (run, error) {
	out := run{benchmarks: map[string]map[string][]float64{}}
	br := benchfmt.NewReader(r, "go test")
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // a *benchfmt.SyntaxError: no figures on this line
		}
		if out.goos == "" {
			out.goos, out.goarch = res.GetConfig("goos"), res.GetConfig("goarch")
			out.cpu, out.pkg = res.GetConfig("cpu"), res.GetConfig("pkg")
		}
		out.add(res)
	}
	if err := br.Err(); err != nil {
		return run{}, fmt.Errorf("benchreport: %w", err)
	}
	return out, nil
}

// add records res's values under its name without the -GOMAXPROCS part.
func (r *run) add(res *benchfmt.Result) {
	base, parts := res.Name.Parts()
	name := "Benchmark" + string(base)
	for _, p := range parts {
		if !strings.HasPrefix(string(p), "-") {
			name += string(p)
		}
	}
	m := r.benchmarks[name]
	if m == nil {
		m = map[string][]float64{}
		r.benchmarks[name] = m
	}
	for _, v := range res.Values {
		unit, value := v.Unit, v.Value
		if v.OrigUnit != "" {
			unit, value = v.OrigUnit, v.OrigValue
		}
		m[unit] = append(m[unit], value)
	}
}

// median returns the median (benchmath's, assuming nothing of the distribution) of
// benchmark name's unit, and whether it was measured.
func (r run) median(name, unit string) (float64, bool) {
	v := r.benchmarks[name][unit]
	if len(v) == 0 {
		return 0, false
	}
	s := benchmath.NewSample(slices.Clone(v), &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, 0.95).Center, true
}

// names returns the benchmarks of r in order.
func (r run) names() []string { return slices.Sorted(maps.Keys(r.benchmarks)) }

// cell is name's median of unit for a suite's table, or "-": when it was not measured,
// for a time of 0 (a benchmark that reports only metrics of its own), and for the
// allocations and bytes of a node peer (JS), which are not Go's.
func (r run) cell(name, unit string) string {
	v, ok := r.median(name, unit)
	switch {
	case !ok, unit == nsPerOp && v == 0, unit != nsPerOp && strings.Contains(name, "JS"):
		return "-"
	}
	return figure(v, unit)
}
