package limiter

// Outcome is one rule's answer to one request.
type Outcome struct {
	Allowed bool
	// Remaining is what the rule would still admit now: after this request when it is
	// allowed, before it when it is denied (or when peeking).
	Remaining int64
	// Reset is the instant (microseconds) at which the rule would be back to its full
	// capacity if no further request came.
	Reset int64
	// RetryAfter is, for a denial, how long (microseconds) until a request of the same
	// cost would first be allowed by this rule; 0 when allowed.
	RetryAfter int64
	// Delay is, for an allowed leaky_bucket request, how long (microseconds) until the
	// bucket's constant outflow reaches it; 0 otherwise.
	Delay int64
}

// Decision is a rule set's answer to one request, shaped for HTTP headers. A denial is
// a Decision, not an error.
type Decision struct {
	Allowed bool
	// Rule is the index of the rule reported in Limit: when denied, the denying rule
	// with the longest RetryAfter; when allowed, the rule with the least Remaining.
	Rule int
	// Limit is that rule's capacity: its limit, or its burst for a bucket.
	Limit int64
	// Remaining is the minimum of the rules' Remaining.
	Remaining int64
	// Reset is the latest Reset among the rules that denied, or the earliest of all when
	// allowed (microseconds since the epoch).
	Reset int64
	// RetryAfter is the longest RetryAfter among the denying rules (microseconds); 0
	// when allowed. Retry-After headers round it up to whole seconds.
	RetryAfter int64
	// Delay is the longest leaky-bucket delay (microseconds) when allowed.
	Delay int64
	// RuleReset is the Reset of the rule reported in Rule: when that rule alone is back
	// to its full capacity (the RateLimit header's t for an allowed request).
	RuleReset int64
}

// Combine folds the rules' outcomes, one per rule in order, into one Decision. Backends
// that evaluate the rules elsewhere (a Redis script) use it to answer exactly as Decide.
func (s *Set) Combine(outs []Outcome) Decision {
	d := Decision{Allowed: true}
	for i, o := range outs {
		if !o.Allowed {
			if d.Allowed || o.RetryAfter > d.RetryAfter {
				d.Rule, d.RetryAfter = i, o.RetryAfter
			}
			if d.Allowed || o.Reset > d.Reset {
				d.Reset = o.Reset
			}
			d.Allowed = false
		}
	}
	for i, o := range outs {
		if i == 0 || o.Remaining < d.Remaining {
			d.Remaining = o.Remaining
			if d.Allowed {
				d.Rule = i
			}
		}
		if d.Allowed {
			if i == 0 || o.Reset < d.Reset {
				d.Reset = o.Reset
			}
			d.Delay = max(d.Delay, o.Delay)
		}
	}
	if d.Rule < len(s.rules) && d.Rule < len(outs) {
		d.Limit = s.rules[d.Rule].capacity
		d.RuleReset = outs[d.Rule].Reset
	}
	return d
}
