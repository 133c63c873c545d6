package hotcounter_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// TestSaturatedCounterStaysHot: a counter that turned hot and reserves goes on being
// served through reservations when the decisions reaching it fall below the threshold,
// as they do when the gate's denial cache answers its denied requests until their
// retry instant (a regression test: it went cold after a second, and each of those
// decisions was a cold write, within the request's budget, to the item that DynamoDB
// throttled; through three keys of one tenant, 5 to 21 of them got the fail mode).
func TestSaturatedCounterStaysHot(t *testing.T) {
	s, _ := newMemory()
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 100}`)
	at := t0
	for range 600 { // 300 a second for 2 s: hot, and saturated
		decide(t, s, []store.Counter{c}, at, 1)
		at += 3_333
	}
	before := s.Stats()
	if before.Reservations == 0 || before.Denied == 0 {
		t.Fatalf("%+v: want the counter hot and saturated", before)
	}
	for range 60 { // 20 a second for 3 s: what the denial cache lets through
		decide(t, s, []store.Counter{c}, at, 1)
		at += 50_000
	}
	st := s.Stats()
	if cold, coldBefore := st.Calls-st.Reservations, before.Calls-before.Reservations; cold != coldBefore {
		t.Fatalf("%d cold decisions after the counter was saturated (%+v): want none", cold-coldBefore, st)
	}
}

// throttling is a Next that answers store.ErrThrottled, doing nothing, while on.
type throttling struct {
	store.Counters
	on bool
}

func (n *throttling) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if n.on {
		return fmt.Errorf("throttled: %w", store.ErrThrottled)
	}
	return n.Counters.Decide(ctx, cs, now, cost, outs)
}

// TestThrottledCounterStaysHotThroughAGap: a hot counter whose reservations were
// throttled is still hot when its traffic comes back after 3 s without a decision: it
// reserves, with no cold decision (a regression test: it went cold a second after its
// last reservation, and the traffic coming back after an idle gap was a burst of cold
// writes to the item DynamoDB had throttled, some past their budget).
func TestThrottledCounterStaysHotThroughAGap(t *testing.T) {
	next := &throttling{Counters: memory.NewCounters(memory.CountersConfig{})}
	s := newHot(next)
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 100}`)
	at := t0
	offer := func(n int) {
		for range n { // 300 a second
			decide(t, s, []store.Counter{c}, at, 1)
			at += 3_333
		}
	}
	offer(300) // hot
	next.on = true
	offer(60) // its reservations throttled
	next.on = false
	offer(60)
	at += 3_000_000 // idle
	before := s.Stats()
	if before.Throttled == 0 || before.Reservations == 0 {
		t.Fatalf("%+v: want the counter hot, its reservations throttled", before)
	}
	offer(150)
	st := s.Stats()
	if cold, coldBefore := st.Calls-st.Reservations, before.Calls-before.Reservations; cold != coldBefore || st.Reservations == before.Reservations {
		t.Fatalf("%d cold decisions after the gap (%+v): want reservations only", cold-coldBefore, st)
	}
}
