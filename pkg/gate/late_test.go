package gate_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// slowStore answers Decide after delay (the store's own latency, honouring ctx), and
// not before answer is closed; it counts the settles it forwards, signalling each on
// settled.
type slowStore struct {
	store.Counters
	delay   time.Duration
	answer  chan struct{}
	settled chan struct{}
}

func (s *slowStore) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-s.answer:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Counters.Decide(ctx, cs, now, cost, outs)
}

func (s *slowStore) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	applied, err := s.Counters.(store.Settler).Settle(ctx, cs, st)
	s.settled <- struct{}{}
	return applied, err
}

// TestLateRepliesAreRefunded (issue 27, case 7): against a store 150 ms slow and the
// production budget of 100 ms, on the real clock, 100 requests of two keys are all
// answered by the fail mode, and once their late replies are in and refunded, every
// counter is where it was. The store replies only once every request was answered:
// with its 150 ms alone, a request whose goroutine ran 50 ms after its budget ended
// (under -race on a loaded machine) found the reply in first and was answered by it
// (4 of 100 runs failed so, the machine loaded: "74 of 100 requests answered by the
// fail mode, want all"). The gate's clock is the real one started at the beginning of
// a minute: a run across the minute's end had its refunds refused by the sliding
// window (only the window that counted is refunded) and failed with "951 of 1000
// left, want all".
func TestLateRepliesAreRefunded(t *testing.T) {
	f := newFixture(t, nil)
	f.createTenant(t, `{"id": "slowco", "fail_mode": "open", "rules": [
	  {"name": "hour", "algorithm": "fixed_window", "limit": 100000, "period": "1h"},
	  {"name": "per-key", "algorithm": "sliding_window", "limit": 1000, "period": "1m", "scope": "key"}]}`)
	keys := [2]string{}
	keys[0], _ = f.addKey(t, "slowco")
	keys[1], _ = f.addKey(t, "slowco")
	slow := &slowStore{Counters: memory.NewCounters(memory.CountersConfig{}), delay: 150 * time.Millisecond,
		answer: make(chan struct{}), settled: make(chan struct{}, 100)}
	clock := alignedClock() // the refunds go into the windows that counted the replies
	g, err := gate.New(gate.Config{Tenants: f.tenants, Counters: slow, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var failOpen atomic.Int64
	var checks [2]gate.Result
	for i := range 100 {
		wg.Go(func() {
			res, err := g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/", APIKey: keys[i%2]})
			if err == nil && res.FailOpen && res.Reservation.ID == "" && res.Decision.Remaining == 0 {
				failOpen.Add(1)
			}
			if i < 2 {
				checks[i] = res
			}
		})
	}
	wg.Wait()
	close(slow.answer)
	if n := failOpen.Load(); n != 100 {
		t.Fatalf("%d of 100 requests answered by the fail mode, want all", n)
	}
	deadline := time.After(5 * time.Second)
	for range 100 {
		select {
		case <-slow.settled:
		case <-deadline:
			t.Fatal("the late replies were not all refunded within 5 s")
		}
	}
	for i, res := range checks {
		for _, c := range res.Checks {
			outs := make([]limiter.Outcome, c.Set.Len())
			d, err := slow.Counters.Peek(context.Background(), c.Key, c.Set, clock(), outs)
			if err != nil {
				t.Fatal(err)
			}
			if d.Remaining != d.Limit {
				t.Errorf("key %d, counter %s: %d of %d left, want all: the fail mode's answers count nothing", i, c.Key, d.Remaining, d.Limit)
			}
		}
	}
}
