package hotcounter_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestConformanceCold: with the hot mode out of reach, the decorator on the memory
// store passes the conformance suite and the exactness checks unchanged.
func TestConformanceCold(t *testing.T) {
	s := hotcounter.New(memory.NewCounters(memory.CountersConfig{}), hotcounter.Config{Threshold: math.MaxInt64})
	storetest.RunCounters(t, s, storetest.CountersOptions{})
	storetest.ExactnessInProcess(t, hotcounter.New(memory.NewCounters(memory.CountersConfig{}), hotcounter.Config{Threshold: math.MaxInt64}))
	if st := s.Stats(); st.Reservations != 0 || st.Calls != st.Decisions {
		t.Fatalf("cold: %+v, want one Next call per decision and no reservation", st)
	}
}

// TestColdPassesThrough: with the defaults, counters below the threshold (20
// decisions a second) are decided by Next alone, one call per decision, exactly as
// limiter.DecideAll decides them, every field of every counter.
func TestColdPassesThrough(t *testing.T) {
	s, _ := newMemory()
	cs := []store.Counter{
		counter(t, "tenant", `{"name": "b", "algorithm": "token_bucket", "limit": 15, "period": "1s", "burst": 20}`,
			`{"name": "d", "algorithm": "fixed_window", "limit": 300, "period": "day"}`),
		counter(t, "key", `{"algorithm": "sliding_window", "limit": 12, "period": "1s"}`),
	}
	sets := []*limiter.Set{cs[0].Set, cs[1].Set}
	ref := [][]limiter.State{cs[0].Set.NewStates(), cs[1].Set.NewStates()}
	rng := rand.New(rand.NewPCG(4, 4))
	want, got := make([]limiter.Decision, 2), make([]limiter.Decision, 2)
	const n = 400
	for i := range n {
		at, cost := t0+int64(i)*50_000, 1+rng.Int64N(3)
		if _, err := limiter.DecideAll(sets, ref, at, cost, want); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(context.Background(), cs, at, cost, got); err != nil {
			t.Fatal(err)
		}
		if got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("request %d: decided %+v, the limiter %+v", i, got, want)
		}
	}
	if st := s.Stats(); st.Calls != n || st.Reservations != 0 {
		t.Fatalf("%+v: want %d Next calls and no reservation", st, n)
	}
}

