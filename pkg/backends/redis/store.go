package redis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/backends/upstash"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

var _ backends.Store = (*Store)(nil)

// StoreConfig configures a Store. Its zero value means the defaults.
type StoreConfig struct {
	// TTLMargin is how long past the instant its state goes idle a key is kept, to
	// absorb clock differences between callers; 0 means 1 minute.
	TTLMargin time.Duration
}

// Store is the backends.Store over Redis or Valkey: one EVALSHA per decision, of the
// Upstash backend's decide.lua, or of bucket.lua for a set of one bucket rule.
// Create it with NewStore.
type Store struct {
	c      *Client
	margin time.Duration
	// The scripts, replaceable by tests (a cold script cache), and whether bucket.lua
	// takes the sets it can (tests turn it off to compare the two).
	decide, bucket *upstash.Script
	noFastPath     bool
}

// NewStore returns a Store that sends its commands through c.
func NewStore(c *Client, cfg StoreConfig) *Store {
	return &Store{c: c, margin: cfg.TTLMargin, decide: upstash.DecideScript(), bucket: upstash.BucketScript()}
}

// Decide decides a request of cost against the counters of cs at now in one script
// call; see backends.Store.
func (s *Store) Decide(ctx context.Context, cs []backends.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := backends.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	if len(cs) > 1 {
		return fmt.Errorf("redis: a decision over %d counters is not supported yet", len(cs))
	}
	var err error
	outs[0], err = s.decideOne(ctx, cs[0].Key, cs[0].Set, now, cost, true, nil)
	return err
}

// Peek reports what a request of cost 1 would get at now, without consuming.
func (s *Store) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	if err := backends.CheckRequest(key, set, now, 1); err != nil {
		return limiter.Decision{}, err
	}
	return s.decideOne(ctx, key, set, now, 1, false, outs)
}

// decideOne decides (or peeks at) one counter and combines its rules' outcomes, which
// it copies into outs when outs has room for them.
func (s *Store) decideOne(ctx context.Context, key string, set *limiter.Set, now, cost int64, consume bool, outs []limiter.Outcome) (limiter.Decision, error) {
	var buf [limiter.MaxRules]limiter.Outcome
	rules := buf[:set.Len()]
	if err := s.eval(ctx, key, set, now, cost, consume, rules); err != nil {
		return limiter.Decision{}, err
	}
	if len(outs) >= len(rules) {
		copy(outs, rules)
	}
	return set.Combine(rules), nil
}

// Reset deletes key's hash and the sorted sets of its sliding logs, which the hash
// names: two round trips (HKEYS, DEL), for an operation that is rare.
func (s *Store) Reset(ctx context.Context, key string) error {
	if err := backends.CheckKey(key); err != nil {
		return err
	}
	sk := slotKey(key)
	fields, err := s.c.Do(ctx, func(b rueidis.Builder) rueidis.Completed {
		return b.Hkeys().Key(upstash.HashKey(sk)).Build()
	}).AsStrSlice()
	if err != nil {
		return fmt.Errorf("redis: reset %q: %w", key, err)
	}
	if err := s.c.Do(ctx, func(b rueidis.Builder) rueidis.Completed {
		return b.Del().Key(upstash.ResetKeys(sk, fields)...).Build()
	}).Error(); err != nil {
		return fmt.Errorf("redis: reset %q: %w", key, err)
	}
	return nil
}

// eval decides (or peeks at) one counter with bucket.lua when it takes the set,
// else with decide.lua, and reads one Outcome per rule into outs.
func (s *Store) eval(ctx context.Context, key string, set *limiter.Set, now, cost int64, consume bool, outs []limiter.Outcome) error {
	script, layout := s.decide, upstash.DecideArgs
	if !s.noFastPath && upstash.FastPath(set) {
		script, layout = s.bucket, upstash.BucketArgs
	}
	keys, args := layout(slotKey(key), set, now, cost, consume, s.margin)
	ints, err := s.c.Eval(ctx, script, keys, stringArgs(args)).AsIntSlice()
	if err != nil {
		return fmt.Errorf("redis: decide %q: %w", key, err)
	}
	if err := upstash.ReadOutcomes(ints, outs); err != nil {
		return fmt.Errorf("redis: decide %q: %w", key, err)
	}
	return nil
}

// stringArgs renders script arguments (strings and integers) as RESP sends them.
func stringArgs(args []any) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = v
		case int64:
			out[i] = strconv.FormatInt(v, 10)
		case int:
			out[i] = strconv.Itoa(v)
		default:
			out[i] = fmt.Sprint(v)
		}
	}
	return out
}
