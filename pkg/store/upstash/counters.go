package upstash

import (
	"context"
	"time"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

var (
	_ store.Counters = (*Counters)(nil)
	_ store.Settler  = (*Counters)(nil)
)

// CountersConfig configures a Counters. Its zero value means the defaults.
type CountersConfig struct {
	// TTLMargin is how long past the instant its state goes idle a key is kept, to
	// absorb clock differences between callers and the server; 0 means 1 minute.
	TTLMargin time.Duration
}

// Counters is the store.Counters and store.Settler over Upstash Redis: one EVALSHA of
// decide.lua per decision, over every counter of the request, and one of the settle
// script per settlement. Create it with NewCounters.
type Counters struct {
	client *upstashrest.Client
	lua    luascript.Counters
}

// NewCounters returns a Counters that sends its commands through client.
func NewCounters(client *upstashrest.Client, cfg CountersConfig) *Counters {
	return &Counters{client: client, lua: luascript.NewCounters(restConn{client}, "upstash", nil, cfg.TTLMargin)}
}

// Decide decides a request of cost against the counters of cs at now, all of them in
// one script call (one round trip when the server's script cache is warm); see
// store.Counters. On an error outs are zero.
func (s *Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	return s.lua.Decide(ctx, cs, now, cost, outs)
}

// Peek reports what a request of cost 1 would get at now, without consuming: the
// script with one counter, in peek mode.
func (s *Counters) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	return s.lua.Peek(ctx, key, set, now, outs)
}

// Reset deletes key's hash and the sorted sets of its sliding logs, which the hash
// names in its "<id>|z" fields: two round trips, for an operation that is rare.
func (s *Counters) Reset(ctx context.Context, key string) error { return s.lua.Reset(ctx, key) }

// Settle applies st to every counter of cs in one script call (one HTTP request on a
// warm script cache), at most once per st.ID: see store.Settler. The script declares
// the idempotency marker in KEYS with the counters' keys, sets it, and applies
// limiter.Set.Settle to every rule only when the marker is new. A settlement at or
// after its expiry returns false without a request.
func (s *Counters) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	return s.lua.Settle(ctx, cs, st)
}
