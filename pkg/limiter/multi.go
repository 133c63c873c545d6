package limiter

import (
	"errors"
	"fmt"
)

// DecideAll decides one request of cost at instant now against several sets at once,
// sets[i] on states[i] (one counter each, as a backend keeps them under different
// keys): the request is allowed only if every rule of every set allows it, and is then
// consumed from all of them; a denial consumes nothing anywhere. outs[i] receives set
// i's Decision as Set.Decide reports it (its Allowed says whether that set's rules
// alone allow). It reports whether the request was allowed; Join folds outs into the
// request's answer.
//
// Deciding sets A and B with DecideAll and joining the outcomes answers exactly as one
// Set holding the rules of A and then B would. Errors are input errors, as for
// Set.Decide (and lengths that differ); they change nothing.
func DecideAll(sets []*Set, states [][]State, now, cost int64, outs []Decision) (bool, error) {
	if len(sets) == 0 || len(states) != len(sets) || len(outs) != len(sets) {
		return false, fmt.Errorf("%w: %d sets, %d states and %d decisions", ErrStates, len(sets), len(states), len(outs))
	}
	for i, s := range sets {
		if s == nil {
			return false, errors.New("limiter: nil rule set")
		}
		if err := s.checkInput(states[i], now); err != nil {
			return false, err
		}
		if err := s.CheckCost(cost); err != nil {
			return false, err
		}
	}
	allowed := true
	for i, s := range sets {
		var o [MaxRules]Outcome
		for j := range s.rules {
			o[j] = s.rules[j].evaluate(&states[i][j], s.zone, now, cost, false)
		}
		outs[i] = s.Combine(o[:len(s.rules)])
		allowed = allowed && outs[i].Allowed
	}
	if allowed {
		for i, s := range sets {
			for j := range s.rules {
				s.rules[j].consume(&states[i][j], s.zone, now, cost)
			}
		}
	}
	return allowed, nil
}

// Join folds the decisions of the sets of one request (DecideAll's outs, or a
// backend's) into the request's answer, as Combine folds rules: allowed only if every
// decision allows; Remaining is the least of all; when allowed, Reset is the earliest
// and Delay the longest; when denied, RetryAfter is the longest among the denials and
// Reset the latest among them. It returns the answer and the index of the decision it
// reports (whose Rule, Limit and RuleReset it keeps): the denial with the longest
// RetryAfter, or when allowed the decision with the least Remaining, the first of
// equals. ds must not be empty.
func Join(ds []Decision) (Decision, int) {
	at := 0
	allowed := true
	for i, d := range ds {
		if !d.Allowed && (allowed || d.RetryAfter > ds[at].RetryAfter) {
			at, allowed = i, false
		}
	}
	if allowed {
		for i, d := range ds {
			if d.Remaining < ds[at].Remaining {
				at = i
			}
		}
	}
	out := ds[at]
	for _, d := range ds {
		out.Remaining = min(out.Remaining, d.Remaining)
		switch {
		case allowed:
			out.Reset = min(out.Reset, d.Reset)
			out.Delay = max(out.Delay, d.Delay)
		case !d.Allowed:
			out.Reset = max(out.Reset, d.Reset)
		}
	}
	return out, at
}
