package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Counters holds the per-key rate-limit state shared by every instance. Time is passed in
// (microseconds since the Unix epoch); a Counters never reads a clock of its own unless it
// documents an option that does.
type Counters interface {
	// Decide decides one request of cost at instant now against every counter of cs
	// (1 to MaxCounters, distinct keys), in one atomic step: the request is allowed only
	// if every rule of every counter allows it, and is then consumed from all of them;
	// a denial consumes nothing anywhere. outs must have len(cs): outs[i] receives
	// counter i's Decision, as limiter.DecideAll defines it, and limiter.Join folds them
	// into the request's answer. Allowed is always exact; a backend whose write
	// returns no state (DynamoDB's transactions) reports Remaining and Reset from the
	// state it last saw, which other instances may have consumed since (its package
	// doc bounds the error). The error is an input error (wrapping ErrKey, or a
	// *limiter.CostError, ...) or a backend failure; a denial is not an error.
	Decide(ctx context.Context, cs []Counter, now, cost int64, outs []limiter.Decision) error
	// Peek reports what a request of cost 1 would get at now without consuming; when
	// outs has room for every rule it receives each rule's Outcome.
	Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error)
	// Reset forgets key's state: its next request is treated as a new key's.
	Reset(ctx context.Context, key string) error
}

// Counter is one counter a request touches: the rules of Set, counted under Key.
type Counter struct {
	Key string
	Set *limiter.Set
}

// MaxCounters is the most counters one Decide call takes: a route's and the tenant's
// rules, in each of the three scopes.
const MaxCounters = 6

// OneDecider is implemented by a Counters that decides a single counter without Decide's
// slices (which escape to the heap through the interface): the memory store, where those
// allocations would be most of a decision's cost. DecideOne prefers it.
type OneDecider interface {
	// DecideOne is Decide with the one counter {key, set}: same checks, same answer.
	DecideOne(ctx context.Context, key string, set *limiter.Set, now, cost int64) (limiter.Decision, error)
}

// DecideOne decides a request of cost for one key against set: Decide with one counter
// (OneDecider's DecideOne when s has it).
func DecideOne(ctx context.Context, s Counters, key string, set *limiter.Set, now, cost int64) (limiter.Decision, error) {
	if o, ok := s.(OneDecider); ok {
		return o.DecideOne(ctx, key, set, now, cost)
	}
	var out [1]limiter.Decision
	err := s.Decide(ctx, []Counter{{Key: key, Set: set}}, now, cost, out[:])
	return out[0], err
}

// MaxKeyLen is the longest key a Counters accepts, in bytes.
const MaxKeyLen = 1024

// ErrThrottled is wrapped by a Counters's errors when the service refused a request for
// capacity or rate (DynamoDB's ProvisionedThroughputExceededException and
// ThrottlingException, say): the request did nothing, and a caller may shed load.
var ErrThrottled = errors.New("throttled")

// ErrKey is returned (wrapped) for an empty or over-long key.
var ErrKey = errors.New("invalid key")

// CheckKey returns an error wrapping ErrKey when key is empty or longer than MaxKeyLen.
func CheckKey(key string) error {
	if key == "" || len(key) > MaxKeyLen { // small enough to inline on the hot path
		return keyError(key)
	}
	return nil
}

func keyError(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty", ErrKey)
	}
	return fmt.Errorf("%w: %d bytes, the most is %d", ErrKey, len(key), MaxKeyLen)
}

// CheckCounters validates what Decide receives before any backend work: 1 to
// MaxCounters counters with distinct keys, each checked as CheckRequest checks one, and
// outs of the same length. Every Counters calls it first, so bad input is rejected alike
// everywhere and changes nothing.
func CheckCounters(cs []Counter, now, cost int64, outs []limiter.Decision) error {
	if len(cs) == 0 || len(cs) > MaxCounters {
		return fmt.Errorf("%d counters: a decision takes 1 to %d", len(cs), MaxCounters)
	}
	if len(outs) != len(cs) {
		return fmt.Errorf("%d decisions for %d counters", len(outs), len(cs))
	}
	for i, c := range cs {
		if err := CheckRequest(c.Key, c.Set, now, cost); err != nil {
			return err
		}
		for _, d := range cs[:i] {
			if d.Key == c.Key {
				return fmt.Errorf("%w: %q appears twice in one decision", ErrKey, c.Key)
			}
		}
	}
	return nil
}

// CheckRequest validates one counter's key, the cost against the set's capacities, and
// the instant, as Peek receives them.
func CheckRequest(key string, set *limiter.Set, now, cost int64) error {
	if key == "" || len(key) > MaxKeyLen || set == nil || now < 0 || now > limiter.MaxTime || set.CheckCost(cost) != nil {
		return requestError(key, set, now, cost) // which fault, and its error, out of the hot path
	}
	return nil
}

// requestError is CheckRequest's error: the first of the key's, the set's, the
// instant's and the cost's.
func requestError(key string, set *limiter.Set, now, cost int64) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if set == nil {
		return errors.New("nil rule set")
	}
	if now < 0 || now > limiter.MaxTime {
		return fmt.Errorf("%w: %d", limiter.ErrTimeOutOfRange, now)
	}
	return set.CheckCost(cost)
}
