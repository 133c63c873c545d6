package hotcounter_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// hookedNext calls hook (once, when set) at the start of a Decide, then decides in next.
type hookedNext struct {
	store.Counters
	hook func()
}

func (h *hookedNext) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if f := h.hook; f != nil {
		h.hook = nil
		f()
	}
	return h.Counters.Decide(ctx, cs, now, cost, outs)
}

// TestReservationUnderRecompiledRules is the issue's "the counter's rules changed
// during its reservation" (a regression test): while a hot counter's reservation is in
// flight, another request of the tenant arrives with the same rules compiled again (a
// new *limiter.Set, as a gate gives after a reload). The reservation is still the
// counter's: the request that made it is answered, not failed, and the lease serves
// the next requests of either set.
func TestReservationUnderRecompiledRules(t *testing.T) {
	const rule = `{"algorithm": "fixed_window", "limit": 1000, "period": "1m"}`
	next := &hookedNext{Counters: memory.NewCounters(memory.CountersConfig{})}
	s := hotcounter.New(next, hotcounter.Config{Threshold: 1, Sleep: noSleep})
	a := counter(t, "tenant", rule)
	b := store.Counter{Key: a.Key, Set: storetest.Set(t, nil, rule)}
	for i := range 20 { // hot, serving from leases
		decide(t, s, []store.Counter{a}, t0+int64(i)*1000, 1)
	}
	calls := s.Stats().Calls
	next.hook = func() { // during the next reservation: a request under b, which waits for it
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		done := make(chan error)
		go func() { done <- s.Decide(ctx, []store.Counter{b}, t0+30_000, 1, make([]limiter.Decision, 1)) }()
		if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the request waiting for the reservation: %v, want its deadline", err)
		}
	}
	outs := make([]limiter.Decision, 1)
	for i := 0; next.hook != nil && i < 1000; i++ {
		if err := s.Decide(context.Background(), []store.Counter{a}, t0+40_000+int64(i), 1, outs); err != nil {
			t.Fatalf("a decision under the reservation: %v", err)
		}
	}
	if next.hook != nil {
		t.Fatalf("no reservation in 1000 decisions after %d calls", calls)
	}
	for i, c := range []store.Counter{a, b} {
		if d := decide(t, s, []store.Counter{c}, t0+50_000, 1); !d.Allowed {
			t.Errorf("set %d after the reservation: %+v", i, d)
		}
	}
}