// TestHotByRate: a counter this instance sees at 200 decisions a second turns hot
// within a fraction of a second; from then on it writes about once per lease (a tenth of
// the decisions at most), and still admits what the limit allows.
func TestHotByRate(t *testing.T) {
	s, next := newMemory()
	c := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 100000, "period": "1m"}`)
	cs := []store.Counter{c}
	for i := range 200 { // the first second
		if d := decide(t, s, cs, t0+int64(i)*5_000, 1); !d.Allowed {
			t.Fatalf("request %d denied: %+v", i, d)
		}
	}
	before := s.Stats()
	if before.Reservations == 0 {
		t.Fatalf("after a second at 200/s the counter is still cold: %+v", before)
	}
	for i := range 800 {
		at := t0 + 1_000_000 + int64(i)*5_000
		if d := decide(t, s, cs, at, 1); !d.Allowed || d.Remaining > 100000 {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	st := s.Stats()
	if calls := st.Calls - before.Calls; calls > 80 {
		t.Fatalf("%d Next calls for 800 hot decisions, want at most 80", calls)
	}
	if u := used(t, next, c, t0+5_000_000); u < 1000 || u > 1000+st.MaxLease {
		t.Fatalf("the window counts %d for 1000 admitted, want between 1000 and 1000 + one lease (%d)", u, st.MaxLease)
	}
}

// TestHotNeverOverAdmits: three instances on one store, offered five times the limit:
// the requests they admit, replayed through the rules alone, are all allowed for the
// windows (a leased unit is spent in the window it was counted in) and for a bucket
// exceed it by at most the lease time's worth of its rate; and they fall short of the
// limit by at most the units the leases held (N x B).
func TestHotNeverOverAdmits(t *testing.T) {
	for _, rule := range []string{
		`{"algorithm": "fixed_window", "limit": 300, "period": "1s"}`,
		`{"algorithm": "sliding_window", "limit": 300, "period": "1s"}`,
		`{"algorithm": "token_bucket", "limit": 300, "period": "1s"}`,
	} {
		t.Run(rule, func(t *testing.T) {
			next := memory.NewCounters(memory.CountersConfig{})
			instances := []*hotcounter.Store{newHot(next), newHot(next), newHot(next)}
			c := counter(t, "tenant", rule)
			var admitted []int64
			const n = 7500 // 1,500 a second for 5 s
			for i := range n {
				at := t0 + int64(i)*666
				if d := decide(t, instances[i%3], []store.Counter{c}, at, 1); d.Allowed {
					admitted = append(admitted, at)
				}
			}
			var nb int64
			for _, s := range instances {
				nb += s.Stats().MaxLease
			}
			over := conforms(t, c.Set, admitted)
			if c.Set.Rule(0).IsBucket() {
				if x := bucketExcess(c.Set.Rule(0), admitted); x > 300*hotcounter.DefaultLeaseTime.Microseconds()/1_000_000 {
					t.Fatalf("the admitted requests exceed the bucket by %d, above L x rate", x)
				}
			} else if over > 0 {
				t.Fatalf("%d of %d admitted requests over the limit", over, len(admitted))
			}
			exact := exactAllowed(t, c.Set, arrivals(n, 666))
			if short := exact - int64(len(admitted)); short < 0 && !c.Set.Rule(0).IsBucket() || short > 5*nb {
				t.Fatalf("admitted %d, one exact limiter %d; want at most 5 windows x N x B = %d fewer", len(admitted), exact, 5*nb)
			}
		})
	}
}

// arrivals is n arrivals gap microseconds apart from t0.
func arrivals(n int, gap int64) []arrival {
	out := make([]arrival, n)
	for i := range out {
		out[i].at = t0 + int64(i)*gap
	}
	return out
}

// TestLeaseEndsWithItsWindow: units leased in one window are not spent in the next;
// the next window's first request reserves afresh, and the unspent units count as lost.
func TestLeaseEndsWithItsWindow(t *testing.T) {
	s, next := newMemory()
	c := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 1000, "period": "1s"}`)
	cs := []store.Counter{c}
	for i := range 190 { // 200/s up to 50 ms before the window ends
		decide(t, s, cs, t0+50_000+int64(i)*5_000, 1)
	}
	inW1 := used(t, next, c, t0)
	held := inW1 - 190
	if held <= 0 {
		t.Fatalf("no lease held at the end of the window (counted %d for 190)", inW1)
	}
	before := s.Stats()
	decide(t, s, cs, t0+1_000_000, 1)
	st := s.Stats()
	if st.Reservations != before.Reservations+1 || st.Lost != before.Lost+held {
		t.Fatalf("the next window's first request: %+v after %+v; want one reservation and %d units lost", st, before, held)
	}
	if u := used(t, next, c, t0+1_000_000); u > st.MaxLease+1 {
		t.Fatalf("the new window counts %d: the old lease leaked into it", u)
	}
}

