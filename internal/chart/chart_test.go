package chart

import (
	"flag"
	"os"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite docs/algorithms.svg")

// TestChart redraws docs/algorithms.svg from the sample trace through pkg/simulate and
// requires the committed file to match.
func TestChart(t *testing.T) {
	trace, err := os.ReadFile("../../examples/traces/boundary.csv")
	if err != nil {
		t.Fatal(err)
	}
	series, err := Run(trace)
	if err != nil {
		t.Fatal(err)
	}
	svg := SVG(series, "examples/traces/boundary.csv: a burst at 0.9 s, then 20/s; rules of 5 per second")
	testenv.Golden(t, "../../docs/algorithms.svg", []byte(svg), *update, "go test ./internal/chart -update")
}
