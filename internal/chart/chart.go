// Package chart draws docs/algorithms.svg: how each algorithm treats one burst of
// traffic, from `edgelimit simulate`'s own output (pkg/simulate), so the picture in the
// README cannot drift from what the limiter does. TestChart regenerates it and fails
// when the committed file differs (go test ./internal/chart -update rewrites it).
package chart

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/simulate"
)

// Series is one algorithm's cumulative admitted requests over the trace.
type Series struct {
	Name   string
	Rule   string
	Points [][2]float64 // seconds since the first request, admitted so far
}

// Algorithms are the rules compared: about 5 per second, burst 10, on one trace.
var Algorithms = []struct{ Name, Rule string }{
	{"fixed_window", `{"algorithm": "fixed_window", "limit": 5, "period": "1s"}`},
	{"sliding_log", `{"algorithm": "sliding_log", "limit": 5, "period": "1s"}`},
	{"sliding_window", `{"algorithm": "sliding_window", "limit": 5, "period": "1s"}`},
	{"token_bucket", `{"algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 10}`},
}

// Run replays trace through each algorithm with pkg/simulate and returns the series.
func Run(trace []byte) ([]Series, error) {
	var out []Series
	for _, a := range Algorithms {
		r, err := limiter.ParseRule([]byte(a.Rule))
		if err != nil {
			return nil, err
		}
		set, err := limiter.NewSet([]limiter.Rule{r}, nil)
		if err != nil {
			return nil, err
		}
		reqs, err := simulate.ParseTrace(bytes.NewReader(trace), set)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := simulate.Run(set, reqs, &buf); err != nil {
			return nil, err
		}
		points, err := cumulative(&buf)
		if err != nil {
			return nil, err
		}
		out = append(out, Series{Name: a.Name, Rule: a.Rule, Points: points})
	}
	return out, nil
}

// cumulative reads simulate's JSON lines into (seconds since the first, admitted) points.
func cumulative(r io.Reader) ([][2]float64, error) {
	var points [][2]float64
	first, admitted := -1.0, 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "allowed ") {
			break
		}
		var d struct {
			T       float64 `json:"t"`
			Allowed bool    `json:"allowed"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			return nil, fmt.Errorf("simulate output %q: %w", line, err)
		}
		if first < 0 {
			first = d.T
		}
		if d.Allowed {
			admitted++
		}
		points = append(points, [2]float64{d.T - first, float64(admitted)})
	}
	return points, sc.Err()
}
