package redis

import (
	"context"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

var _ store.Settler = (*Counters)(nil)

// Settle applies st to every counter of cs in one script call (one round trip on a warm
// script cache), at most once per st.ID: see store.Settler. The script sets the
// idempotency marker, in the hash slot of the first counter's keys, and applies
// limiter.Set.Settle to every rule only when the marker is new. A settlement at or
// after its expiry returns false without a round trip.
func (s *Counters) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	if run, err := luascript.SettleNeeded(cs, st); !run {
		return false, err
	}
	var buf [store.MaxCounters]store.Counter
	keys, args := luascript.SettleArgs(slotCounters(&buf, cs), st, s.margin)
	answer, err := s.c.Eval(ctx, s.settle, keys, stringArgs(args)).AsInt64()
	if err == nil {
		var applied bool
		if applied, err = luascript.ReadSettled(answer); err == nil {
			return applied, nil
		}
	}
	return false, fmt.Errorf("redis: settle %q and %d more counters: %w", cs[0].Key, len(cs)-1, err)
}
