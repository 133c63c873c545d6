package hotcounter

import (
	"context"
	"errors"
	"slices"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// decide makes one attempt at a decision: straight through Next when every counter is
// cold, else the hot counters from their leases and the cold ones in one Next call.
func (s *Store) decide(ctx context.Context, cs []store.Counter, es []*counter, now, cost int64, outs []limiter.Decision) error {
	var buf [store.MaxCounters]bool
	hot := buf[:len(cs)]
	for i, e := range es {
		hot[i] = e.isHot(now)
	}
	if !slices.Contains(hot, true) {
		err := s.call(ctx, cs, now, cost, outs)
		s.afterCold(err, es, hot, now, outs)
		return err
	}
	return s.hybrid(ctx, cs, es, hot, now, cost, outs)
}

// afterCold records what Next said of the cold counters among es: each one's Decision;
// when the call was throttled, that they are hot (which item DynamoDB throttled is not
// part of the error, and a hot counter writes less); when it failed with a Retryable
// error (the dynamodb store's ErrContention: the items kept changing under it), that
// they are hot too, as a busy counter is, since leases write less often.
func (s *Store) afterCold(err error, es []*counter, hot []bool, now int64, outs []limiter.Decision) {
	throttled := errors.Is(err, store.ErrThrottled)
	contended := err != nil && !throttled && s.p.retryable(err)
	for i, e := range es {
		switch {
		case hot[i]:
		case contended:
			e.busy(now)
		case throttled:
			e.throttledCold(now)
		case err == nil:
			e.decided(outs[i])
		}
	}
}

// hybrid decides a request that touches a hot counter: it withdraws cost from every hot
// counter's lease (reserving one when it is short), then decides the cold counters in
// one Next call, and gives the withdrawn units back when anything denied. A denial
// consumes nothing, in Next or in a lease.
func (s *Store) hybrid(ctx context.Context, cs []store.Counter, es []*counter, hot []bool, now, cost int64, outs []limiter.Decision) error {
	var ws [store.MaxCounters]withdrawal
	for i := range cs {
		if !hot[i] {
			continue
		}
		w, d, err := es[i].take(ctx, s, cs[i], now, cost)
		if err != nil || !d.Allowed {
			s.refund(es[:i], ws[:i], hot, now, outs, cost)
			if err == nil {
				unevaluated(cs[i+1:], outs[i+1:], now)
				unevaluatedCold(cs[:i], hot, outs, now)
				outs[i] = d
			}
			return err
		}
		ws[i], outs[i] = w, d
	}
	allowed, err := s.decideCold(ctx, cs, es, hot, now, cost, outs)
	if err != nil || !allowed {
		s.refund(es, ws[:len(cs)], hot, now, outs, cost)
		return err
	}
	s.stats.leased.Add(1)
	return nil
}

// decideCold decides the cold counters of cs in one Next call, writing their outs, and
// reports whether they all allow (true when there are none).
func (s *Store) decideCold(ctx context.Context, cs []store.Counter, es []*counter, hot []bool, now, cost int64, outs []limiter.Decision) (bool, error) {
	if !slices.Contains(hot, false) {
		return true, nil
	}
	var cold [store.MaxCounters]store.Counter // escapes to Next: only made when needed
	var at [store.MaxCounters]int
	n := 0
	for i := range cs {
		if !hot[i] {
			cold[n], at[n] = cs[i], i
			n++
		}
	}
	var couts [store.MaxCounters]limiter.Decision
	err := s.call(ctx, cold[:n], now, cost, couts[:n])
	for k := range n {
		outs[at[k]] = couts[k]
	}
	s.afterCold(err, es, hot, now, outs)
	if err != nil {
		return false, err
	}
	return !slices.ContainsFunc(couts[:n], func(d limiter.Decision) bool { return !d.Allowed }), nil
}

// refund gives back the units withdrawn from the hot counters among es, and reports
// them as not consumed in outs.
func (s *Store) refund(es []*counter, ws []withdrawal, hot []bool, now int64, outs []limiter.Decision, cost int64) {
	for i, e := range es {
		if hot[i] && ws[i].units+ws[i].old > 0 {
			e.refund(ws[i], now, &s.stats)
			outs[i].Remaining += cost
		}
	}
}

// unevaluated fills the outs of counters a denial left undecided: allowed, with their
// set's least capacity as Remaining, so that limiter.Join reports the denial unchanged.
func unevaluated(cs []store.Counter, outs []limiter.Decision, now int64) {
	for i, c := range cs {
		rule, capacity := leastCapacity(c.Set)
		outs[i] = limiter.Decision{Allowed: true, Rule: rule, Limit: capacity, Remaining: capacity, Reset: now, RuleReset: now}
	}
}

// unevaluatedCold fills the outs of the cold counters among cs (a denial came first).
func unevaluatedCold(cs []store.Counter, hot []bool, outs []limiter.Decision, now int64) {
	for i := range cs {
		if !hot[i] {
			unevaluated(cs[i:i+1], outs[i:i+1], now)
		}
	}
}