// TestBucketLeaseLivesTheLeaseTime: a bucket's lease is not spent L or more after it
// was taken.
func TestBucketLeaseLivesTheLeaseTime(t *testing.T) {
	s, _ := newMemory()
	cs := []store.Counter{counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100000, "period": "1s"}`)}
	for i := range 100 {
		decide(t, s, cs, t0+int64(i)*5_000, 1)
	}
	last := t0 + 99*5_000
	before := s.Stats()
	if before.Reservations == 0 {
		t.Fatal("never hot")
	}
	decide(t, s, cs, last+hotcounter.DefaultLeaseTime.Microseconds(), 1)
	if st := s.Stats(); st.Reservations != before.Reservations+1 {
		t.Fatalf("a request a lease time after the last reservation did not reserve: %+v", st)
	}
}

// TestIneligibleStaysCold: rule sets with a sliding log, a leaky bucket or a
// first-request window are never leased, whatever their rate: one Next call per
// decision, decisions equal to the limiter's.
func TestIneligibleStaysCold(t *testing.T) {
	for _, rules := range [][]string{
		{`{"algorithm": "sliding_log", "limit": 50, "period": "1s"}`},
		{`{"algorithm": "leaky_bucket", "limit": 50, "period": "1s", "burst": 20}`},
		{`{"algorithm": "fixed_window", "limit": 50, "period": "1s", "anchor": "first_request"}`},
		{`{"algorithm": "token_bucket", "limit": 500, "period": "1s"}`, `{"algorithm": "sliding_log", "limit": 50, "period": "1s"}`},
	} {
		s, _ := newMemory()
		c := counter(t, "k", rules...)
		ref := c.Set.NewStates()
		for i := range 1000 {
			at := t0 + int64(i)*2_000
			want, _ := c.Set.Decide(ref, at, 1)
			if got := decide(t, s, []store.Counter{c}, at, 1); got != want {
				t.Fatalf("%v, request %d: %+v, the limiter %+v", rules, i, got, want)
			}
		}
		if st := s.Stats(); st.Calls != 1000 || st.Reservations != 0 {
			t.Fatalf("%v: %+v, want 1000 calls and no reservation", rules, st)
		}
	}
}

// TestThrottledColdTurnsHot: a counter below the threshold whose item Next throttles
// (10 writes a second, 40 decisions a second offered) turns hot and writes within the
// capacity; no request is admitted beyond the limit, and past the first second none is
// answered with the error (the gate's fail mode).
func TestThrottledColdTurnsHot(t *testing.T) {
	model := newCapacityStore(memory.NewCounters(memory.CountersConfig{}), 10)
	s := newHot(model)
	c := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 100, "period": "10s"}`)
	var admitted, failed, lateFailed int
	for i := range 400 { // 40/s for 10 s: 400 offered, 100 allowed
		at := t0 + int64(i)*25_000
		outs := make([]limiter.Decision, 1)
		err := s.Decide(context.Background(), []store.Counter{c}, at, 1, outs)
		switch {
		case errors.Is(err, store.ErrThrottled):
			failed++
			if at-t0 > 1_000_000 {
				lateFailed++
			}
		case err != nil:
			t.Fatal(err)
		case outs[0].Allowed:
			admitted++
		}
	}
	st := s.Stats()
	writes, throttled := model.counts()
	t.Logf("%+v; %d writes, %d throttled, %d answered with the error", st, writes, throttled, failed)
	if throttled == 0 || st.Reservations == 0 {
		t.Fatal("the capacity never throttled, or the counter never turned hot")
	}
	if admitted > 100 || admitted < 100-int(st.MaxLease) || lateFailed > 0 || failed > 5 {
		t.Fatalf("admitted %d of 100, %d answered with the error (%d after the first second)", admitted, failed, lateFailed)
	}
}

