package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/edgelimit/edgelimit/pkg/store/upstash
cpu: AMD EPYC
BenchmarkStoreDecide/callers=1-2         	    2000	    575501 ns/op	      1738 decisions/s	         1.000 requests/decision	   10538 B/op	     121 allocs/op
BenchmarkStoreDecide/callers=1-2         	    2000	    565501 ns/op	      1768 decisions/s	         1.000 requests/decision	   10538 B/op	     121 allocs/op
BenchmarkStoreDecide/callers=1-2         	    2000	    600000 ns/op	      1666 decisions/s	         1.000 requests/decision	   10538 B/op	     121 allocs/op
BenchmarkUpstashRatelimitJS/callers=1-2  	    2000	   1350161 ns/op	       740.7 decisions/s	       6 B/op	       0 allocs/op
--- FAIL: BenchmarkBroken
    bench_test.go:1: a log line
PASS
ok  	github.com/edgelimit/edgelimit/pkg/store/upstash	6.371s
`

// The parser reads go test's header and benchmark lines (the -P suffix dropped,
// every unit kept, one value per -count), skips the rest, and gives medians.
func TestParse(t *testing.T) {
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if r.cpu != "AMD EPYC" || r.goos != "linux" || r.goarch != "amd64" || !strings.HasSuffix(r.pkg, "/upstash") {
		t.Fatalf("header %+v", r)
	}
	if got := r.names(); len(got) != 2 || got[0] != "BenchmarkStoreDecide/callers=1" {
		t.Fatalf("benchmarks %v", got)
	}
	if v, ok := r.median("BenchmarkStoreDecide/callers=1", nsPerOp); !ok || v != 575501 {
		t.Errorf("median ns/op %v, %v; want 575501", v, ok)
	}
	if v, _ := r.median("BenchmarkStoreDecide/callers=1", "requests/decision"); v != 1 {
		t.Errorf("requests/decision %v", v)
	}
	if _, ok := r.median("BenchmarkStoreDecide/callers=1", "no-such-unit"); ok {
		t.Error("a unit never reported has a median")
	}
}

// Every benchmark the headline reads is declared in its suite's package and matched by
// the suite's -bench pattern: renaming one fails here, not in a report that says "not
// measured". Every suite has its note.
func TestHeadlineNamesRealBenchmarks(t *testing.T) {
	bySuite := map[string]suite{}
	for _, s := range suites {
		bySuite[s.name] = s
	}
	for _, s := range suites {
		if prose.Lookup(s.name) == nil {
			t.Errorf("suite %s has no note in prose.tmpl", s.name)
		}
	}
	for _, h := range headline {
		s, ok := bySuite[h.suite]
		if h.suite != "" && !ok {
			t.Errorf("%s: no suite %q", h.what, h.suite)
		}
		for _, b := range h.benches {
			top, _, _ := strings.Cut(b, "/")
			if !regexp.MustCompile(s.bench).MatchString(top) {
				t.Errorf("%s: %s is not matched by suite %s's -bench %q", h.what, top, s.name, s.bench)
			}
			if !declared(t, filepath.Join("..", "..", s.pkg), top) {
				t.Errorf("%s: %s is not declared in %s", h.what, top, s.pkg)
			}
		}
	}
}

func declared(t *testing.T, dir, name string) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "func "+name+"(b *testing.B)") {
			return true
		}
	}
	return false
}

// The report of a run renders every headline row that has its figures, marks the rows
// of a suite that did not run "not measured", and says whether each goal is met.
func TestReportOfARun(t *testing.T) {
	r0, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	r := &report{runs: map[string]run{"upstash": r0},
		machine: machine{cpu: "AMD EPYC", cores: 2}}
	md := r.markdown()
	for _, want := range []string{
		"| Upstash store, 1 caller, decisions/s, pipelining off | @upstash/ratelimit, same server and rule | 2.35x (1,738 decisions/s against 741 decisions/s) | at least 1.0x | met |",
		"| Upstash client, allocations per decision | - | 121 allocs | - |  |",
		"| Redis store, p50 latency, 1 caller (taking turns) | redis_rate, same redis-server and GCRA rule | not measured | - |  |",
		"\n\nOur REST client and `edgelimit upstash-local` in front of redis-server, over loopback: two HTTP hops\n",
		"| `BenchmarkStoreDecide/callers=1` | 576 us | 121 allocs | 10,538 B | 1,738 decisions/s, 1.00 requests/decision |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if b := r.readmeBlock(); !strings.HasPrefix(b, readmeStart+"\n") || !strings.HasSuffix(b, "\n"+readmeEnd) {
		t.Errorf("README block's markers are not whole lines:\n%s", b)
	}
	if svg := r.ratioChart(); !strings.Contains(svg, "2.35x") || !strings.HasPrefix(svg, "<svg") {
		t.Errorf("ratio chart:\n%s", svg)
	}
}

// coldStartSample is BenchmarkColdStart's line: the DynamoDB build's runtime init
// against the hello-world that makes a DynamoDB client, the others' against the plain
// one.
const coldStartSample = `pkg: github.com/edgelimit/edgelimit/functions/authorizer
BenchmarkColdStart-2 	      60	         0 ns/op	         0.9000 dynamodb-runtime-init-ratio	         6.300 dynamodb-runtime-init-ms	         7.000 hello-dynamodb-runtime-init-ms	         1.500 upstash-runtime-init-ratio	         6.000 upstash-runtime-init-ms	         4.000 hello-runtime-init-ms
`

// The cold-start rows hold each build to its goal against its own hello-world: the
// DynamoDB build at most 1.0x the one that makes a DynamoDB client, the others at most
// 1.4x the plain one; a bootstrap at most 1.6x the plain one's.
func TestColdStartGoals(t *testing.T) {
	cs, err := parse(strings.NewReader(coldStartSample))
	if err != nil {
		t.Fatal(err)
	}
	r := &report{runs: map[string]run{"coldstart": cs},
		sizes: sizes{authorizer: map[string]int64{"dynamodb": 9_300_000, "upstash": 7_000_000}, hello: 6_000_000}}
	md := r.markdown()
	for _, want := range []string{
		"| runtime init, DynamoDB build (the emulator's `INIT REPORT`, median of the rounds' ratios) | hello-world authorizer that makes a DynamoDB client (the SDK's default config) at init, started in the same rounds | 0.90x (6.30 ms against 7.00 ms) | at most 1.0x | met |",
		"| runtime init, Upstash build (the emulator's `INIT REPORT`, median of the rounds' ratios) | hello-world authorizer, started in the same rounds | 1.50x (6.00 ms against 4.00 ms) | at most 1.4x | **not met** |",
		"| stripped linux/arm64 bootstrap, DynamoDB build | hello-world authorizer, built the same way | 1.55x (9.30 MB against 6.00 MB) | at most 1.6x | met |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// figures are the numbers README.md's figures block quotes: "13.8 us", "0.33x",
// "1,738", "$20.20".
var figures = regexp.MustCompile(`\$?[0-9][0-9,]*(\.[0-9]+)?x?`)

// Every figure README.md quotes from the benchmarks (its block between the markers,
// which `make bench` writes) is in docs/benchmarks.md, which the same run wrote.
func TestREADMEQuotesTheReport(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join("..", "..", "docs/benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	start, end := strings.Index(string(readme), readmeStart), strings.Index(string(readme), readmeEnd)
	if start < 0 || end < start {
		t.Fatal("README.md has no figures block")
	}
	block := string(readme[start+len(readmeStart) : end])
	found := figures.FindAllString(block, -1)
	if len(found) < 8 {
		t.Fatalf("README.md's figures block quotes %d figures, want the run's headline: %q", len(found), block)
	}
	for _, f := range found {
		if !strings.Contains(string(report), f) {
			t.Errorf("README.md quotes %q, which docs/benchmarks.md does not hold", f)
		}
	}
}

// The cost table prices the authorizer's memory as template.yaml sets it.
func TestCostsUseTheTemplatesMemory(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join("..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\n  AuthorizerFunction:\n.*?MemorySize: (\d+)`).FindSubmatch(tmpl)
	if m == nil || string(m[1]) != "256" || authorizerMemoryMB != 256 {
		t.Fatalf("template.yaml's AuthorizerFunction MemorySize %q, the cost table's %d", m, authorizerMemoryMB)
	}
}

