package upstash

import (
	"context"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

var _ store.Settler = (*Counters)(nil)

// Settle applies st to every counter of cs in one script call (one HTTP request on a
// warm script cache), at most once per st.ID: see store.Settler. The script declares
// the idempotency marker in KEYS with the counters' keys, sets it, and applies
// limiter.Set.Settle to every rule only when the marker is new. A settlement at or
// after its expiry returns false without a request.
func (s *Counters) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	if run, err := luascript.SettleNeeded(cs, st); !run {
		return false, err
	}
	keys, args := luascript.SettleArgs(cs, st, s.margin)
	reply, err := s.client.Eval(ctx, luascript.SettleScript(), keys, args...)
	if err == nil {
		var answer int64
		if answer, err = reply.Int64(); err == nil {
			var applied bool
			if applied, err = luascript.ReadSettled(answer); err == nil {
				return applied, nil
			}
		}
	}
	return false, fmt.Errorf("upstash: settle %s: %w", counterKeys(cs), err)
}
