package hotcounter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// Throttled reservations: the first wait, the most doublings of the lease size, and
// how long one doubling lasts once reservations go through again.
const (
	throttleWait = 5_000 // 5 ms, doubled per consecutive throttle
	// throttleOutage is how long a counter's reservations may be throttled in a row,
	// answered as local denials: backpressure from a hot item, which bigger leases and
	// the backoff relieve. A counter throttled for longer than that, with no reservation
	// through since its first throttle, is an outage: the throttling error is returned,
	// and the gate answers the tenant's fail mode.
	throttleOutage = 5_000_000 // 5 s
	maxLevel       = 3
	throttleDecay  = 10_000_000 // 10 s
)

// withdrawal is what one request took from a counter's leases: units from lease gen,
// which a refund may give back, and old units of the lease it replaced, which are lost
// if refunded (their lease has ended).
type withdrawal struct {
	gen        uint64
	units, old int64
}

// take withdraws cost from the counter's lease for a request at now, reserving a new
// lease from Next when this one is short. It returns what it withdrew and the counter's
// Decision; a denial withdraws nothing. The error wraps store.ErrThrottled while
// Next throttles this counter (and nothing says it is used up), or is Next's or ctx's.
//
// When Next denies a reservation but still has what the request needs, and the
// denying rule frees no more before long (a used-up window), take reserves what Next
// has left instead (a second call); under contention for a bucket it backs off,
// leaving the units to the instances that come first.
func (e *counter) take(ctx context.Context, s *Store, c store.Counter, now, cost int64) (withdrawal, limiter.Decision, error) {
	e.mu.Lock()
	w, d, done, err := e.fromLease(c, now, cost, &s.stats)
	e.mu.Unlock()
	if done {
		return w, d, err
	}
	select { // one reservation at a time; the others wait for it, within their deadline
	case e.reserving <- struct{}{}:
	case <-ctx.Done():
		return withdrawal{}, limiter.Decision{}, fmt.Errorf("hotcounter: %q: waiting for a reservation: %w", c.Key, ctx.Err())
	}
	e.mu.Lock()
	if w, d, done, err := e.fromLease(c, now, cost, &s.stats); done { // reserved meanwhile
		e.mu.Unlock()
		<-e.reserving
		return w, d, err
	}
	r := e.plan(c.Set, now, cost, s.p.leaseTime)
	e.mu.Unlock()
	replies := make(chan reply, 1)
	go func() { replies <- e.reserve(context.WithoutCancel(ctx), s, c, r) }()
	select {
	case rp := <-replies:
		return rp.w, rp.d, rp.err
	case <-ctx.Done():
		go e.abandon(replies, now, &s.stats)
		return withdrawal{}, limiter.Decision{}, fmt.Errorf("hotcounter: %q: reserving: %w", c.Key, ctx.Err())
	}
}

// reserveTimeout bounds a reservation that the request which started it no longer
// waits for: its answer still becomes the counter's lease.
const reserveTimeout = time.Second

// reply is a reservation's outcome for the request that started it.
type reply struct {
	w   withdrawal
	d   limiter.Decision
	err error
}