// The cost section prices each store from the runs' figures, as docs/benchmarks.md
// shows them, and fills every figure of its prose.
func TestCostSection(t *testing.T) {
	one := func(name, unit string, v float64) run {
		return run{benchmarks: map[string]map[string][]float64{name: {unit: {v}}}}
	}
	dyn := one("BenchmarkDecide/callers=1", "requests/decision", 1)
	dyn.benchmarks["BenchmarkDecide/callers=1"]["write-units/decision"] = []float64{1}
	r := &report{runs: map[string]run{
		"authorizer": one("BenchmarkInvokeWarm/edgelimit", nsPerOp, 86_900),
		"dynamodb":   dyn,
		"upstash":    one("BenchmarkStoreDecide/callers=1", "requests/decision", 1),
		"hotcounter": one("BenchmarkDecideDynamoDB/hot", "writes/decision", 0.00104),
	}}
	var b strings.Builder
	r.costSection(&b)
	for _, want := range []string{
		"the authorizer's\nwarm compute (86.9 us) plus 5 ms per store round trip",
		"at the function's 256 MB, on arm64.\nPrices: on demand, us-east-1, no free tier, read " + pricesRead + " from https://aws.amazon.com/lambda/pricing/, ",
		"| DynamoDB (on demand), one counter | 1.00 | 1.00 write request units | 6 | $0.22 | $0.63 | $0.85 |",
		"| DynamoDB, a hot counter | 0.00104 | 0.00104 write request units (BenchmarkDecideDynamoDB/hot: one write per lease) | 1 | $0.20 | $0.00 | $0.20 |",
		"| Upstash (pay as you go), one counter | 1.00 | 1.00 commands | 6 | $0.22 | $2.00 | $2.22 |",
		"at 256 MB a millisecond of billed duration costs $0.0033 per million\ndecisions",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the cost section lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "no value") {
		t.Errorf("the cost section has a figure missing:\n%s", b.String())
	}
}
