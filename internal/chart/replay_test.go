package chart

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/internal/simulate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Chart is what the picture shows: the offered requests and each algorithm's admitted
// ones, cumulative, over seconds since Origin.
type Chart struct {
	// Origin is the whole second (since the Unix epoch) at or before the first request:
	// the x axis starts there, so a request at 0.9 s past it is drawn at 0.9.
	Origin  float64
	Offered [][2]float64 // seconds since Origin, requests so far
	Series  []Series
}

// Series is one algorithm's cumulative admitted requests over the trace.
type Series struct {
	Name string
	Rule string // the rule's JSON, every parameter named
	// Released: the points are at each admitted request's release time (t + delay_ms),
	// the leaky bucket's constant outflow, rather than at its arrival.
	Released bool
	Points   [][2]float64 // seconds since Origin, admitted so far
}

// Algorithms are the rules compared: about 5 per second, burst 10, on one trace.
var Algorithms = []struct{ Name, Rule string }{
	{"fixed_window", `{"algorithm": "fixed_window", "limit": 5, "period": "1s"}`},
	{"sliding_log", `{"algorithm": "sliding_log", "limit": 5, "period": "1s"}`},
	{"sliding_window", `{"algorithm": "sliding_window", "limit": 5, "period": "1s"}`},
	{"token_bucket", `{"algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 10}`},
	{"leaky_bucket", `{"algorithm": "leaky_bucket", "limit": 5, "period": "1s", "burst": 10}`},
}

// Run replays trace through each algorithm with internal/simulate and returns the chart.
func Run(trace []byte) (Chart, error) {
	var c Chart
	for _, a := range Algorithms {
		out, err := replay(trace, a.Rule)
		if err != nil {
			return Chart{}, fmt.Errorf("%s: %w", a.Name, err)
		}
		if len(out) == 0 {
			return Chart{}, fmt.Errorf("%s: the trace holds no request", a.Name)
		}
		if c.Series == nil {
			c.Origin = math.Floor(seconds(out[0]))
			c.Offered = offered(out, c.Origin)
		}
		leaky := strings.Contains(a.Rule, string(limiter.LeakyBucket))
		c.Series = append(c.Series, Series{Name: a.Name, Rule: a.Rule, Released: leaky, Points: admitted(out, c.Origin, leaky)})
	}
	return c, nil
}

// replay runs simulate on trace with one rule: the lines it prints.
func replay(trace []byte, rule string) ([]simulate.Line, error) {
	set, err := simulate.ParseRules("", []string{rule}, time.UTC)
	if err != nil {
		return nil, err
	}
	reqs, err := simulate.ParseTrace(bytes.NewReader(trace), set)
	if err != nil {
		return nil, err
	}
	return simulate.Decide(set, reqs)
}

// seconds is the time of a line, in seconds since the Unix epoch.
func seconds(l simulate.Line) float64 {
	t, _ := l.T.Float64() // simulate writes it as a decimal
	return t
}

// offered is every request, cumulative, at its arrival.
func offered(ds []simulate.Line, origin float64) [][2]float64 {
	points := make([][2]float64, len(ds))
	for i, d := range ds {
		points[i] = [2]float64{since(seconds(d), origin), float64(i + 1)}
	}
	return points
}

// admitted is the allowed requests, cumulative, at their arrival or (released) at
// their arrival plus their delay.
func admitted(ds []simulate.Line, origin float64, released bool) [][2]float64 {
	var at []float64
	for _, d := range ds {
		if !d.Allowed {
			continue
		}
		t := since(seconds(d), origin)
		if released && d.DelayMs != nil {
			t += float64(*d.DelayMs) / 1000
		}
		at = append(at, t)
	}
	slices.Sort(at)
	points := make([][2]float64, len(at))
	for i, t := range at {
		points[i] = [2]float64{t, float64(i + 1)}
	}
	return points
}

// since is t - origin in seconds, rounded to the microsecond (simulate's resolution):
// epoch seconds in a float64 carry an error of about 2e-7.
func since(t, origin float64) float64 { return math.Round((t-origin)*1e6) / 1e6 }
