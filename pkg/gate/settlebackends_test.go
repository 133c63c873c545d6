package gate_test

import (
	"os"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// forEachSettler runs test on each backend of modelBackends without hot counters
// (memory, Redis, Upstash, DynamoDB Local, built by internal/config as the functions
// build them), with its latency budget. A backend whose service is not configured is
// skipped (failed under CI=true); so is one whose Counters does not implement
// store.Settler yet, but only when CI is unset: under CI=true that fails.
func forEachSettler(t *testing.T, test func(t *testing.T, counters store.Counters, budget time.Duration, callers func(n int) int)) {
	if raceEnabled {
		t.Skip("-race: these runs hold the 100 ms budget with 50 to 96 concurrent callers (scripts/test.sh runs them without -race)")
	}
	for _, b := range modelBackends {
		if b.hot {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			counters := openModel(t, b).gate
			if _, ok := counters.(store.Settler); !ok {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s: %T does not implement store.Settler", b.name, counters)
				}
				t.Skipf("%s: %T does not implement store.Settler yet", b.name, counters)
			}
			budget := b.budget
			if budget == 0 {
				budget = 100 * time.Millisecond
			}
			callers := func(n int) int { return n }
			if b.name == "dynamodb" {
				callers = func(n int) int { return min(n, dynamoLocalCallers) }
			}
			test(t, counters, budget, callers)
		})
	}
}

// alignedClock is the real clock, advancing as it does, moved back so that it starts at
// the beginning of a minute: a test of minute windows that lasts less than one never
// sees its window end.
func alignedClock() func() int64 {
	start := time.Now()
	base := start.Truncate(time.Minute)
	return func() int64 { return limiter.Micros(base.Add(time.Since(start))) }
}

// dynamoLocalCallers is the most concurrent callers the reserve/settle tests offer
// DynamoDB Local: a JVM over SQLite that serves a few hundred writes a second on this
// machine answered most of 50 concurrent writers to one item after a second's budget
// (and their settles, transactions on that item, after two), so those tests scale
// their concurrency down there rather than offer a load it cannot take. The stores'
// own tests run 3 processes x 32 goroutines against DynamoDB Local
// (pkg/store/dynamodb TestInFlightAcrossProcesses).
const dynamoLocalCallers = 10
