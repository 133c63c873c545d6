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
)

// heldNext decides in Counters, each call first waiting, when hold is set, for it to
// close or for the caller's deadline: a store that applies a call the caller gave up
// on (the caller gets its context's error).
type heldNext struct {
	store.Counters
	hold chan struct{}
}

func (h *heldNext) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if h.hold == nil {
		return h.Counters.Decide(ctx, cs, now, cost, outs)
	}
	select {
	case <-h.hold:
		return h.Counters.Decide(ctx, cs, now, cost, outs)
	case <-ctx.Done():
		h.Counters.Decide(context.WithoutCancel(ctx), cs, now, cost, outs)
		return ctx.Err()
	}
}

// TestAbandonedReservationIsTheLease: a reservation that Next answers after the
// request's deadline (the request gets the error, its fail mode) is still the
// counter's lease: the next request is admitted from it without another call, so the
// units Next counted are not lost (a regression test: the reservation was made under
// the request's deadline, and units Next applied after it were never spent).
func TestAbandonedReservationIsTheLease(t *testing.T) {
	next := &heldNext{Counters: memory.NewCounters(memory.CountersConfig{})}
	s := hotcounter.New(next, hotcounter.Config{Threshold: 1, Sleep: noSleep})
	c := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 1000, "period": "1m"}`)
	for i := range 2 { // hot at once: a rate of 4 a second is over the threshold of 1
		decide(t, s, []store.Counter{c}, t0+int64(i)*1000, 1)
	}
	before := s.Stats()
	next.hold = make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	out := make([]limiter.Decision, 1)
	if err := s.Decide(ctx, []store.Counter{c}, t0+2000, 1, out); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a reservation past the deadline: %v, want the deadline's error", err)
	}
	close(next.hold)
	if d := decide(t, s, []store.Counter{c}, t0+3000, 1); !d.Allowed {
		t.Fatalf("after the abandoned reservation: %+v", d)
	}
	if st := s.Stats(); st.Reservations != before.Reservations+1 || st.Calls != before.Calls+1 || st.Lost != 0 {
		t.Fatalf("%+v, before the deadline %+v: want the abandoned reservation to be the lease (one more call, nothing lost)", st, before)
	}
}