// TestThrottledUntilTheDeadline: when Next throttles every call, a hot counter's
// throttled reservations are local denials, each waiting twice the last one's wait
// (from 5 ms), until they have been throttled in a row for 5 s; then a decision retries (5, 10, 20, 40 ms apart) while
// its context leaves time, and returns the error (wrapping store.ErrThrottled): the
// caller's fail mode answers. Nothing is admitted.
func TestThrottledUntilTheDeadline(t *testing.T) {
	model := newCapacityStore(memory.NewCounters(memory.CountersConfig{}), 0)
	model.refuse = func([]store.Counter, int64) bool { return true }
	var waits []time.Duration
	s := hotcounter.New(model, hotcounter.Config{Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}})
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100, "period": "1s"}`)
	out := make([]limiter.Decision, 1)
	at, denials, first := t0, 0, int64(0)
	var err error
	for ; denials < 100; denials++ {
		if err = s.Decide(context.Background(), []store.Counter{c}, at, 1, out); err != nil || out[0].Allowed {
			break
		}
		if out[0].RetryAfter <= 0 || out[0].RetryAfter > 200_000 {
			t.Fatalf("local denial %d: %+v: want a RetryAfter within the lease time", denials, out[0])
		}
		if denials == 1 { // the first throttled reservation (after the cold decision)
			first = at
		}
		at += out[0].RetryAfter
		waits = nil
	}
	// The cold decision, then throttled reservations answered as local denials until
	// they have been throttled in a row for 5 s; then the error: each of those calls
	// throttled once.
	st := s.Stats()
	if !errors.Is(err, store.ErrThrottled) || out[0].Allowed || st.Throttled != st.Reservations+1 {
		t.Fatalf("after %d local denials: %v, %+v, %+v: want the throttling error, nothing admitted", denials, err, out[0], st)
	}
	if span := at - first; span < 5_000_000 || span > 5_200_000 {
		t.Fatalf("the error %v after %d µs of throttled reservations: want it once they last 5 s (within one backoff)", err, span)
	}
	if len(waits) != 4 || waits[0] < 5*time.Millisecond || waits[3] < 40*time.Millisecond || slices.Max(waits) >= 60*time.Millisecond {
		t.Fatalf("waits %v, want 4, doubling from 5ms (plus up to a half)", waits)
	}
	waits = nil
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Millisecond)
	defer cancel()
	if err := s.Decide(ctx, []store.Counter{c}, at+1_000_000, 1, out); !errors.Is(err, store.ErrThrottled) || len(waits) > 2 {
		t.Fatalf("with 25ms left: %v after waits %v; want the error after at most 2 waits", err, waits)
	}
}

// TestThrottledColdWithoutTimeToRetry: a cold decision throttled when its context
// leaves no time to retry turns its counter hot and is a local denial with a short
// RetryAfter, as a throttled reservation is, not the throttling error (the fail mode).
// A counter that cannot be leased (a sliding log) still returns the error.
func TestThrottledColdWithoutTimeToRetry(t *testing.T) {
	model := newCapacityStore(memory.NewCounters(memory.CountersConfig{}), 0)
	model.refuse = func([]store.Counter, int64) bool { return true }
	s := hotcounter.New(model, hotcounter.Config{})
	out := make([]limiter.Decision, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond) // fits no 5 ms wait
	defer cancel()
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100, "period": "1s"}`)
	if err := s.Decide(ctx, []store.Counter{c}, t0, 1, out); err != nil || out[0].Allowed || out[0].RetryAfter <= 0 {
		t.Fatalf("throttled cold decision: %v, %+v: want a local denial with a RetryAfter", err, out[0])
	}
	if st := s.Stats(); st.Throttled != 1 || st.LocalDenials != 1 {
		t.Fatalf("%+v: want one throttled call answered as a local denial", st)
	}
	log := counter(t, "log", `{"algorithm": "sliding_log", "limit": 100, "period": "1s"}`)
	if err := s.Decide(ctx, []store.Counter{log}, t0, 1, out); !errors.Is(err, store.ErrThrottled) {
		t.Fatalf("throttled sliding log: %v, %+v: want the throttling error", err, out[0])
	}
}

