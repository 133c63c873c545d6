package storetest

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// debtRules are counters whose buckets have fractional emission intervals (a period
// that the limit does not divide) and whose lease 16 does not divide, for charges and
// refunds that leave fractions and debts.
var debtRules = [][]string{
	{`{"name": "tokens", "algorithm": "token_bucket", "limit": 7, "period": "1s", "burst": 9}`,
		`{"name": "fixed", "algorithm": "fixed_window", "limit": 30, "period": "700ms"}`},
	{`{"name": "queue", "algorithm": "leaky_bucket", "limit": 13, "period": "1s", "burst": 11}`,
		`{"name": "sliding", "algorithm": "sliding_window", "limit": 25, "period": "333ms"}`,
		`{"name": "slots", "algorithm": "concurrency", "limit": 4, "lease": "1.000007s"}`},
	{`{"name": "log", "algorithm": "sliding_log", "limit": 20, "period": "1s"}`},
}

// maxDeltaRules are counters without buckets, charged store.MaxDelta.
var maxDeltaRules = [][]string{
	{`{"name": "log", "algorithm": "sliding_log", "limit": 20, "period": "1s"}`,
		`{"name": "fixed", "algorithm": "fixed_window", "limit": 30, "period": "700ms"}`},
	{`{"name": "sliding", "algorithm": "sliding_window", "limit": 25, "period": "333ms"}`,
		`{"name": "slots", "algorithm": "concurrency", "limit": 4, "lease": "1.000007s"}`},
}

// RunSettleDebt replays traces on st (a store.Settler) against pkg/limiter in which
// every allowed request is settled at once or with the next one, for 0 to 4 times its
// cost, over buckets with fractional emission intervals; then charges of 10^10 (buckets
// included) and of store.MaxDelta (windows and logs) put counters deep in debt, and
// the decisions after them must still be the limiter's.
func RunSettleDebt(t *testing.T, st store.Counters) {
	s := settler(t, st)
	for seed := range uint64(2) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { replayDebt(t, st, s, debtRules, seed, 1e10) })
	}
	t.Run("MaxDelta", func(t *testing.T) { replayDebt(t, st, s, maxDeltaRules, 2, store.MaxDelta) })
	t.Run("ReleasedFirst", func(t *testing.T) { testReleasedFirst(t, st, s) })
}

// testReleasedFirst: when the oldest slot is freed, a denial's retry after is when the
// oldest entry still holding one expires, not the emptied entry.
func testReleasedFirst(t *testing.T, st store.Counters, s store.Settler) {
	set := Set(t, nil, `{"name": "slots", "algorithm": "concurrency", "limit": 2, "lease": "1s"}`)
	d := &debtTrace{t: t, st: st, s: s, cs: []store.Counter{{Key: Key(t, "k"), Set: set}}}
	d.ref = newStates(d.cs)
	t0 := Trace(90, 1, 1, Burst)[0].At
	for i, at := range []int64{t0, t0 + 100_000} {
		if !d.decide(i, Request{At: at, Cost: 1}) {
			t.Fatalf("request %d denied, want allowed", i)
		}
	}
	d.settle(store.Settlement{ID: randomID(), At: t0, Now: t0 + 150_000, Expires: t0 + 10_000_000})
	if !d.decide(2, Request{At: t0 + 200_000, Cost: 1}) || d.decide(3, Request{At: t0 + 300_000, Cost: 1}) {
		t.Fatal("want the third request allowed in the freed slot and the fourth denied")
	}
}

// debtTrace decides, settles and compares; the last allowed request is charged big.
type debtTrace struct {
	t      *testing.T
	st     store.Counters
	s      store.Settler
	cs     []store.Counter
	ref    [][]limiter.State
	prefix string
}

func replayDebt(t *testing.T, st store.Counters, s store.Settler, rules [][]string, seed uint64, big int64) {
	d := &debtTrace{t: t, st: st, s: s, cs: newCounters(t, "d", rules), prefix: randomID()}
	d.ref = newStates(d.cs)
	rng := mrand.New(mrand.NewPCG(seed, 11))
	trace := Trace(seed+80, 300, 4, Burst)
	var pending *store.Settlement
	for i, r := range trace {
		if pending != nil {
			pending.Now = max(r.At, pending.At)
			d.settle(*pending)
			pending = nil
		}
		if !d.decide(i, r) {
			continue
		}
		settle := store.Settlement{ID: fmt.Sprintf("%s-%d", d.prefix, i), At: r.At, Now: r.At, Expires: r.At + 60_000_000, Delta: rng.Int64N(4*r.Cost+1) - r.Cost}
		if i > len(trace)*9/10 && big > 0 {
			settle.Delta, big = big, 0
		}
		if rng.IntN(2) == 0 {
			d.settle(settle)
		} else {
			pending = &settle
		}
	}
}

// decide decides request i through the store and the limiter, requiring the same
// decisions, and reports whether it was allowed.
func (d *debtTrace) decide(i int, r Request) bool { return decideBoth(d.t, d.st, d.cs, d.ref, i, r) }

func (d *debtTrace) settle(s store.Settlement) {
	settleStates(d.cs, d.ref, s)
	if applied, err := d.s.Settle(context.Background(), d.cs, s); err != nil || !applied {
		d.t.Fatalf("settling %+v: applied %v, %v", s, applied, err)
	}
}

// RunSettleOnce settles one reservation from many goroutines at once on st (a
// store.Settler), at real instants: exactly one call applies, and the counters show
// one refund and one slot freed, beside another reservation that stays held.
func RunSettleOnce(t *testing.T, st store.Counters) {
	s := settler(t, st)
	ctx := context.Background()
	set := Set(t, nil, `{"name": "day", "algorithm": "fixed_window", "limit": 100, "period": "24h"}`,
		`{"name": "inflight", "algorithm": "concurrency", "limit": 5, "lease": "60s"}`)
	cs := []store.Counter{{Key: Key(t, "a"), Set: set}, {Key: Key(t, "b"), Set: set}}
	var at int64
	for range 2 { // two reservations of cost 10 on both counters
		at = limiter.Micros(time.Now())
		if err := st.Decide(ctx, cs, at, 10, make([]limiter.Decision, 2)); err != nil {
			t.Fatal(err)
		}
	}
	settle := store.Settlement{ID: randomID(), At: at, Expires: at + 60_000_000, Delta: -10}
	const callers = 32
	var applied atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range callers {
		wg.Go(func() {
			<-start
			one := settle
			one.Now = max(limiter.Micros(time.Now()), one.At)
			ok, err := s.Settle(ctx, cs, one)
			if err != nil {
				t.Error(err)
			}
			if ok {
				applied.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := applied.Load(); n != 1 {
		t.Fatalf("%d of %d concurrent settles of one id applied, want 1", n, callers)
	}
	outs := make([]limiter.Outcome, 2)
	for _, c := range cs {
		if _, err := st.Peek(ctx, c.Key, set, limiter.Micros(time.Now()), outs); err != nil || outs[0].Remaining != 90 || outs[1].Remaining != 4 {
			t.Fatalf("%s after the settles: %+v, %v; want 90 remaining of the day and 4 free slots", c.Key, outs, err)
		}
	}
}
