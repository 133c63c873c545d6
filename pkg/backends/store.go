package backends

import (
	"context"
	"errors"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Store holds the per-key rate-limit state shared by every instance. Time is passed in
// (microseconds since the Unix epoch); a Store never reads a clock of its own unless it
// documents an option that does.
type Store interface {
	// Decide decides a request of cost for key against set at instant now, and when it
	// is allowed consumes it from every rule, in one atomic step.
	Decide(ctx context.Context, key string, set *limiter.Set, now, cost int64) (limiter.Decision, error)
	// Peek reports what a request of cost 1 would get at now without consuming; when
	// outs has room for every rule it receives each rule's Outcome.
	Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error)
	// Reset forgets key's state: its next request is treated as a new key's.
	Reset(ctx context.Context, key string) error
}

// MaxKeyLen is the longest key a Store accepts, in bytes.
const MaxKeyLen = 1024

// ErrKey is returned (wrapped) for an empty or over-long key.
var ErrKey = errors.New("invalid key")

// CheckKey returns an error wrapping ErrKey when key is empty or longer than MaxKeyLen.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrKey)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: %d bytes, the most is %d", ErrKey, len(key), MaxKeyLen)
	}
	return nil
}

// CheckRequest validates what Decide receives before any backend work: the key, the
// cost against the set's capacities, and the instant. Every Store calls it first, so
// bad input is rejected alike everywhere and changes nothing.
func CheckRequest(key string, set *limiter.Set, now, cost int64) error {
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
