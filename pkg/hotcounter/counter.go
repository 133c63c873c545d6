package hotcounter

import (
	"slices"
	"sync"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// How long a counter stays hot: after its rate was last seen above the threshold, and
// after Next throttled a decision that included it.
const (
	hotHold      = 1_000_000  // 1 s
	throttleHold = 30_000_000 // 30 s
)

// counter is what this instance knows of one counter: its rate, whether it is hot, and
// its lease. mu guards the fields, never across a call to Next; reserving is held
// during a reservation, so one instance reserves one lease of a counter at a time.
type counter struct {
	mu        sync.Mutex
	reserving chan struct{} // a token: capacity 1
	set       *limiter.Set
	eligible  bool // every rule of set may be leased (see eligible)
	// refundable: set is windows only, so an unspent lease may be given back to Next
	// (see Refunder) while its window lasts.
	refundable bool
	capacity   int64 // the least capacity of set's rules: the largest reservation
	maxWait    int64 // the longest backoff after a denied reservation
	meter      meter
	hotUntil   int64
	lease      lease
	gen        uint64           // bumped by every lease taken
	last       limiter.Decision // Next's last answer on the counter (a reservation's, or a cold decision's)
	retryAt    int64            // no reservation before, after a denial
	denials    int              // consecutive denied reservations
	// throttles counts consecutive throttled reservations (each waits twice the last
	// one's wait, denying locally), the first of them at throttledSince. The lease
	// time is doubled per level (up to maxLevel), a level lost per throttleDecay
	// without a throttle.
	throttles, level             int
	lastThrottle, throttledSince int64
}

func newCounter() *counter { return &counter{reserving: make(chan struct{}, 1)} }

// lease is units reserved in Next at the instant at and not yet spent, usable until
// expires (exclusive).
type lease struct {
	units, expires, at int64
}

// observe records a decision of cost at now, moving to set when it changed, and turns
// the counter hot when its rate is above the threshold.
func (e *counter) observe(set *limiter.Set, now, cost int64, p *params, st *stats) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if set != e.set {
		e.adopt(set, p, st)
	}
	e.meter.add(now, cost)
	if e.eligible {
		if n, _ := e.meter.rate(now); n > p.threshold {
			e.hotUntil = max(e.hotUntil, now+hotHold)
		}
	}
}

// adopt moves to set. A set with the same rules (a tenant reloaded) keeps the lease;
// other rules drop it, since its units were reserved under the old ones.
func (e *counter) adopt(set *limiter.Set, p *params, st *stats) {
	old := e.set
	e.set = set
	if old != nil && limiter.SameRules(old, set) {
		return
	}
	st.lost.Add(e.lease.units)
	e.lease, e.hotUntil, e.last, e.retryAt, e.denials = lease{}, 0, limiter.Decision{}, 0, 0
	e.eligible = eligible(set)
	e.refundable = e.eligible && !slices.ContainsFunc(set.Rules(), limiter.Rule.IsBucket)
	_, e.capacity = leastCapacity(set)
	e.maxWait = maxWait(set, p.leaseTime)
}

// isHot reports whether the counter is served from a lease: it may be, and it is busy,
// was throttled, or holds a lease.
func (e *counter) isHot(now int64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.eligible && (now < e.hotUntil || e.lease.units > 0 && now < e.lease.expires)
}

// throttledCold turns the counter hot after Next throttled a decision that included it.
func (e *counter) throttledCold(now int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eligible {
		e.hotUntil = max(e.hotUntil, now+throttleHold)
		e.level, e.lastThrottle = max(e.level, 1), now
	}
}

// busy turns the counter hot for hotHold, as a rate above the threshold does.
func (e *counter) busy(now int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eligible {
		e.hotUntil = max(e.hotUntil, now+hotHold)
	}
}

// decided records Next's answer to a cold decision, so that a throttled reservation
// knows whether the counter was used up.
func (e *counter) decided(d limiter.Decision) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eligible {
		e.last = d
	}
}

