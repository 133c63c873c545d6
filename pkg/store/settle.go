package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Settlement is what settling one reservation does to its counters: the request was
// reserved at At and is settled at Now for Delta more (or, negative, less) than it
// reserved. See limiter.Set.Settle for what each rule does with it.
type Settlement struct {
	// ID names the settlement's idempotency marker: the reservation's nonce, 1 to
	// MaxSettlementID bytes of [A-Za-z0-9_-].
	ID string
	// At is the reserving decision's instant and Now the settle's (microseconds since
	// the Unix epoch), At <= Now.
	At, Now int64
	// Expires is the reservation's expiry: a store keeps the marker until then, and a
	// settlement with Now >= Expires changes nothing.
	Expires int64
	// Delta is the actual cost minus the reserved one, at most MaxDelta either way.
	Delta int64
}

// Settler is implemented by a Counters that settles reservations.
type Settler interface {
	// Settle applies s to every counter of cs (the reservation's counters, as Decide
	// took them) in one atomic step, at most once per s.ID: the first call returns
	// true; a later call with the same ID, or one at or after s.Expires, changes
	// nothing and returns false. An input error (CheckSettlement) changes nothing.
	Settle(ctx context.Context, cs []Counter, s Settlement) (applied bool, err error)
}

// Settlement bounds.
const (
	MaxSettlementID       = 64
	MaxDelta        int64 = 1_000_000_000_000
)

// ErrSettlement is wrapped by CheckSettlement's errors.
var ErrSettlement = errors.New("invalid settlement")

// CheckSettlement validates what Settle receives before any backend work: 1 to
// MaxCounters counters with distinct valid keys and non-nil sets, and s within its
// bounds.
func CheckSettlement(cs []Counter, s Settlement) error {
	if len(cs) == 0 || len(cs) > MaxCounters {
		return fmt.Errorf("%w: %d counters: a settlement takes 1 to %d", ErrSettlement, len(cs), MaxCounters)
	}
	for i, c := range cs {
		if err := CheckKey(c.Key); err != nil {
			return err
		}
		if c.Set == nil {
			return fmt.Errorf("%w: nil rule set", ErrSettlement)
		}
		for _, d := range cs[:i] {
			if d.Key == c.Key {
				return fmt.Errorf("%w: %q appears twice in one settlement", ErrKey, c.Key)
			}
		}
	}
	switch {
	case !validID(s.ID):
		return fmt.Errorf("%w: id must be 1 to %d bytes of [A-Za-z0-9_-]", ErrSettlement, MaxSettlementID)
	case s.At < 0 || s.Now < s.At || s.Now > limiter.MaxTime || s.Expires <= s.At:
		return fmt.Errorf("%w: instants at %d, now %d, expires %d: want 0 <= at <= now <= %d and at < expires", ErrSettlement, s.At, s.Now, s.Expires, limiter.MaxTime)
	case s.Delta < -MaxDelta || s.Delta > MaxDelta:
		return fmt.Errorf("%w: delta %d is beyond ±%d", ErrSettlement, s.Delta, MaxDelta)
	}
	return nil
}

// validID reports whether id is 1 to MaxSettlementID bytes of [A-Za-z0-9_-].
func validID(id string) bool {
	return id != "" && len(id) <= MaxSettlementID && !strings.ContainsFunc(id, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-')
	})
}
