package main_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// coldStartPeers are the functions BenchmarkColdStart starts: edgelimit's authorizer as
// the template deploys it, built once per backend with that backend alone (the
// Makefile's tags), each on the memory backend with the sample tenants so that no store
// is reached; and two hello-world aws-lambda-go authorizers built the same way:
// hellodynamodb (internal/authorizer/testdata/hellodynamodb), which makes a DynamoDB
// client from the SDK's default config at init, and the plain one
// (internal/authorizer/testdata/hello). The hello-worlds are last.
var coldStartPeers = func() []peer {
	var peers []peer
	for _, b := range testenv.AuthorizerBuilds {
		peers = append(peers, peer{b.Backend, ".", b.Tag, initBaseline(b.Backend)})
	}
	return append(peers,
		peer{helloDynamoDB, "../../internal/authorizer/testdata/hellodynamodb", "", ""},
		peer{hello, "../../internal/authorizer/testdata/hello", "", ""})
}()

// The hello-worlds' names in the metrics.
const (
	hello         = "hello"
	helloDynamoDB = "hello-dynamodb"
)

// initBaseline is the hello-world a backend's build's runtime init is measured against:
// for DynamoDB, the one that makes a DynamoDB client at init, as a user's authorizer on
// DynamoDB would; for the others, the plain one. Sizes are all against the plain one.
func initBaseline(backend string) string {
	if backend == "dynamodb" {
		return helloDynamoDB
	}
	return hello
}

// peer is a function BenchmarkColdStart starts: its name in the metrics, its package,
// its build tag besides lambda.norpc, and the peer its runtime init is measured
// against ("" for a hello-world).
type peer struct{ name, pkg, tag, baseline string }

// coldStart is what one start of a function under the emulator measured, in ms.
type coldStart struct{ report, runtime, first float64 }

// BenchmarkColdStart starts each stripped bootstrap under the emulator b.N times, in
// turn (each round starting with the next peer: all see the machine's load alike), and
// invokes it once each time. It reports, for each, the binary's size, the runtime's own
// init as the emulator logs it (runtime-init-ms: from exec to the function's first
// request for an event), the first invocation's round trip (first-ms) and the "Init
// Duration" of the REPORT line (init-ms, which does not measure the runtime's init), as
// medians; and each authorizer's size over hello's (<backend>-size-ratio) and runtime
// init over its initBaseline's (<backend>-runtime-init-ratio, the median of the rounds'
// ratios). Run it with -benchtime=20x or more.
func BenchmarkColdStart(b *testing.B) {
	tenants, err := filepath.Abs(filepath.Join(eventsDir, "tenants.json"))
	if err != nil {
		b.Fatal(err)
	}
	env := map[string]string{"EDGELIMIT_BACKEND": "memory", "EDGELIMIT_TENANTS_FILE": tenants}
	bootstraps, sizes := make([]string, len(coldStartPeers)), make([]float64, len(coldStartPeers))
	for i, fn := range coldStartPeers {
		bootstraps[i] = build(b, fn.pkg, fn.tag)
		st, err := os.Stat(bootstraps[i])
		if err != nil {
			b.Fatal(err)
		}
		sizes[i] = float64(st.Size())
	}
	payload := readEvent(b, "rest-valid-key")
	samples := make([][]coldStart, len(coldStartPeers))
	round := 0
	for b.Loop() {
		for j := range coldStartPeers {
			i := (j + round) % len(coldStartPeers)
			f := startFunction(b, bootstraps[i], env)
			_, d := f.invoke(b, payload)
			r, rt := f.initDurations(b)
			f.stop()
			samples[i] = append(samples[i], coldStart{r, rt, float64(d.Microseconds()) / 1000})
		}
		round++
	}
	for i, fn := range coldStartPeers {
		b.ReportMetric(sizes[i], fn.name+"-bootstrap-bytes")
		b.ReportMetric(median(samples[i], func(s coldStart) float64 { return s.runtime }), fn.name+"-runtime-init-ms")
		b.ReportMetric(median(samples[i], func(s coldStart) float64 { return s.first }), fn.name+"-first-ms")
		b.ReportMetric(median(samples[i], func(s coldStart) float64 { return s.report }), fn.name+"-init-ms")
	}
	reportRatios(b, sizes, samples)
	b.ReportMetric(0, "ns/op")
}

// reportRatios reports each authorizer's size over hello's, and its runtime init over
// its baseline's as the median of the rounds' ratios: each round starts every peer once,
// so a ratio compares two starts made moments apart, under the same load. samples are
// in coldStartPeers' order, one a round.
func reportRatios(b *testing.B, sizes []float64, samples [][]coldStart) {
	index := map[string]int{}
	for i, fn := range coldStartPeers {
		index[fn.name] = i
	}
	for i, fn := range coldStartPeers {
		if fn.baseline == "" {
			continue
		}
		b.ReportMetric(sizes[i]/sizes[index[hello]], fn.name+"-size-ratio")
		base := samples[index[fn.baseline]]
		ratios := make([]coldStart, len(samples[i]))
		for r, s := range samples[i] {
			ratios[r].runtime = s.runtime / base[r].runtime
		}
		b.ReportMetric(median(ratios, func(s coldStart) float64 { return s.runtime }), fn.name+"-runtime-init-ratio")
	}
}

func median(samples []coldStart, of func(coldStart) float64) float64 {
	v := make([]float64, len(samples))
	for i, s := range samples {
		v[i] = of(s)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
