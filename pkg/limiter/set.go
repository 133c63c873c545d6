package limiter

import (
	"fmt"
	"strconv"
)

// MaxRules is the most rules one Set holds.
const MaxRules = 8

// Set is a rule set decided as one: a request is allowed only if every rule allows it,
// and is then consumed from every rule; a denial consumes nothing. A Set carries the
// Zone its calendar rules follow. It is immutable and safe for concurrent use; the
// per-key states it decides on are not, and belong to the caller.
type Set struct {
	rules  []compiled
	zone   *Zone
	leaky  bool
	maxFit int64 // the least of the rules' capacities: the largest cost CheckCost admits
}

// compiled is a validated rule with the constants its algorithm needs.
type compiled struct {
	Rule
	kind     kind  // Rule.Algorithm, for the switches of the hot path
	capacity int64 // Rule.Capacity()
	period   int64 // duration periods, microseconds
	// Buckets: the emission interval T = period/limit is q + r/limit microseconds, and
	// the tolerance burst*T is tolUS + tolFrac/limit microseconds.
	q, r, tolUS, tolFrac int64
	// Calendar periods: the last window computed, shared by every caller of the Set.
	calendar *windowCache
}

// NewSet validates rules (1 to MaxRules, names unique once defaulted) and returns
// their Set following zone (nil means UTC). Errors are *FieldError with paths such as
// "rules[1].limit".
func NewSet(rules []Rule, zone *Zone) (*Set, error) {
	if len(rules) == 0 {
		return nil, &FieldError{Field: "rules", Reason: "must hold at least one rule"}
	}
	if len(rules) > MaxRules {
		return nil, &FieldError{Field: "rules", Value: strconv.Itoa(len(rules)), Reason: fmt.Sprintf("a rule set holds at most %d rules", MaxRules)}
	}
	s := &Set{rules: make([]compiled, len(rules)), zone: zone}
	seen := make(map[string]bool, len(rules))
	for i, r := range rules {
		path := "rules[" + strconv.Itoa(i) + "]"
		if err := r.Validate(); err != nil {
			return nil, prefixed(path, err)
		}
		r = r.Normalized()
		if seen[r.Name] {
			return nil, &FieldError{Field: path + ".name", Value: strconv.Quote(r.Name), Reason: "is already used by another rule of the set (the default name is the algorithm)"}
		}
		seen[r.Name] = true
		s.rules[i] = compile(r)
		s.leaky = s.leaky || r.Algorithm == LeakyBucket
		if r.Algorithm != Concurrency && (s.maxFit == 0 || s.rules[i].capacity < s.maxFit) {
			s.maxFit = s.rules[i].capacity // a concurrency rule takes one slot whatever the cost
		}
	}
	if s.maxFit == 0 {
		s.maxFit = MaxLimit
	}
	return s, nil
}

func compile(r Rule) compiled {
	c := compiled{Rule: r, kind: kinds[r.Algorithm], capacity: r.Capacity(), period: r.Period.Micros()}
	if r.Period.IsCalendar() {
		c.calendar = &windowCache{}
	}
	if r.Algorithm == Concurrency {
		c.period = r.Lease.Micros()
		c.q = (c.period + LeaseQuanta - 1) / LeaseQuanta
	}
	if r.IsBucket() {
		c.q, c.r = c.period/r.Limit, c.period%r.Limit
		// burst*r may exceed int64; burst*q is at most MaxFillMicros.
		carry, frac, _ := mulAddDivMod(r.Burst, c.r, 0, r.Limit)
		c.tolUS, c.tolFrac = r.Burst*c.q+carry, frac
	}
	return c
}

// Len returns the number of rules.
func (s *Set) Len() int { return len(s.rules) }

// Rule returns rule i, with its defaults filled in.
func (s *Set) Rule(i int) Rule { return s.rules[i].Rule }

// Rules returns a copy of the rules, with their defaults filled in.
func (s *Set) Rules() []Rule {
	out := make([]Rule, len(s.rules))
	for i := range s.rules {
		out[i] = s.rules[i].Rule
	}
	return out
}

// Zone returns the zone the set's calendar rules follow (nil means UTC).
func (s *Set) Zone() *Zone { return s.zone }

// HasLeaky reports whether a rule is a leaky bucket, whose Decision carries a Delay.
func (s *Set) HasLeaky() bool { return s.leaky }

// NewStates returns zeroed states, one per rule: a key never seen.
func (s *Set) NewStates() []State { return make([]State, len(s.rules)) }

// CheckCost returns a *CostError when cost is below 1 or above a rule's capacity: such
// a request could never be allowed, so it is an input error rather than a denial.
func (s *Set) CheckCost(cost int64) error {
	if cost >= 1 && cost <= s.maxFit { // small enough to inline on the hot path
		return nil
	}
	return s.costError(cost)
}

// costError is CheckCost's error for a cost it does not admit.
func (s *Set) costError(cost int64) error {
	if cost < 1 {
		return &CostError{Cost: cost}
	}
	for i := range s.rules {
		if cost > s.rules[i].capacity {
			return &CostError{Cost: cost, Rule: s.rules[i].Name, Capacity: s.rules[i].capacity}
		}
	}
	return nil
}

// Window returns the fixed or sliding window [start, end) that rule i uses at now, in
// microseconds, for backends that evaluate the rules elsewhere; buckets, logs and
// first-request windows have none and return (0, 0).
func (s *Set) Window(i int, now int64) (start, end int64) {
	c := &s.rules[i]
	switch {
	case c.Algorithm == FixedWindow && c.Anchor == AnchorFirstRequest, c.IsBucket(), c.Algorithm == SlidingLog:
		return 0, 0
	case c.Period.IsCalendar():
		return c.calendar.window(s.zone, c.Period.Unit(), now)
	}
	start = now - now%c.period
	return start, start + c.period
}

