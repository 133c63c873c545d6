package hotcounter_test

import (
	"context"
	"errors"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

var errContended = errors.New("test: the item kept changing")

// contendedOnce answers its first Decide with errContended, then decides in Counters.
type contendedOnce struct {
	store.Counters
	failed bool
}

func (c *contendedOnce) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if !c.failed {
		c.failed = true
		return errContended
	}
	return c.Counters.Decide(ctx, cs, now, cost, outs)
}

// TestContentionTurnsHot: a cold decision that fails with a Retryable error (the
// dynamodb store's ErrContention) turns its counter hot, as a throttle does: the retry
// is a reservation, and every decision comes from leases (a regression test:
// contention never turned a counter hot).
func TestContentionTurnsHot(t *testing.T) {
	next := &contendedOnce{Counters: memory.NewCounters(memory.CountersConfig{})}
	s := hotcounter.New(next, hotcounter.Config{Sleep: noSleep, Retryable: func(err error) bool { return errors.Is(err, errContended) }})
	c := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 1000, "period": "1m"}`)
	for i := range 5 {
		if d := decide(t, s, []store.Counter{c}, t0+int64(i)*1000, 1); !d.Allowed {
			t.Fatalf("decision %d: %+v", i, d)
		}
	}
	if st := s.Stats(); st.Reservations == 0 || st.Leased != 5 || st.Calls != st.Reservations+1 {
		t.Errorf("after a contended cold decision: %+v, want every decision from leases", st)
	}
}