// TestSaturatedBucketBacksOff: one instance offered ten times a bucket's rate writes
// at most a tenth of its decisions (denied reservations back off, doubling), admits
// within a lease of what one exact limiter admits, and answers local denials with a
// RetryAfter.
func TestSaturatedBucketBacksOff(t *testing.T) {
	s, _ := newMemory()
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100, "period": "1s"}`)
	const n, gap = 3000, 1000 // 1,000/s for 3 s
	var admitted int64
	for i := range n {
		d := decide(t, s, []store.Counter{c}, t0+int64(i)*gap, 1)
		if d.Allowed {
			admitted++
		} else if d.RetryAfter <= 0 {
			t.Fatalf("a denial without RetryAfter: %+v", d)
		}
	}
	st := s.Stats()
	exact := exactAllowed(t, c.Set, arrivals(n, gap))
	if st.Calls > n/10 || admitted > exact || admitted < exact-st.MaxLease-st.Lost {
		t.Fatalf("%+v: %d calls for %d decisions; admitted %d, the exact limiter %d", st, st.Calls, n, admitted, exact)
	}
}

// TestHotAndColdInOneDecision: a hot tenant counter and cold key counters (sliding
// logs, never leased) decided as one. While the tenant's lease has units a decision is
// one Next call (the keys'). A key's denial takes nothing from the tenant's lease (it
// is given back), and the tenant's denial consumes nothing in the key's log: one
// instance admits exactly what one serial limiter would, and the tenant's window
// counts only what was admitted plus the one lease outstanding.
func TestHotAndColdInOneDecision(t *testing.T) {
	s, next := newMemory()
	tenant := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 150, "period": "1m"}`)
	keyRule := func(limit string) string {
		return `{"algorithm": "sliding_log", "limit": ` + limit + `, "period": "1m"}`
	}
	a, b, c := counter(t, "a", keyRule("30")), counter(t, "b", keyRule("100")), counter(t, "c", keyRule("100"))
	admitted := map[string]int64{}
	at := t0
	play := func(n int, keys ...store.Counter) {
		for i := range n {
			at += 5_000 // 200/s: the tenant is hot
			k := keys[i%len(keys)]
			if decide(t, s, []store.Counter{tenant, k}, at, 1).Allowed {
				admitted[k.Key]++
			}
		}
	}
	play(60, a, b) // warm up: a and b each 30 (a's log is then full)
	before := s.Stats()
	play(140, a, b) // a denies 70 times; b takes 70 more
	st := s.Stats()
	if admitted[a.Key] != 30 || admitted[b.Key] != 100 {
		t.Fatalf("a admitted %d (its log holds 30), b %d (100)", admitted[a.Key], admitted[b.Key])
	}
	if calls := st.Calls - before.Calls; calls > 140+2*(st.Reservations-before.Reservations) || st.Reservations == before.Reservations && calls != 140 {
		t.Fatalf("140 decisions took %d Next calls (%d reservations)", calls, st.Reservations-before.Reservations)
	}
	play(100, c) // the tenant has 20 left
	if admitted[c.Key] != 20 {
		t.Fatalf("c admitted %d; the tenant's 150 minus 130 leaves 20", admitted[c.Key])
	}
	if u := used(t, next, c, at); u != 20 {
		t.Fatalf("c's log counts %d for 20 admitted: the tenant's denials consumed in it", u)
	}
	if u := used(t, next, tenant, at); u != 150 || s.Stats().Lost != 0 {
		t.Fatalf("the tenant's window counts %d, %d units lost; want 150 and none", u, s.Stats().Lost)
	}
}

