package hotcounter_test

import (
	"context"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// benchRule is a tenant-wide bucket large enough that the benchmarks never saturate it.
const benchRule = `{"algorithm": "token_bucket", "limit": 1000000, "period": "1s"}`

// The paces of the benchmarks, on the injected clock: a cold counter (10 decisions a
// second, below the threshold) and a hot one (10,000 a second).
const (
	coldGap = 100_000
	hotGap  = 100
)

// benchCases are the sub-benchmarks: the store alone (the peer), and the decorator on
// it with the counter cold and hot.
var benchCases = []struct {
	name string
	hot  bool
	gap  int64
}{{"store alone", false, hotGap}, {"cold", true, coldGap}, {"hot", true, hotGap}}

// BenchmarkDecide: one decision on one tenant counter, in one run: the memory store
// alone (the peer), and the decorator on it with the counter cold and hot. The memory
// store stands in for DynamoDB: writes/decision and round-trips/decision are the calls
// it receives per decision (for DynamoDB each is one UpdateItem and one round trip).
func BenchmarkDecide(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			model := newCapacityStore(memory.NewCounters(memory.CountersConfig{}), 0)
			var s store.Counters = model
			if bc.hot {
				s = newHot(model)
			}
			benchDecide(b, s, func() int64 { w, _ := model.counts(); return w }, bc.gap)
		})
	}
}

// BenchmarkDecideDynamoDB: the same on DynamoDB Local, where a round trip is real:
// the bare dynamodb store, and the decorator on it with the counter cold and hot.
func BenchmarkDecideDynamoDB(b *testing.B) {
	endpoint := testenv.DynamoDBURL(b)
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			ct := &testenv.CountingTransport{}
			var s store.Counters = dynamodb.NewCounters(ddbClient(endpoint, ct), newTable(b, endpoint), dynamodb.CountersConfig{})
			if bc.hot {
				s = newHot(s)
			}
			benchDecide(b, s, ct.Count, bc.gap)
		})
	}
}

// benchDecide decides b.N requests gap microseconds apart and reports the writes and
// round trips per decision (calls counts them) and the decisions per second.
func benchDecide(b *testing.B, s store.Counters, calls func() int64, gap int64) {
	c := []store.Counter{{Key: storetest.Key(b, "tenant"), Set: storetest.Set(b, nil, benchRule)}}
	outs := make([]limiter.Decision, 1)
	ctx := context.Background()
	at := t0
	b.ReportAllocs()
	b.ResetTimer()
	start := calls()
	for b.Loop() {
		at += gap
		if err := s.Decide(ctx, c, at, 1, outs); err != nil || !outs[0].Allowed {
			b.Fatalf("%+v, %v", outs[0], err)
		}
	}
	n := float64(calls()-start) / float64(b.N)
	b.ReportMetric(n, "writes/decision")
	b.ReportMetric(n, "round-trips/decision")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}
