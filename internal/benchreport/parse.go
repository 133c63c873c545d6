package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// run is one `go test -bench` run: its header and its benchmarks' metrics.
type run struct {
	goos, goarch, cpu, pkg string
	benchmarks             map[string]map[string][]float64 // name -> unit -> one value per -count
}

// procs is the -GOMAXPROCS suffix go test appends to a benchmark's name.
var procs = regexp.MustCompile(`-\d+$`)

// parse reads go test's benchmark output: the goos, goarch, cpu and pkg lines, and
// each "BenchmarkName-P  N  value unit  value unit ..." line. Other lines are skipped.
func parse(r io.Reader) (run, error) {
	out := run{benchmarks: map[string]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, ": "); ok {
			switch k {
			case "goos":
				out.goos = v
			case "goarch":
				out.goarch = v
			case "cpu":
				out.cpu = v
			case "pkg":
				out.pkg = v
			}
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		if err := out.add(strings.Fields(line)); err != nil {
			return run{}, fmt.Errorf("benchreport: %q: %w", line, err)
		}
	}
	return out, sc.Err()
}

func (r *run) add(f []string) error {
	if len(f) < 4 || len(f)%2 != 0 {
		return nil // a benchmark that failed or logged: no figures on this line
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return nil
	}
	name := procs.ReplaceAllString(f[0], "")
	m := r.benchmarks[name]
	if m == nil {
		m = map[string][]float64{}
		r.benchmarks[name] = m
	}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return fmt.Errorf("value %q: %w", f[i], err)
		}
		m[f[i+1]] = append(m[f[i+1]], v)
	}
	return nil
}

// median returns the median of benchmark name's unit, and whether it was measured.
func (r run) median(name, unit string) (float64, bool) {
	v := slices.Clone(r.benchmarks[name][unit])
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

// names returns the benchmarks of r in order.
func (r run) names() []string {
	out := make([]string, 0, len(r.benchmarks))
	for n := range r.benchmarks {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
