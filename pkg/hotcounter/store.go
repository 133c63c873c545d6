package hotcounter

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/edgelimit/edgelimit/internal/wait"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

var (
	_ store.Counters    = (*Store)(nil)
	_ store.RuleChecker = (*Store)(nil)
)

// Defaults of Config.
const (
	DefaultThreshold  = 50
	DefaultLeaseTime  = 200 * time.Millisecond
	DefaultMaxEntries = 100_000
)

// Config configures a Store. Its zero value means the defaults written beside each field.
type Config struct {
	// Threshold is the rate, in decisions per second on one counter seen by this
	// instance (on the instants passed to Decide, never the wall clock), above which the
	// counter turns hot; 0 means DefaultThreshold (50).
	Threshold int64
	// LeaseTime is L of the package doc: a lease holds what this instance spends in L/2
	// at its recent rate, and a lease of a rule set with a token bucket lives at most L;
	// 0 means DefaultLeaseTime (200ms).
	LeaseTime time.Duration
	// MaxEntries bounds the counters this instance remembers; 0 means DefaultMaxEntries.
	MaxEntries int
	// Sleep waits d before a throttled call is retried, or returns ctx's error first;
	// nil means a timer. Tests inject one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Retryable reports whether an error of Next, besides store.ErrThrottled, means
	// that the call did nothing and may be retried like a throttled one (the dynamodb
	// store's ErrContention); nil means none.
	Retryable func(error) bool
}

// params are a Config's values in microseconds, defaults filled in.
type params struct {
	threshold int64
	leaseTime int64 // L
	backoff   int64 // the first wait after a denied reservation
	sleep     func(ctx context.Context, d time.Duration) error
	retryable func(error) bool
}

// Store is a store.Counters in front of another (Next): cold counters go straight
// through, hot ones are served from instance-local leases; see the package doc. Create
// it with New; it is safe for concurrent use.
type Store struct {
	next         store.Counters
	refunder     Refunder // next, when it is one
	p            params
	table        *table
	stats        stats
	held         held         // the counters holding leases that may be given back
	nextGiveBack atomic.Int64 // no give-back of idle leases before
}

// New returns a Store in front of next.
func New(next store.Counters, cfg Config) *Store {
	p := params{threshold: cfg.Threshold, leaseTime: cfg.LeaseTime.Microseconds(), sleep: cfg.Sleep, retryable: cfg.Retryable}
	if p.threshold <= 0 {
		p.threshold = DefaultThreshold
	}
	if p.leaseTime <= 0 {
		p.leaseTime = DefaultLeaseTime.Microseconds()
	}
	p.backoff = max(p.leaseTime/4, 1)
	if p.sleep == nil {
		p.sleep = wait.Sleep
	}
	if p.retryable == nil {
		p.retryable = func(error) bool { return false }
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	r, _ := next.(Refunder)
	return &Store{next: next, refunder: r, p: p, table: newTable(cfg.MaxEntries)}
}

// Next returns the store the Store is in front of.
func (s *Store) Next() store.Counters { return s.next }

// CheckRule is the wrapped store's (store.RuleChecker): the decorator honours whatever
// it does, so config it cannot honour is still refused when it is written.
func (s *Store) CheckRule(r limiter.Rule) error { return store.CheckRule(s.next, r) }

// Throttle retries: a call refused with store.ErrThrottled (or a Retryable error)
// did nothing, so it is retried after 5, 10, 20, 40, 40, ... ms (plus up to a half,
// spread by the instant) for as long as the context's deadline leaves twice the wait,
// or 4 times without a deadline; then the error is returned.
const (
	retryBase    = 5 * time.Millisecond
	retryMost    = 40 * time.Millisecond
	retriesNoDue = 4
)

// Decide decides a request of cost against the counters of cs at now; see
// store.Counters and, for what a hot counter's Decision holds, the package doc.
func (s *Store) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	var buf [store.MaxCounters]*counter
	es := buf[:len(cs)]
	for i, c := range cs {
		es[i] = s.table.get(c.Key, now, &s.stats)
		es[i].observe(c.Set, now, cost, &s.p, &s.stats)
	}
	at := now
	for attempt := 0; ; attempt++ {
		err := s.decide(ctx, cs, es, at, cost, outs)
		if err == nil {
			s.stats.decisions.Add(1)
			s.giveBackIdle(ctx, at)
			return nil
		}
		if !errors.Is(err, store.ErrThrottled) && !s.p.retryable(err) || attempt == retriesNoDue && !hasDeadline(ctx) {
			return s.throttledDenial(err, cs, es, at, outs)
		}
		wait := min(retryBase<<min(attempt, 8), retryMost)
		wait += wait * time.Duration(at%256) / 512
		if !fits(ctx, wait) || s.p.sleep(ctx, wait) != nil {
			return s.throttledDenial(err, cs, es, at, outs)
		}
		at = min(at+wait.Microseconds(), limiter.MaxTime)
	}
}

