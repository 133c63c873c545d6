package upstash

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

var _ store.Counters = (*Counters)(nil)

// CountersConfig configures a Counters. Its zero value means the defaults.
type CountersConfig struct {
	// TTLMargin is how long past the instant its state goes idle a key is kept, to
	// absorb clock differences between callers and the server; 0 means 1 minute.
	TTLMargin time.Duration
}

// Counters is the store.Counters over Upstash Redis: one EVALSHA of decide.lua per
// decision, over every counter of the request. Create it with NewCounters.
type Counters struct {
	client *upstashrest.Client
	script *luascript.Script
	margin time.Duration
}

// NewCounters returns a Counters that sends its commands through client.
func NewCounters(client *upstashrest.Client, cfg CountersConfig) *Counters {
	return &Counters{client: client, script: luascript.DecideScript(), margin: cfg.TTLMargin}
}

// Decide decides a request of cost against the counters of cs at now, all of them in
// one script call (one round trip when the server's script cache is warm); see
// store.Counters. On an error outs are zero.
func (s *Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	ints, err := s.eval(ctx, cs, now, cost, true)
	if err == nil {
		err = luascript.ReadDecisions(ints, cs, outs)
	}
	if err != nil {
		clear(outs)
		return fmt.Errorf("upstash: decide %s: %w", counterKeys(cs), err)
	}
	return nil
}

// Peek reports what a request of cost 1 would get at now, without consuming: the
// script with one counter, in peek mode.
func (s *Counters) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	if err := store.CheckRequest(key, set, now, 1); err != nil {
		return limiter.Decision{}, err
	}
	cs := [1]store.Counter{{Key: key, Set: set}}
	ints, err := s.eval(ctx, cs[:], now, 1, false)
	var buf [limiter.MaxRules]limiter.Outcome
	if err == nil {
		err = luascript.ReadOutcomes(ints, buf[:set.Len()])
	}
	if err != nil {
		return limiter.Decision{}, fmt.Errorf("upstash: peek %q: %w", key, err)
	}
	if len(outs) >= set.Len() {
		copy(outs, buf[:set.Len()])
	}
	return set.Combine(buf[:set.Len()]), nil
}

// Reset deletes key's hash and the sorted sets of its sliding logs, which the hash
// names in its "<id>|z" fields: two round trips, for an operation that is rare.
func (s *Counters) Reset(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	reply, err := s.client.Do(ctx, "HKEYS", luascript.HashKey(key))
	if err != nil {
		return fmt.Errorf("upstash: reset %q: %w", key, err)
	}
	fields, err := reply.Array()
	if err != nil {
		return fmt.Errorf("upstash: reset %q: %w", key, err)
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		if names[i], err = f.String(); err != nil {
			return fmt.Errorf("upstash: reset %q: %w", key, err)
		}
	}
	del := []any{"DEL"}
	for _, k := range luascript.ResetKeys(key, names) {
		del = append(del, k)
	}
	if _, err := s.client.Do(ctx, del...); err != nil {
		return fmt.Errorf("upstash: reset %q: %w", key, err)
	}
	return nil
}

// eval runs decide.lua over cs and returns its reply, the integers that
// luascript.ReadDecisions and luascript.ReadOutcomes check.
func (s *Counters) eval(ctx context.Context, cs []store.Counter, now, cost int64, consume bool) ([]int64, error) {
	keys, args := luascript.DecideArgs(cs, now, cost, consume, s.margin)
	reply, err := s.client.Eval(ctx, s.script, keys, args...)
	if err != nil {
		return nil, err
	}
	return reply.Int64s()
}

// counterKeys quotes the keys of cs for an error message.
func counterKeys(cs []store.Counter) string {
	q := make([]string, len(cs))
	for i, c := range cs {
		q[i] = strconv.Quote(c.Key)
	}
	return strings.Join(q, ", ")
}
