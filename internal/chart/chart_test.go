package chart

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite docs/algorithms.svg")

const (
	tracePath = "../../examples/traces/boundary.csv"
	svgPath   = "../../docs/algorithms.svg"
	title     = "examples/traces/boundary.csv: a burst of 10 at 0.9 s, then 20 per second"
)

func load(t *testing.T) Chart {
	t.Helper()
	trace, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(trace)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChart redraws docs/algorithms.svg from the sample trace through internal/simulate and
// requires the committed file to match.
func TestChart(t *testing.T) {
	svg := SVG(load(t), title)
	testenv.Golden(t, svgPath, []byte(svg), *update, "go test ./internal/chart -update")
}

// TestChartShowsWhatItSays: the burst is drawn at 0.9 s on the x axis (not at 0, the
// first request), both axes are labelled, the legend names every rule with all its
// parameters, and the leaky bucket is there.
func TestChartShowsWhatItSays(t *testing.T) {
	c := load(t)
	svg := SVG(c, title)
	p := newPlot(c)
	if c.Offered[0][0] != 0.9 {
		t.Fatalf("the first request is at %g s on the x axis, want 0.9 (the trace's burst)", c.Offered[0][0])
	}
	// The fixed window's line rises first where the burst is.
	fixed := regexp.MustCompile(`stroke="` + colors[0] + `" stroke-width="2" points="([^"]*)"`).FindStringSubmatch(svg)
	if fixed == nil {
		t.Fatal("no fixed_window line")
	}
	if pts := strings.Fields(fixed[1]); len(pts) < 3 || !strings.HasPrefix(pts[1], fmt.Sprintf("%.1f,", p.x(0.9))) {
		t.Errorf("the fixed_window line starts rising at %v, want x = %.1f (0.9 s)", pts[:min(3, len(pts))], p.x(0.9))
	}
	for _, want := range []string{"time (seconds since 2027-01-01T00:00:00Z)", "requests (cumulative)", "burst: 10 requests at 0.9 s"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart has no %q", want)
		}
	}
	names := map[string]bool{}
	for _, a := range Algorithms {
		names[a.Name] = true
		for _, param := range regexp.MustCompile(`"(\w+)": ("?[\w]+"?)`).FindAllStringSubmatch(a.Rule, -1) {
			legendPart := strings.ReplaceAll(param[0], `"`, "&#34;")
			if !strings.Contains(svg, legendPart) {
				t.Errorf("the legend of %s does not name %s", a.Name, param[0])
			}
		}
	}
	for _, want := range []string{"fixed_window", "sliding_log", "sliding_window", "token_bucket", "leaky_bucket"} {
		if !names[want] {
			t.Errorf("the chart has no %s", want)
		}
	}
}

// The leaky bucket admits what the token bucket admits; its line is the same requests
// at their release times, never earlier than their arrival.
func TestLeakyBucketIsReleasedLater(t *testing.T) {
	c := load(t)
	var token, leaky Series
	for _, s := range c.Series {
		switch s.Name {
		case "token_bucket":
			token = s
		case "leaky_bucket":
			leaky = s
		}
	}
	if len(token.Points) == 0 || len(token.Points) != len(leaky.Points) || !leaky.Released {
		t.Fatalf("token bucket admits %d, leaky bucket %d (released %v): want the same, released", len(token.Points), len(leaky.Points), leaky.Released)
	}
	later := false
	for i := range token.Points {
		if leaky.Points[i][0] < token.Points[i][0] {
			t.Fatalf("admitted request %d released at %g s, before its arrival at %g s", i+1, leaky.Points[i][0], token.Points[i][0])
		}
		later = later || leaky.Points[i][0] > token.Points[i][0]
	}
	if !later {
		t.Error("the leaky bucket delays nothing: its line is the token bucket's")
	}
}