// Emission returns the constants of bucket rule i for backends that restate the GCRA
// arithmetic: the emission interval period/limit is q + r/limit microseconds and the
// tolerance burst*period/limit is tolUS + tolFrac/limit microseconds. Other rules
// return zeros.
func (s *Set) Emission(i int) (q, r, tolUS, tolFrac int64) {
	c := &s.rules[i]
	return c.q, c.r, c.tolUS, c.tolFrac
}

// Decide decides a request of cost at instant now (microseconds) against states, one
// per rule, and updates them when it is allowed. Errors are input errors only: a cost
// no rule could admit (*CostError), a time out of range, or states of the wrong length;
// they change nothing.
func (s *Set) Decide(states []State, now, cost int64) (Decision, error) {
	if err := s.checkInput(states, now); err != nil {
		return Decision{}, err
	}
	if err := s.CheckCost(cost); err != nil {
		return Decision{}, err
	}
	var d Decision
	s.DecideChecked(states, now, cost, &d)
	return d, nil
}

// DecideChecked is Decide for a caller that has already checked what Decide checks:
// states holds Len() states, now is within [0, MaxTime] and CheckCost(cost) is nil
// (store.CheckRequest checks the last two; a store keeps states of its set's length).
// It checks nothing again: on other input its answer is undefined and it may panic.
// It writes the Decision into d, which saves copying one through the calls of a store.
func (s *Set) DecideChecked(states []State, now, cost int64, d *Decision) {
	switch { // the common cases, without the rule-set bookkeeping
	case len(s.rules) == 1 && s.rules[0].bucket():
		s.rules[0].bucketDecide(&states[0], now, cost, d)
		return
	case len(s.rules) == 1:
		s.rules[0].decideAlone(&states[0], s.zone, now, cost, d)
		return
	}
	var outs [MaxRules]Outcome
	allowed := true
	for i := range s.rules {
		outs[i] = s.rules[i].evaluate(&states[i], s.zone, now, cost, false)
		allowed = allowed && outs[i].Allowed
	}
	if allowed {
		for i := range s.rules {
			s.rules[i].consume(&states[i], s.zone, now, cost)
		}
	}
	*d = s.Combine(outs[:len(s.rules)])
}

// decideAlone decides a request for a set of this one rule, as Combine would fold its
// Outcome.
func (c *compiled) decideAlone(st *State, z *Zone, now, cost int64, d *Decision) {
	o := c.evaluate(st, z, now, cost, false)
	if o.Allowed {
		c.consume(st, z, now, cost)
	}
	*d = Decision{Allowed: o.Allowed, Limit: c.capacity, Remaining: o.Remaining,
		Reset: o.Reset, RetryAfter: o.RetryAfter, Delay: o.Delay, RuleReset: o.Reset}
}

// Peek reports what a request of cost 1 would get at now, without consuming: Remaining
// is what the rules would admit now. When outs is at least Len() long it also receives
// each rule's Outcome.
func (s *Set) Peek(states []State, now int64, outs []Outcome) (Decision, error) {
	if err := s.checkInput(states, now); err != nil {
		return Decision{}, err
	}
	var buf [MaxRules]Outcome
	for i := range s.rules {
		buf[i] = s.rules[i].evaluate(&states[i], s.zone, now, 1, true)
	}
	if len(outs) >= len(s.rules) {
		copy(outs, buf[:len(s.rules)])
	}
	return s.Combine(buf[:len(s.rules)]), nil
}

func (s *Set) checkInput(states []State, now int64) error {
	if len(states) != len(s.rules) {
		return fmt.Errorf("%w: %d states for %d rules", ErrStates, len(states), len(s.rules))
	}
	if now < 0 || now > MaxTime {
		return fmt.Errorf("%w: %d microseconds is not between 1970 and 2200", ErrTimeOutOfRange, now)
	}
	return nil
}

// evaluate answers a request of cost for one rule without changing st. With peek, an
// allowed outcome reports the state before consuming.
func (c *compiled) evaluate(st *State, z *Zone, now, cost int64, peek bool) Outcome {
	switch c.kind {
	case kindFixed:
		return c.fixedEvaluate(st, z, now, cost, peek)
	case kindSliding:
		return c.slidingEvaluate(st, now, cost, peek)
	case kindLog:
		return c.logEvaluate(st, now, cost, peek)
	case kindConc:
		return c.concEvaluate(st, now, peek)
	default:
		return c.bucketEvaluate(st, now, cost, peek)
	}
}

// consume records an allowed request of cost in st.
func (c *compiled) consume(st *State, z *Zone, now, cost int64) {
	switch c.kind {
	case kindFixed:
		c.fixedConsume(st, z, now, cost)
	case kindSliding:
		c.slidingConsume(st, now, cost)
	case kindLog:
		c.logConsume(st, now, cost)
	case kindConc:
		c.concConsume(st, now)
	default:
		c.bucketConsume(st, now, cost)
	}
}

// kind is an Algorithm as a small integer, so that the hot path switches on it without
// comparing strings.
type kind uint8

const (
	kindBucket kind = iota // token_bucket
	kindLeaky
	kindFixed
	kindSliding
	kindLog
	kindConc
)

// bucket reports whether the rule is a token or leaky bucket: Rule.IsBucket.
func (c *compiled) bucket() bool { return c.kind == kindBucket || c.kind == kindLeaky }

// kinds maps an Algorithm to its kind; token_bucket, the zero kind, is not listed.
var kinds = map[Algorithm]kind{LeakyBucket: kindLeaky, FixedWindow: kindFixed,
	SlidingWindow: kindSliding, SlidingLog: kindLog, Concurrency: kindConc}
