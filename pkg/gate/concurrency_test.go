package gate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// inFlightJSON admits 10 requests in flight, a slot held at most a 1 s lease.
const inFlightJSON = `{"id": "%s", "rules": [{"name": "in-flight", "algorithm": "concurrency", "limit": 10, "lease": "1s"},
  {"name": "minute", "algorithm": "fixed_window", "limit": 100000, "period": "1m"}]}`

// inFlight is a gate over counters with the in-flight tenant, whose clock is the real
// one moved by *skew.
type inFlight struct {
	g    *gate.Gate
	key  string
	skew atomic.Int64 // µs added to the real clock
}

func newInFlight(t *testing.T, counters store.Counters, budget time.Duration) *inFlight {
	tenants := memory.NewTenants()
	id := uniqueID(t, "conc")
	tn, err := tenant.Decode([]byte(fmt.Sprintf(inFlightJSON, id)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(context.Background(), tn); err != nil {
		t.Fatal(err)
	}
	f := &fixture{tenants: tenants}
	c := &inFlight{}
	c.key, _ = f.addKey(t, id)
	clock := alignedClock()
	c.g, err = gate.New(gate.Config{Tenants: tenants, Counters: counters, LatencyBudget: budget, ReservationSecret: secret,
		Now: func() int64 { return clock() + c.skew.Load() }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// check sends one request; failedOver counts the answers of the fail mode (a store
// slower than the budget on a loaded machine), which admit nothing.
func (c *inFlight) check(t *testing.T, failedOver *atomic.Int64) gate.Result {
	res, err := c.g.Check(context.Background(), gate.Request{APIKey: c.key, Method: "GET", Resource: "/"})
	if err != nil {
		t.Errorf("check: %v", err)
	}
	if res.FailedClosed {
		failedOver.Add(1)
	}
	return res
}

// TestConcurrencyNeverOverTheLimit: 3 groups of 32 goroutines (the processes of a
// fleet) each send requests that hold their slot while they work for a random 1 to 5
// ms, then settle, against a concurrency rule of 10: the peak of requests in flight,
// counted from the allowed answer to the settle, never passes 10. Then a group that
// dies holding 10 slots (it never settles) blocks every request until its lease ends,
// and after the lease plus its quantum all 10 slots are free again. A first round,
// under a budget of 10 s, warms the service up (a fresh DynamoDB Local answered most
// of its first requests with the fail mode: peak 1 in flight, 17 served, 82 failed
// over), and a round that the fail mode answered half of is run again, twice at most;
// every round must stay within the 10 slots.
func TestConcurrencyNeverOverTheLimit(t *testing.T) {
	forEachSettler(t, func(t *testing.T, counters store.Counters, budget time.Duration, callers func(int) int) {
		n := callers(3 * 32)
		newInFlight(t, counters, modelWarmBudget).round(t, n)
		c := newInFlight(t, counters, budget)
		var r inFlightRound
		for attempt := 1; attempt == 1 || 2*r.failedOver > int64(10*n) && attempt <= 3; attempt++ {
			r = c.round(t, n)
			t.Logf("round %d: %d requests served, peak %d in flight, %d answered by the fail mode", attempt, r.served, r.peak, r.failedOver)
			if r.peak > 10 {
				t.Fatalf("peak %d in flight, want at most 10", r.peak)
			}
		}
		if r.peak < 2 || r.served < 10 {
			t.Fatalf("peak %d in flight (%d served), want the rule used", r.peak, r.served)
		}
		checkDeadHolder(t, c)
	})
}

// inFlightRound is what one round of requests saw: the peak of requests in flight,
// those served and the fail mode's answers.
type inFlightRound struct{ peak, served, failedOver int64 }

// round runs callers goroutines that each send 10 requests: an allowed one holds its
// slot while it works for a random 1 to 5 ms, then settles.
func (c *inFlight) round(t *testing.T, callers int) inFlightRound {
	var now, peak, served, failedOver atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range 10 {
				res := c.check(t, &failedOver)
				if !res.Decision.Allowed {
					continue
				}
				n := now.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(time.Duration(1+rand.IntN(5)) * time.Millisecond) // the request's work
				now.Add(-1)
				served.Add(1)
				c.settle(t, res.Reservation.ID)
			}
		})
	}
	wg.Wait()
	return inFlightRound{peak.Load(), served.Load(), failedOver.Load()}
}

// settle settles reservation id at its cost, 1. A store failure changes nothing, and
// is tried again as a client would, twice at most (a loaded DynamoDB Local ran past
// the settle's 2 s, or out of its attempts on a contended item): the reservation is
// settled at most once, so a retry after an attempt whose reply was lost may find it
// already settled.
func (c *inFlight) settle(t *testing.T, id string) {
	for attempt := range 3 {
		r, err := c.g.Settle(context.Background(), id, 1)
		switch {
		case err != nil:
			t.Logf("settle, attempt %d: %v", attempt+1, err)
			continue
		case r.Status != gate.SettleSettled && (attempt == 0 || r.Status != gate.SettleAlreadySettled):
			t.Errorf("settle: %+v", r)
		}
		return
	}
	t.Errorf("settle %s: 3 attempts failed", id)
}

// checkDeadHolder takes the 10 slots and never settles them (a process killed while
// serving): an 11th request is refused until the lease, and after the lease and its
// quantum (1 s + 62.5 ms, on the gate's clock) 10 requests are in flight again.
func checkDeadHolder(t *testing.T, c *inFlight) {
	var failedOver atomic.Int64
	held := 0
	var refused []string
	for range 10 {
		if res := c.check(t, &failedOver); res.Decision.Allowed {
			held++
		} else {
			refused = append(refused, fmt.Sprintf("%s %q %+v", res.Status, res.Reason, res.Decision))
		}
	}
	if eleventh := c.check(t, &failedOver); held != 10 || eleventh.Decision.Allowed || failedOver.Load() > 0 {
		t.Fatalf("%d slots taken (refused: %v), then an 11th %s: want 10 and a refusal", held, refused, eleventh.Status)
	}
	quantum := (time.Second + limiter.LeaseQuanta*time.Microsecond - 1) / limiter.LeaseQuanta
	c.skew.Add((time.Second + quantum).Microseconds())
	for i := range 10 {
		if !c.check(t, &failedOver).Decision.Allowed {
			t.Fatalf("after the lease: request %d refused, want 10 slots free", i+1)
		}
	}
}
