package hotcounter_test

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// t0 starts every trace: the beginning of a minute and of a second.
var t0 = limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))

// noSleep stands in for the real wait before a throttled call is retried.
func noSleep(context.Context, time.Duration) error { return nil }

// newHot returns the decorator on next with the defaults and no real sleeping.
func newHot(next store.Counters) *hotcounter.Store {
	return hotcounter.New(next, hotcounter.Config{Sleep: noSleep})
}

// newMemory returns the decorator on a fresh memory store, and that store.
func newMemory() (*hotcounter.Store, *memory.Counters) {
	m := memory.NewCounters(memory.CountersConfig{})
	return newHot(m), m
}

// decide decides one request over cs and returns the joined answer.
func decide(t testing.TB, s store.Counters, cs []store.Counter, at, cost int64) limiter.Decision {
	t.Helper()
	outs := make([]limiter.Decision, len(cs))
	if err := s.Decide(context.Background(), cs, at, cost, outs); err != nil {
		t.Fatalf("at %d: %v", at-t0, err)
	}
	d, _ := limiter.Join(outs)
	return d
}

// counter is a counter of fresh key name with rules.
func counter(t testing.TB, name string, rules ...string) store.Counter {
	return store.Counter{Key: storetest.Key(t, name), Set: storetest.Set(t, nil, rules...)}
}

// used is how much of a fixed window rule 0 of c has counted at at, read from next.
func used(t testing.TB, next store.Counters, c store.Counter, at int64) int64 {
	t.Helper()
	outs := make([]limiter.Outcome, c.Set.Len())
	if _, err := next.Peek(context.Background(), c.Key, c.Set, at, outs); err != nil {
		t.Fatal(err)
	}
	return c.Set.Rule(0).Limit - outs[0].Remaining
}

// conforms replays admitted (instants, in order) through set alone and returns how
// many of them set would have denied: 0 when the admitted requests never exceeded it.
func conforms(t testing.TB, set *limiter.Set, admitted []int64) int {
	t.Helper()
	states := set.NewStates()
	over := 0
	for _, at := range admitted {
		d, err := set.Decide(states, at, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed {
			over++
		}
	}
	return over
}