// throttledDenial answers a decision whose retries ran out on a throttle as a local
// denial when every counter of it is hot at now (a throttled cold decision turns its
// counters hot) and none is in an outage: the item is over its capacity, which is
// backpressure, as for a throttled reservation, not a store failure. Otherwise it
// returns err, and the caller's fail mode answers.
func (s *Store) throttledDenial(err error, cs []store.Counter, es []*counter, now int64, outs []limiter.Decision) error {
	if !errors.Is(err, store.ErrThrottled) {
		return err
	}
	for _, e := range es {
		if !e.isHot(now) || e.inOutage(now) {
			return err
		}
	}
	unevaluated(cs, outs, now)
	outs[0].Allowed, outs[0].Remaining, outs[0].RetryAfter = false, 0, throttleWait
	s.stats.localDenials.Add(1)
	s.stats.decisions.Add(1)
	return nil
}

func hasDeadline(ctx context.Context) bool { _, ok := ctx.Deadline(); return ok }

// fits reports whether ctx leaves time to wait d and make one more call.
func fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) > 2*d
}

// Peek asks Next: the shared state, in which units leased by any instance count as
// used (the answer is conservative by at most the units leased and not yet spent).
func (s *Store) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	return s.next.Peek(ctx, key, set, now, outs)
}

// Reset resets key in Next and forgets this instance's lease of it.
func (s *Store) Reset(ctx context.Context, key string) error {
	if err := s.next.Reset(ctx, key); err != nil {
		return err
	}
	s.table.drop(key, &s.stats)
	return nil
}

// call is one Next.Decide, counted.
func (s *Store) call(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	s.stats.calls.Add(1)
	err := s.next.Decide(ctx, cs, now, cost, outs)
	if errors.Is(err, store.ErrThrottled) {
		s.stats.throttled.Add(1)
	}
	return err
}

// Stats counts a Store's work since it was created, for metrics, tests and the
// simulation.
type Stats struct {
	Decisions    int64 // Decide calls that returned a decision
	Calls        int64 // Next.Decide calls (each one round trip for a remote Next)
	Reservations int64 // of which reservations of a lease
	Reserved     int64 // units the allowed reservations took
	Denied       int64 // reservations Next denied
	Throttled    int64 // Next.Decide calls refused with store.ErrThrottled
	Leased       int64 // decisions allowed from leases (one per decision, however many hot counters)
	LocalDenials int64 // hot decisions denied locally while backing off
	Lost         int64 // leased units that expired or were dropped unspent
	Returned     int64 // leased units given back unspent (see Refunder)
	MaxLease     int64 // the largest lease taken, in units
}

// Plus returns the counts of s and o together (of several instances): the sums, and
// the larger MaxLease.
func (s Stats) Plus(o Stats) Stats {
	return Stats{Decisions: s.Decisions + o.Decisions, Calls: s.Calls + o.Calls, Reservations: s.Reservations + o.Reservations,
		Reserved: s.Reserved + o.Reserved, Denied: s.Denied + o.Denied, Throttled: s.Throttled + o.Throttled,
		Leased: s.Leased + o.Leased, LocalDenials: s.LocalDenials + o.LocalDenials, Lost: s.Lost + o.Lost,
		Returned: s.Returned + o.Returned, MaxLease: max(s.MaxLease, o.MaxLease)}
}

type stats struct {
	decisions, calls, reservations, reserved, denied, throttled atomic.Int64
	leased, localDenials, lost, maxLease, returned              atomic.Int64
}

func (st *stats) lease(reserved, units int64) {
	st.reserved.Add(reserved)
	for {
		m := st.maxLease.Load()
		if units <= m || st.maxLease.CompareAndSwap(m, units) {
			return
		}
	}
}

// Stats returns the counts so far.
func (s *Store) Stats() Stats {
	st := &s.stats
	return Stats{Decisions: st.decisions.Load(), Calls: st.calls.Load(), Reservations: st.reservations.Load(), Reserved: st.reserved.Load(),
		Denied: st.denied.Load(), Throttled: st.throttled.Load(), Leased: st.leased.Load(),
		LocalDenials: st.localDenials.Load(), Lost: st.lost.Load(), Returned: st.returned.Load(), MaxLease: st.maxLease.Load()}
}
