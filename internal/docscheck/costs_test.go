package docscheck

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// statedPrices are the prices docs/benchmarks.md's cost section states, read from its
// own text: what the table must have been computed with.
type statedPrices struct {
	lambdaPerMillion, perGBSecond, memoryGB float64
	perUnit                                 map[string]float64 // dollars per unit, by unit name
}

var (
	// The prose is wrapped: a space may be a line break, and .* spans lines.
	pricesText = regexp.MustCompile(`(?s)Lambda's\s+price\s+is\s+\$([0-9.]+)\s+per\s+million\s+requests\s+and\s+\$([0-9.]+)\s+per\s+GB-second\s.*` +
		`DynamoDB's\s+\$([0-9.]+)\s+per\s+million\s+write\s+request\s+units\s.*Upstash's\s+\$([0-9.]+)\s+per\s+([0-9,]+)\s+commands`)
	memoryText = regexp.MustCompile(`at\s+the\s+function's\s+([0-9]+)\s+MB`)
	costRow    = regexp.MustCompile(`^\| ([^|]+) \| ([0-9.]+) \| (none|([0-9.]+) (write request units|commands)[^|]*) \| ([0-9]+) \| \$([0-9.]+) \| \$([0-9.]+) \| \$([0-9.]+) \|$`)
)

// TestCostTableAddsUp recomputes every row of docs/benchmarks.md's cost table from its
// units, its billed milliseconds and the prices the section states: each dollar column
// rounded to the cent, half up, and the total the sum of the two as shown. It pins the
// bug of a total rounded apart from its parts ($0.22 + $0.62 shown as $0.85).
func TestCostTableAddsUp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "docs/benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## What a million decisions cost\n")
	if !ok {
		t.Fatal(`docs/benchmarks.md has no "What a million decisions cost" section`)
	}
	p := readPrices(t, section)
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		m := costRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		checkCostRow(t, p, m)
	}
	if rows < 5 {
		t.Errorf("the cost table has %d rows, want one counter, several and a hot counter on DynamoDB, and Upstash's", rows)
	}
}

func readPrices(t *testing.T, section string) statedPrices {
	t.Helper()
	m, mem := pricesText.FindStringSubmatch(section), memoryText.FindStringSubmatch(section)
	if m == nil || mem == nil {
		t.Fatalf("the cost section does not state Lambda's, DynamoDB's and Upstash's prices and the memory: %q", section)
	}
	commands, _ := strconv.ParseFloat(strings.ReplaceAll(m[5], ",", ""), 64)
	mb := number(t, mem[1])
	return statedPrices{
		lambdaPerMillion: number(t, m[1]), perGBSecond: number(t, m[2]), memoryGB: mb / 1024,
		perUnit: map[string]float64{"write request units": number(t, m[3]) / 1e6, "commands": number(t, m[4]) / commands},
	}
}

// checkCostRow recomputes one row's dollars: m is costRow's match.
func checkCostRow(t *testing.T, p statedPrices, m []string) {
	t.Helper()
	store := 0.0
	if m[3] != "none" {
		store = cents(1e6 * number(t, m[4]) * p.perUnit[m[5]])
	}
	lambda := cents(p.lambdaPerMillion + 1e6*number(t, m[6])/1000*p.memoryGB*p.perGBSecond)
	gotLambda, gotStore, gotTotal := number(t, m[7]), number(t, m[8]), number(t, m[9])
	if gotLambda != lambda || gotStore != store || math.Round(gotTotal*100) != math.Round((gotLambda+gotStore)*100) {
		t.Errorf("%s: $%.2f + $%.2f = $%.2f; from its units and the stated prices $%.2f + $%.2f = $%.2f",
			m[1], gotLambda, gotStore, gotTotal, lambda, store, lambda+store)
	}
}

// cents rounds dollars to the cent, half up, after dropping float noise.
func cents(v float64) float64 { return math.Round(math.Round(v*1e6)/1e4) / 100 }

func number(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
