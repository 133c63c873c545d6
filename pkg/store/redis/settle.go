package redis

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/store"
)

var _ store.Settler = (*Counters)(nil)

// Settle applies st to every counter of cs in one script call (one round trip on a warm
// script cache), at most once per st.ID: see store.Settler. The script sets the
// idempotency marker, in the hash slot of the first counter's keys, and applies
// limiter.Set.Settle to every rule only when the marker is new. A settlement at or
// after its expiry returns false without a round trip.
func (s *Counters) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	return s.lua.Settle(ctx, cs, st)
}
