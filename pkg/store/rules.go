package store

import "github.com/edgelimit/edgelimit/pkg/limiter"

// RuleChecker is implemented by a Counters that cannot honour every rule pkg/limiter
// accepts, such as DynamoDB with its cap on a sliding_log limit. Config written for
// such a Counters (the admin API, the tenants file) is checked with it when it is written,
// so that a rule the Counters would refuse on every decision is refused at once instead.
type RuleChecker interface {
	// CheckRule returns nil when the Counters can decide r, or a *limiter.FieldError
	// naming the field of the rule it cannot honour ("limit") and why.
	CheckRule(r limiter.Rule) error
}

// CheckRule reports whether s can honour r: the error of s's CheckRule when s is a
// RuleChecker, nil otherwise (a Counters that is not one honours every valid rule).
func CheckRule(s Counters, r limiter.Rule) error {
	if c, ok := s.(RuleChecker); ok {
		return c.CheckRule(r)
	}
	return nil
}