// idle reports whether forgetting the counter loses nothing but its rate: no lease
// holds units or is being reserved, it is not hot, and it saw no decision in the last
// two seconds; e.mu is held.
func (e *counter) idle(now int64) bool {
	return (e.lease.units == 0 || now >= e.lease.expires) && len(e.reserving) == 0 &&
		now >= e.hotUntil && now-e.meter.seen > 2_000_000
}

// eligible reports whether every rule of set may be served from a lease: a unit
// reserved now may be spent at any later instant of the same window (fixed windows not
// anchored to a first request, sliding windows), or within the lease time (token
// buckets). A sliding log would over-admit (an entry spent later leaves the log
// earlier), a leaky bucket's delay needs each request's place in the queue, and a
// first-request window's end is known only to the stored state.
func eligible(set *limiter.Set) bool {
	for i := range set.Len() {
		switch r := set.Rule(i); r.Algorithm {
		case limiter.SlidingWindow, limiter.TokenBucket:
		case limiter.FixedWindow:
			if r.Anchor == limiter.AnchorFirstRequest {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// leastCapacity returns the rule of set with the least capacity, and that capacity.
func leastCapacity(set *limiter.Set) (int, int64) {
	at, c := 0, set.Rule(0).Capacity()
	for i := 1; i < set.Len(); i++ {
		if r := set.Rule(i); r.Capacity() < c {
			at, c = i, r.Capacity()
		}
	}
	return at, c
}

// maxWait bounds the backoff after a denied reservation: the lease time, and a quarter
// of the time any bucket of set takes to refill, so that a bucket never fills up (and
// wastes its refill) while every instance is waiting.
func maxWait(set *limiter.Set, leaseTime int64) int64 {
	w := leaseTime
	for i := range set.Len() {
		if set.Rule(i).IsBucket() {
			_, _, fill, _ := set.Emission(i) // burst x period / limit, rounded down
			w = min(w, fill/4)
		}
	}
	return w
}

// expiry is when a lease reserved at now stops being usable: the end of every window
// of the set (a unit of one window spent in the next would over-admit), and for a set
// with a bucket now + the lease time.
func (e *counter) expiry(now, leaseTime int64) int64 {
	end := limiter.MaxTime + 1
	for i := range e.set.Len() {
		if e.set.Rule(i).IsBucket() {
			end = min(end, now+leaseTime)
			continue
		}
		_, we := e.set.Window(i, now)
		end = min(end, we)
	}
	return end
}

// meterWindow is the span over which a counter's rate is measured: short, so that a
// burst turns a counter hot before its cold writes exhaust the item's capacity.
const meterWindow = 250_000 // 250 ms

// meter estimates a counter's rate on the decisions' own instants, as a sliding window
// counter does: the current window's count plus the previous one's, weighted by the
// part of it still within the last window's span.
type meter struct {
	start                    int64 // the current window's start
	prev, curr, prevU, currU int64 // decisions and units in the previous and current windows
	seen                     int64 // the latest instant seen
}

func (m *meter) roll(now int64) {
	ws := now - now%meterWindow
	switch {
	case ws <= m.start: // the same window, or a clock behind: count it in the current one
	case ws == m.start+meterWindow:
		m.prev, m.prevU, m.curr, m.currU, m.start = m.curr, m.currU, 0, 0, ws
	default:
		m.prev, m.prevU, m.curr, m.currU, m.start = 0, 0, 0, 0, ws
	}
}

func (m *meter) add(now, units int64) {
	m.roll(now)
	m.curr++
	m.currU += units
	m.seen = max(m.seen, now)
}

// rate returns the decisions and units per second over the last window.
func (m *meter) rate(now int64) (decisions, units int64) {
	m.roll(now)
	left := meterWindow - min(max(now-m.start, 0), meterWindow)
	const perSecond = 1_000_000 / meterWindow
	return (m.curr + m.prev*left/meterWindow) * perSecond, (m.currU + m.prevU*left/meterWindow) * perSecond
}
