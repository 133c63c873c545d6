package redis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

var _ store.Counters = (*Counters)(nil)

// CountersConfig configures a Counters. Its zero value means the defaults.
type CountersConfig struct {
	// TTLMargin is how long past the instant its state goes idle a key is kept, to
	// absorb clock differences between callers; 0 means 1 minute.
	TTLMargin time.Duration
}

// Counters is the store.Counters and store.Settler over Redis or Valkey: one EVALSHA
// per decision, of the Upstash backend's decide.lua, or of bucket.lua for a set of one
// bucket rule, and one of the settle script per settlement, every key under its
// counter's hash tag. Create it with NewCounters.
type Counters struct {
	c   *Client
	lua luascript.Counters // decide.lua and the settle script
	// bucket.lua, replaceable by tests (a cold script cache), and whether it takes the
	// sets it can (tests turn it off to compare it with decide.lua).
	bucket     *luascript.Script
	noFastPath bool
	rules      *bucketRules
}

// NewCounters returns a Counters that sends its commands through c.
func NewCounters(c *Client, cfg CountersConfig) *Counters {
	return &Counters{c: c, lua: luascript.NewCounters(respConn{c}, "redis", slotKey, cfg.TTLMargin),
		bucket: luascript.BucketScript(), rules: &bucketRules{margin: cfg.TTLMargin}}
}

// Decide decides a request of cost against the counters of cs at now, all of them in
// one script call (one round trip when the server's script cache is warm); see
// store.Counters. On an error outs are zero.
func (s *Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	if len(cs) != 1 || !s.fast(cs[0].Set) {
		return s.lua.Decide(ctx, cs, now, cost, outs)
	}
	var err error
	outs[0], err = s.bucketOne(ctx, cs[0].Key, cs[0].Set, now, cost, true, nil)
	return err
}

// Peek reports what a request of cost 1 would get at now, without consuming: the
// script with one counter, in peek mode.
func (s *Counters) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	if err := store.CheckRequest(key, set, now, 1); err != nil {
		return limiter.Decision{}, err
	}
	if !s.fast(set) {
		return s.lua.Peek(ctx, key, set, now, outs)
	}
	return s.bucketOne(ctx, key, set, now, 1, false, outs)
}

// Reset deletes key's hash and the sorted sets of its sliding logs, which the hash
// names: two round trips (HKEYS, DEL), for an operation that is rare.
func (s *Counters) Reset(ctx context.Context, key string) error { return s.lua.Reset(ctx, key) }

// fast reports whether bucket.lua decides set.
func (s *Counters) fast(set *limiter.Set) bool { return !s.noFastPath && luascript.FastPath(set) }

// bucketOne decides (or peeks at) one counter with bucket.lua, and copies its one
// outcome into outs when outs has room.
func (s *Counters) bucketOne(ctx context.Context, key string, set *limiter.Set, now, cost int64, consume bool, outs []limiter.Outcome) (limiter.Decision, error) {
	keys, args := s.rules.get(set).Args(slotKey(key), now, cost, consume)
	var out [1]limiter.Outcome
	ints, err := scriptInts(s.c.Eval(ctx, s.bucket, keys, args))
	if err == nil {
		err = luascript.ReadOutcomes(ints, out[:])
	}
	if err != nil {
		return limiter.Decision{}, fmt.Errorf("redis: decide %q: %w", key, err)
	}
	if len(outs) >= 1 {
		outs[0] = out[0]
	}
	return set.Combine(out[:]), nil
}

// scriptInts reads a script's array of integers. An element of another kind is an
// ErrMalformedReply that names its index and type: unlike rueidis's AsIntSlice, whose
// parse error quotes a string element, it quotes no byte of the reply.
func scriptInts(res rueidis.RedisResult) ([]int64, error) {
	elems, err := res.ToArray()
	if err != nil {
		return nil, err
	}
	ints := make([]int64, len(elems))
	for i := range elems {
		if ints[i], err = elems[i].ToInt64(); err != nil {
			return nil, fmt.Errorf("%w: element %d: %w", luascript.ErrMalformedReply, i, err)
		}
	}
	return ints, nil
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