// reserve makes reservation r (holding e.reserving, which it gives back) and settles
// Next's answer into the lease. It runs apart from the request, with its own timeout
// instead of the request's deadline: a reservation that Next applied after the
// request's budget ran out is still the lease of the requests that follow, not units
// lost in the shared state.
func (e *counter) reserve(ctx context.Context, s *Store, c store.Counter, r reservation) reply {
	defer func() { <-e.reserving }()
	ctx, cancel := context.WithTimeout(ctx, reserveTimeout)
	defer cancel()
	d, err := s.reserveCall(ctx, c, r.now, r.want)
	if err == nil && !d.Allowed && d.Remaining >= r.need && d.RetryAfter > r.maxWait {
		r.want = d.Remaining
		d, err = s.reserveCall(ctx, c, r.now, r.want)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	w, d, err := e.settle(r, d, err, s)
	if e.lease.units > 0 && e.refundable {
		s.held.add(e, c.Key)
	}
	return reply{w, d, err}
}

// abandon gives the units a reservation withdrew for a request that stopped waiting
// for it back to the lease.
func (e *counter) abandon(replies <-chan reply, now int64, st *stats) {
	if rp := <-replies; rp.err == nil && rp.d.Allowed {
		e.refund(rp.w, now, st)
	}
}

// fromLease answers from the lease alone when it can (done): cost withdrawn from it, a
// local denial while backing off, or the throttling error; e.mu is held.
func (e *counter) fromLease(c store.Counter, now, cost int64, st *stats) (w withdrawal, d limiter.Decision, done bool, err error) {
	if e.lease.units > 0 && now >= e.lease.expires {
		st.lost.Add(e.lease.units)
		e.lease.units = 0
	}
	switch {
	case e.lease.units >= cost:
		e.lease.units -= cost
		return withdrawal{gen: e.gen, units: cost}, e.answer(now, true), true, nil
	case now < e.retryAt && e.outage(now):
		return withdrawal{}, limiter.Decision{}, true, fmt.Errorf("hotcounter: %q: %w: backing off", c.Key, store.ErrThrottled)
	case now < e.retryAt:
		st.localDenials.Add(1)
		return withdrawal{}, e.answer(now, false), true, nil
	}
	return withdrawal{}, limiter.Decision{}, false, nil
}

// reservation is one planned reservation: want units, need of them for the request
// beside the old units it took from the lease, for set, at now.
type reservation struct {
	set                  *limiter.Set
	now, old, need, want int64
	leaseTime, maxWait   int64
	gen                  uint64
}

// plan takes the lease's last units for the request and sizes the reservation: need
// (what the request still lacks) + B; e.mu is held.
func (e *counter) plan(set *limiter.Set, now, cost, leaseTime int64) reservation {
	leaseTime <<= e.level
	r := reservation{set: set, now: now, old: e.lease.units, leaseTime: leaseTime, maxWait: e.maxWait, gen: e.gen}
	e.lease.units = 0
	r.need = cost - r.old
	r.want = min(r.need+e.size(now, leaseTime), e.capacity)
	return r
}

// settle applies Next's answer d (or err) to reservation r: an allowed one is the new
// lease, less what the request needs; a denial backs off; a throttle backs off too,
// answered as a local denial until the counter's throttles in a row last
// throttleOutage, then as the error. The old units go back to the lease unless the request got them; e.mu is held.
func (e *counter) settle(r reservation, d limiter.Decision, err error, s *Store) (withdrawal, limiter.Decision, error) {
	if !limiter.SameRules(e.set, r.set) { // the rules changed meanwhile: what was reserved under them is lost
		s.stats.lost.Add(r.old)
		if err == nil && d.Allowed {
			s.stats.lost.Add(r.want)
		}
		return withdrawal{}, limiter.Decision{}, errors.New("hotcounter: the counter's rules changed during its reservation")
	}
	if err != nil || !d.Allowed {
		e.giveBack(r, &s.stats)
	}
	defer e.stayHot(r.now)
	switch {
	case err != nil && !errors.Is(err, store.ErrThrottled):
		return withdrawal{}, limiter.Decision{}, err
	case err != nil:
		if e.throttled(r.now); e.outage(r.now) {
			return withdrawal{}, limiter.Decision{}, err
		}
		s.stats.localDenials.Add(1)
		return withdrawal{}, e.answer(r.now, false), nil
	case !d.Allowed:
		e.last, e.throttles = d, 0
		s.stats.denied.Add(1)
		e.denied(r.now, d, &s.p)
		return withdrawal{}, e.answer(r.now, false), nil
	}
	e.last, e.throttles = d, 0
	e.gen++
	e.lease = lease{units: r.want - r.need, expires: e.expiry(r.now, r.leaseTime), at: r.now}
	e.denials, e.retryAt = max(e.denials-1, 0), 0
	if e.level > 0 && r.now-e.lastThrottle > throttleDecay {
		e.level, e.lastThrottle = e.level-1, r.now
	}
	s.stats.lease(r.want, r.want-r.need)
	return withdrawal{gen: e.gen, units: r.need, old: r.old}, e.answer(r.now, true), nil
}

// stayHot keeps a counter that reserves hot for hotHold after its next reservation
// may be made, and for throttleHold while its lease time is raised by throttles; e.mu
// is held. Its rate alone would let it go cold while it is saturated: the gate's
// denial cache answers its denied requests until their retry instant, so the
// decisions that reach it fall below the threshold, and each would then be a cold
// write within the request's budget to the item that DynamoDB throttles (a regression
// test: TestSaturatedCounterStaysHot). A throttled counter is kept hot as a throttled
// cold decision keeps it, so that traffic coming back after an idle gap is not a burst
// of cold writes to that item (TestThrottledCounterStaysHotThroughAGap).
func (e *counter) stayHot(now int64) {
	hold := int64(hotHold)
	if e.level > 0 {
		hold = throttleHold
	}
	e.hotUntil = max(e.hotUntil, max(now, e.retryAt)+hold)
}

// giveBack returns the old units a failed reservation took from the lease, when that
// lease is still the current one and in force.
func (e *counter) giveBack(r reservation, st *stats) {
	if r.gen == e.gen && r.now < e.lease.expires {
		e.lease.units += r.old
		return
	}
	st.lost.Add(r.old)
}

// reserveCall is one Next decision of want units on c alone.
func (s *Store) reserveCall(ctx context.Context, c store.Counter, now, want int64) (limiter.Decision, error) {
	s.stats.reservations.Add(1)
	cs := [1]store.Counter{c}
	var out [1]limiter.Decision
	err := s.call(ctx, cs[:], now, want, out[:])
	return out[0], err
}

// size is B: the units this instance spends on the counter in half of leaseTime at its
// recent rate, from 1 to a tenth of the counter's capacity.
func (e *counter) size(now, leaseTime int64) int64 {
	_, units := e.meter.rate(now)
	b := (units*leaseTime/2 + 999_999) / 1_000_000
	return min(max(b, 1), max(e.capacity/10, 1))
}

// denied backs off after a denied reservation: no new one before Next's RetryAfter,
// nor before a wait that doubles with every consecutive denial, up to maxWait.
func (e *counter) denied(now int64, d limiter.Decision, p *params) {
	e.denials++
	wait := min(p.backoff<<min(e.denials-1, 30), e.maxWait)
	e.retryAt = now + max(d.RetryAfter, wait, 1)
}

// throttled backs off after a throttled reservation, denying locally until the next
// one: 5 ms, doubled per consecutive throttle up to maxWait, since the item's
// capacity refills at its own pace, not at the budget's. It also makes later leases
// larger.
func (e *counter) throttled(now int64) {
	e.level = min(e.level+1, maxLevel)
	e.lastThrottle = now
	if e.throttles == 0 {
		e.throttledSince = now
	}
	e.throttles++
	e.retryAt = now + min(throttleWait<<min(e.throttles-1, 30), max(e.maxWait, 1))
}

// inOutage is outage with e.mu taken.
func (e *counter) inOutage(now int64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.outage(now)
}

// outage reports whether the counter's reservations have been throttled in a row for
// throttleOutage or longer at now: the store is not relieved by backing off.
func (e *counter) outage(now int64) bool {
	return e.throttles > 0 && now-e.throttledSince >= throttleOutage
}

// answer is the counter's Decision for a request decided from its lease: Next's answer
// to the last reservation, with the lease's units added to Remaining; a denial's
// RetryAfter is the wait until the next reservation.
func (e *counter) answer(now int64, allowed bool) limiter.Decision {
	d := e.last
	d.Allowed, d.Delay, d.RetryAfter = allowed, 0, 0
	d.Remaining = max(d.Remaining, 0) + e.lease.units
	if !allowed {
		d.RetryAfter = max(e.retryAt-now, 1)
	}
	return d
}

// refund gives back what a request withdrew, when its lease is still the current one.
func (e *counter) refund(w withdrawal, now int64, st *stats) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st.lost.Add(w.old)
	if w.gen == e.gen && now < e.lease.expires {
		e.lease.units += w.units
		return
	}
	st.lost.Add(w.units)
}
