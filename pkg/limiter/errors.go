package limiter

import (
	"errors"
	"fmt"
)

// FieldError is a validation error that names the field, the offending value and the
// reason, such as `rules[1].limit = 0: must be between 1 and 1000000000000`.
type FieldError struct {
	Field  string // the field's path, such as "limit" or "rules[1].period"
	Value  string // the offending value as written, JSON-quoted when it is a string
	Reason string // what is wrong with it and what is accepted
}

// Error formats the error as `field = value: reason`.
func (e *FieldError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("%s = %s: %s", e.Field, e.Value, e.Reason)
}

// prefixed returns err with its field path placed under prefix ("rules[1]").
func prefixed(prefix string, err error) error {
	if fe, ok := errors.AsType[*FieldError](err); ok {
		return &FieldError{Field: prefix + "." + fe.Field, Value: fe.Value, Reason: fe.Reason}
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

// ErrCostExceedsCapacity is the error (wrapped in a *CostError) for a request whose
// cost is more than a rule could ever admit at once: it would be denied forever.
var ErrCostExceedsCapacity = errors.New("cost exceeds a rule's capacity")

// ErrTimeOutOfRange is returned for an instant before the Unix epoch or after MaxTime.
var ErrTimeOutOfRange = errors.New("time out of range")

// ErrStates is returned when the states handed to a Set do not match its rules.
var ErrStates = errors.New("states do not match the rule set")

// CostError reports a request cost that no state of a rule could admit.
type CostError struct {
	Cost     int64
	Rule     string // the rule's name
	Capacity int64  // the most the rule admits at once: its limit, or burst for buckets
}

// Error describes the cost and the rule it exceeds.
func (e *CostError) Error() string {
	if e.Cost < 1 {
		return fmt.Sprintf("cost %d: must be at least 1", e.Cost)
	}
	return fmt.Sprintf("cost %d exceeds the capacity %d of rule %q: it could never be allowed", e.Cost, e.Capacity, e.Rule)
}

// Unwrap makes errors.Is(err, ErrCostExceedsCapacity) true.
func (e *CostError) Unwrap() error { return ErrCostExceedsCapacity }
