package upstash

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func TestSettleConformance(t *testing.T) {
	storetest.RunSettle(t, newTestStore(t, nil))
}

func TestSettleDebt(t *testing.T) {
	storetest.RunSettleDebt(t, newTestStore(t, nil))
}

// TestSettleOnce: concurrent settles of one id over one store apply once.
func TestSettleOnce(t *testing.T) {
	storetest.RunSettleOnce(t, newTestStore(t, nil))
}

// TestSettleRequests: a settle over three counters is one HTTP request on a warm script
// cache; a second settle of its id one too (it applies nothing); one at its expiry none.
func TestSettleRequests(t *testing.T) {
	ct := &testenv.CountingTransport{}
	s := newTestStore(t, ct)
	ctx := context.Background()
	set := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 10, "period": "1m"}`,
		`{"name": "c", "algorithm": "concurrency", "limit": 3, "lease": "10s"}`)
	var cs []store.Counter
	for _, name := range []string{"a", "b", "c"} {
		cs = append(cs, store.Counter{Key: storetest.Key(t, name), Set: set})
	}
	at := limiter.Micros(time.Now())
	if err := s.Decide(ctx, cs, at, 2, make([]limiter.Decision, 3)); err != nil {
		t.Fatal(err)
	}
	warm := store.Settlement{ID: "warm-" + strconv.FormatInt(at, 36), At: at, Now: at, Expires: at + 1}
	if _, err := s.Settle(ctx, cs[:1], warm); err != nil { // loads the script
		t.Fatal(err)
	}
	settle := store.Settlement{ID: "s-" + strconv.FormatInt(at, 36), At: at, Now: at + 1, Expires: at + 10_000_000, Delta: -1}
	for i, want := range []bool{true, false} {
		ct.Reset()
		applied, err := s.Settle(ctx, cs, settle)
		if err != nil || applied != want || ct.Count() != 1 {
			t.Fatalf("settle %d: applied %v (%v) in %d requests, want %v in 1", i, applied, err, ct.Count(), want)
		}
	}
	ct.Reset()
	settle.Now, settle.ID = settle.Expires, settle.ID+"x"
	if applied, err := s.Settle(ctx, cs, settle); err != nil || applied || ct.Count() != 0 {
		t.Fatalf("settle at expiry: applied %v (%v) in %d requests, want none", applied, err, ct.Count())
	}
}
