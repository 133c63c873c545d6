package chart

import (
	"flag"
	"os"
	"testing"
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
	const path = "../../docs/algorithms.svg"
	if *update {
		if err := os.WriteFile(path, []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != svg {
		t.Fatalf("%s is out of date: go test ./internal/chart -update", path)
	}
}