// TestResetAndRuleEdits: Reset forgets the lease (the next request reserves from the
// fresh state); a reloaded set with the same rules keeps it; edited rules drop it.
func TestResetAndRuleEdits(t *testing.T) {
	s, _ := newMemory()
	rule := `{"algorithm": "fixed_window", "limit": 100000, "period": "1h"}`
	c := counter(t, "tenant", rule)
	at := t0
	warm := func(c store.Counter) {
		for range 100 {
			at += 5_000
			decide(t, s, []store.Counter{c}, at, 1)
		}
	}
	reservations := func() int64 { return s.Stats().Reservations }
	warm(c)
	n := reservations()
	reloaded := store.Counter{Key: c.Key, Set: storetest.Set(t, nil, rule)}
	decide(t, s, []store.Counter{reloaded}, at+1, 1)
	if reservations() != n {
		t.Fatal("a reloaded set with the same rules dropped the lease")
	}
	edited := store.Counter{Key: c.Key, Set: storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 90000, "period": "1h"}`)}
	decide(t, s, []store.Counter{edited}, at+2, 1)
	if reservations() != n+1 {
		t.Fatal("edited rules kept the lease reserved under the old ones")
	}
	if err := s.Reset(context.Background(), c.Key); err != nil {
		t.Fatal(err)
	}
	d := decide(t, s, []store.Counter{edited}, at+3, 1)
	if reservations() != n+1 || d.Remaining != 89999 {
		t.Fatalf("after Reset: %+v; want a cold decision on a fresh counter (89999 remaining)", d)
	}
}

// TestConcurrentHotCounter: 48 goroutines of one instance at one frozen instant on a
// window of 100: never more than 100 admitted, and short of it by at most the lease
// still held (run with -race).
func TestConcurrentHotCounter(t *testing.T) {
	s, next := newMemory()
	c := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 100, "period": "1m"}`)
	results := make(chan int64, 48)
	for range 48 {
		go func() {
			var n int64
			for range 4 {
				outs := make([]limiter.Decision, 1)
				if err := s.Decide(context.Background(), []store.Counter{c}, t0, 1, outs); err == nil && outs[0].Allowed {
					n++
				}
			}
			results <- n
		}()
	}
	var admitted int64
	for range 48 {
		admitted += <-results
	}
	counted := used(t, next, c, t0)
	if admitted > 100 || counted != 100 || counted-admitted > s.Stats().MaxLease {
		t.Fatalf("admitted %d, the window counts %d, largest lease %d", admitted, counted, s.Stats().MaxLease)
	}
}

// TestBadInputChangesNothing: bad counters are input errors before anything is
// decided or leased.
func TestBadInputChangesNothing(t *testing.T) {
	s, _ := newMemory()
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`)
	outs := make([]limiter.Decision, 2)
	for _, bad := range []struct {
		cs   []store.Counter
		cost int64
	}{
		{[]store.Counter{c, c}, 1},
		{[]store.Counter{c}, 11},
		{[]store.Counter{{Key: "", Set: c.Set}}, 1},
	} {
		if err := s.Decide(context.Background(), bad.cs, t0, bad.cost, outs[:len(bad.cs)]); err == nil {
			t.Fatalf("%+v cost %d: no error", bad.cs, bad.cost)
		}
	}
	if st := s.Stats(); st != (hotcounter.Stats{}) {
		t.Fatalf("bad input did work: %+v", st)
	}
}

// TestRetryableErrors: an error Config.Retryable names (one that did nothing, as the
// dynamodb store's ErrContention) is retried like a throttle; others are returned.
func TestRetryableErrors(t *testing.T) {
	errBusy := errors.New("busy")
	model := newCapacityStore(memory.NewCounters(memory.CountersConfig{}), 0)
	fails := 1
	model.refuse = func([]store.Counter, int64) bool { fails--; return fails >= 0 }
	flaky := &erring{capacityStore: model, err: errBusy}
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100, "period": "1s"}`)
	out := make([]limiter.Decision, 1)
	plain := newHot(flaky)
	if err := plain.Decide(context.Background(), []store.Counter{c}, t0, 1, out); !errors.Is(err, errBusy) {
		t.Fatalf("without Retryable: %v, want the error", err)
	}
	fails = 1
	retrying := hotcounter.New(flaky, hotcounter.Config{Sleep: noSleep, Retryable: func(err error) bool { return errors.Is(err, errBusy) }})
	if err := retrying.Decide(context.Background(), []store.Counter{c}, t0, 1, out); err != nil || !out[0].Allowed {
		t.Fatalf("with Retryable: %+v, %v; want the retry's decision", out[0], err)
	}
}

// erring answers err instead of the capacity model's throttling error.
type erring struct {
	*capacityStore
	err error
}

func (e *erring) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	err := e.capacityStore.Decide(ctx, cs, now, cost, outs)
	if errors.Is(err, store.ErrThrottled) {
		return e.err
	}
	return err
}
